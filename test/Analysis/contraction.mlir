// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Contraction agreement at tile.mma: correct kernels pass; mutants that feed
// the MMA mismatched k fail with a counterexample.

// The reference: k of a[i, kk] is k of b[kk, j] in every iteration.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %m0 = tile.program_id x
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    tag.assert_contract %a, %b : tensor<64x32xf16>, tensor<32x64xf16>
    %n = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %n : tensor<64x64xf32>
  }
  tile.return
}

// -----

// Mutant: B is copied one tile ahead of A.
tile.kernel @b_one_tile_ahead(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  scf.for %k = %c0 to %K step %c32 {
    %kb = arith.addi %k, %c32 : index
    // expected-note @below {{%a[0, 0] was written here}}
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    // expected-note @below {{was written here}}
    tile.copy %B[%kb, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    // expected-error @below {{tag assertion failed: contraction indices differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries A(}}
    tag.assert_contract %a, %b : tensor<64x32xf16>, tensor<32x64xf16>
    tile.barrier
  }
  tile.return
}

// -----

// Mutant: A's column offset is the loop's first tile, not the current one.
tile.kernel @a_stuck_at_first_tile(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  scf.for %k = %c0 to %K step %c32 {
    // expected-note @below {{was written here}}
    tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    // expected-note @below {{was written here}}
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    // expected-error @below {{contraction indices differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries A(}}
    tag.assert_contract %a, %b : tensor<64x32xf16>, tensor<32x64xf16>
    tile.barrier
  }
  tile.return
}

// -----

// Mutant: square tiles with the operands swapped.
tile.kernel @swapped_operands(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{was written here}}
  %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-note @below {{was written here}}
  %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-error @below {{contraction indices differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries B(}}
  tag.assert_contract %b, %a : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: A read transposed (rows indexed by k).
tile.kernel @transposed_access(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %k: index, %m0: index) threads(128) {
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{was written here}}
  %a = tile.load %A[%k, %m0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-note @below {{was written here}}
  %b = tile.load %B[%k, %m0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-error @below {{contraction indices differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: B stored as [N, K] but used without transpose_b.
tile.kernel @missing_transpose(%A: !tile.view<?x?xf16>, %Bt: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %Bt as "B"(n, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{was written here}}
  %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-note @below {{was written here}}
  %b = tile.load %Bt[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  tag.assert_contract %a, %b transpose_b : tensor<32x32xf16>, tensor<32x32xf16>
  // expected-error @below {{contraction indices differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: the loop steps by 32 but the copies advance by 64 per iteration.
tile.kernel @wrong_stride(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  scf.for %k = %c0 to %K step %c32 {
    %k2 = arith.muli %k, %c2 : index
    // expected-note @below {{was written here}}
    tile.copy %A[%c0, %k2] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    // expected-note @below {{was written here}}
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    // expected-error @below {{contraction indices differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries A(}}
    tag.assert_contract %a, %b : tensor<64x32xf16>, tensor<32x64xf16>
    tile.barrier
  }
  tile.return
}

// -----

// Mutant: the contraction component is not what the binding names.
tile.kernel @unknown_component(%A: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-error @below {{%a's tag A has no component 'd'}}
  tag.assert_contract %a, %a over "d" : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// An operand derived from no binding carries no tag.
tile.kernel @untagged_operand(%A: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  // expected-error @below {{%a carries no tag}}
  tag.assert_contract %a, %a : tensor<32x32xf16>, tensor<32x32xf16>
  tile.return
}

// -----

// Every tile.mma proves its operands agree, with no assertion: here B is
// one tile ahead of A.
tile.kernel @mma_checks_itself(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    %kb = arith.addi %k, %c32 : index
    // expected-note @below {{was written here}}
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<64x32xf16>
    // expected-note @below {{was written here}}
    %b = tile.load %B[%kb, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16>
    // expected-error @below {{the MMA's operands disagree on a component both carry (k)}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries A(}}
    %n = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    scf.yield %n : tensor<64x64xf32>
  }
  tile.return
}

// -----

// Components other than the contracted one join by name: a head both
// operands carry must agree, and the product carries (h, m, n).
tile.kernel @same_head(%A: !tile.view<?x?x?xf16>, %B: !tile.view<?x?x?xf16>, %C: !tile.view<?x?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %h = tile.program_id x
  tag.bind %A as "A"(h, m, k) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  tag.bind %B as "B"(h, k, n) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  tag.bind %C as "C"(h, m, n) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf32>
  %a = tile.load %A[%h, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<32x16xf16>
  %b = tile.load %B[%h, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<16x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %c = tile.mma %a, %b, %z : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
  tile.store %c -> %C[%h, %c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?x?xf32>
  tile.return
}

// -----

// Mutant: B is read from the next head.
tile.kernel @wrong_head(%A: !tile.view<?x?x?xf16>, %B: !tile.view<?x?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %h = tile.program_id x
  %h1 = arith.addi %h, %c1 : index
  tag.bind %A as "A"(h, m, k) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  tag.bind %B as "B"(h, k, n) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
  // expected-note @below {{was written here}}
  %a = tile.load %A[%h, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<32x16xf16>
  // expected-note @below {{was written here}}
  %b = tile.load %B[%h1, %c0, %c0] : !tile.view<?x?x?xf16> -> tensor<16x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-error @below {{disagree on a component both carry (h, k)}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  %c = tile.mma %a, %b, %z : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
  tile.return
}

// -----

// Mutant: A is read entirely past the end of K. Every element is padding
// (zero), but padding keeps the coordinates it was read at, so the
// contraction still fails.
tile.kernel @all_padding(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // expected-note @below {{was written here}}
  %a = tile.load %A[%c0, %K] : !tile.view<?x?xf16> -> tensor<32x16xf16>
  // expected-note @below {{was written here}}
  %b = tile.load %B[%c0, %c0] : !tile.view<?x?xf16> -> tensor<16x32xf16>
  // expected-error @below {{contraction indices differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  tag.assert_contract %a, %b : tensor<32x16xf16>, tensor<16x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-error @below {{disagree on a component both carry (k)}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries A(}}
  %c = tile.mma %a, %b, %z : tensor<32x16xf16>, tensor<16x32xf16> -> tensor<32x32xf32>
  tile.return
}
