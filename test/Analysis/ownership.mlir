// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Output ownership: each program stores exactly its own tile of C.

tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : index
  %n0 = arith.muli %pn, %c32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %a = tile.load %A[%m0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  %b = tile.load %B[%c0, %n0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %c = tile.mma %a, %b, %z : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
  tag.assert_eq %c[(d0, d1)[s0, s1] -> (d0, d1)](m, n),
                %C[(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)](m, n)
      captures(%m0, %n0) : tensor<32x32xf32>, !tile.view<?x?xf32>
  tile.store %c -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the program ids are swapped for the C tile.
tile.kernel @swapped_program_ids(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : index
  %n0 = arith.muli %pn, %c32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{'s tag is bound here}}
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %a = tile.load %A[%m0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  %b = tile.load %B[%c0, %n0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-note @below {{was written here}}
  %c = tile.mma %a, %b, %z : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
  // expected-error @below {{tag assertion failed: tags differ}}
  // expected-note @below {{counterexample: program_id.x = }}
  // expected-note @below {{carries A*B(}}
  tag.assert_eq %c[(d0, d1)[s0, s1] -> (d0, d1)](m, n),
                %C[(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)](m, n)
      captures(%n0, %m0) : tensor<32x32xf32>, !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the store target is one row off.
tile.kernel @off_by_one_row(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %m0 = arith.muli %pm, %c32 : index
  %m1 = arith.addi %m0, %c1 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{tag is bound here}}
  tag.bind %C as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{was written here}}
  %a = tile.load %A[%m0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  // expected-error @below {{a copy lands on its own element}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tag.assert_eq %a[(d0, d1)[s0] -> (d0, d1)](), %C[(d0, d1)[s0] -> (d0 + s0, d1)]()
      captures(%m1) message "a copy lands on its own element" : tensor<32x16xf16>, !tile.view<?x?xf16>
  // expected-error @below {{stored data does not belong where it lands (m, k)}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tile.store %a -> %C[%m1, %c0] : tensor<32x16xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Mutant: the tile came from a different tensor than the destination's.
tile.kernel @wrong_source_tensor(%A: !tile.view<?x?xf16>, %X: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>, %m0: index) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %X as "X"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{tag is bound here}}
  tag.bind %C as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{was written here}}
  %x = tile.load %X[%m0, %c0] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  // expected-error @below {{tags differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries X(}}
  tag.assert_eq %x[(d0, d1)[s0] -> (d0, d1)](), %C[(d0, d1)[s0] -> (d0 + s0, d1)]()
      captures(%m0) : tensor<32x16xf16>, !tile.view<?x?xf16>
  tile.return
}
