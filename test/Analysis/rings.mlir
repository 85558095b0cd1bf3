// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Ring-slot provenance: the tile read from slot s is the one written to it.

tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k1 = arith.addi %k, %c32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  tile.copy %A[%c0, %k] -> %rA[%c0] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.copy %A[%c0, %k1] -> %rA[%c1] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.copy %B[%k, %c0] -> %rB[%c0] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.copy %B[%k1, %c0] -> %rB[%c1] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.barrier
  %a1 = tile.load %rA[%c1] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
  %b1 = tile.load %rB[%c1] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
  tag.assert_contract %a1, %b1 : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: A's tile for k is read from B's slot of k + 32.
tile.kernel @wrong_slot(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %k1 = arith.addi %k, %c32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  tile.copy %A[%c0, %k] -> %rA[%c0] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  // expected-note @below {{was written here}}
  tile.copy %A[%c0, %k1] -> %rA[%c1] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  // expected-note @below {{was written here}}
  tile.copy %B[%k, %c0] -> %rB[%c0] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.copy %B[%k1, %c0] -> %rB[%c1] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.barrier
  %a = tile.load %rA[%c1] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
  %b = tile.load %rB[%c0] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
  // expected-error @below {{contraction indices differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: a slot that was never filled is read (one buffer too few for the
// prefetch distance: slot %s + 1 mod 2 is not written yet).
tile.kernel @unwritten_slot(%A: !tile.view<?x?xf16>, %k: index, %s: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %sr = arith.remui %s, %c2 : index
  %t = arith.addi %s, %c1 : index
  %next = arith.remui %t, %c2 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %r = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  // expected-note @below {{was written here}}
  tile.copy %A[%c0, %k] -> %r[%sr] : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.barrier
  %a = tile.load %r[%next] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
  // expected-error @below {{contraction indices differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tag.assert_contract %a, %a transpose_a : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}
