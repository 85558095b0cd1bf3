// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Staged buffers: each iteration loads the next iteration's tiles from
// global memory into registers, computes on the shared buffers, and stores
// the staged tiles into them at the end (what tile-pipeline emits where
// copies into shared memory are not asynchronous). The checker derives the
// invariant from the loop's own store, which must be the buffer's only
// write in the loop, of a tile loaded from a view at offsets that are
// functions of the induction variable: at the head of iteration k the
// buffer holds what the store of iteration k - step wrote. It proves the
// invariant on entry and across the back edge; races are checked as usual.

// The schedule, correct: it passes.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %next_k = arith.addi %k, %c32 : index
    %ra = tile.load %A[%c0, %next_k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %rb = tile.load %B[%next_k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    tile.store %ra -> %sA : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    tile.store %rb -> %sB : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    scf.yield %n : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the staged load of A reads this iteration's tile, not the next one's.
tile.kernel @prefetch_this_iteration(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  // expected-error @below {{the staging invariant of %sA does not hold on loop entry}}
  // expected-note @below {{counterexample: any execution}}
  // expected-note @below {{should hold A(0, e1 - 32) but holds A(0, 0)}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %next_k = arith.addi %k, %c32 : index
    %ra = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %rb = tile.load %B[%next_k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    // expected-error @below {{contraction indices differ}}
    // expected-note @below {{counterexample: %k = 0}}
    // expected-note @below {{%a[0, 0] carries A(0, -32); %b[0, 0] carries B(0, 0)}}
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    // expected-error @below {{the MMA's operands disagree on a component both carry (k)}}
    // expected-note @below {{counterexample: %k = 0}}
    // expected-note @below {{%a[0, 0] carries A(0, -32); %b[0, 0] carries B(0, 0)}}
    // expected-note @below {{the tiles of 'k' are summed here}}
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    // expected-note @below {{%a[0, 0] was written here}}
    tile.store %ra -> %sA : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    // expected-note @below {{%b[0, 0] was written here}}
    tile.store %rb -> %sB : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    scf.yield %n : tensor<32x32xf32>
  }
  // expected-error @below {{%acc does not sum every value of 'k' in its range}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{never sums k = 0}}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the stores overwrite the buffers while other threads may still read them.
tile.kernel @no_barrier_before_store(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %next_k = arith.addi %k, %c32 : index
    %ra = tile.load %A[%c0, %next_k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %rb = tile.load %B[%next_k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    tile.barrier
    // expected-note @below {{the earlier read, with no barrier since}}
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    // expected-note @below {{the earlier read, with no barrier since}}
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    // expected-error @below {{write-after-read race: %sA is overwritten while other threads may still read it}}
    // expected-note @below {{counterexample: %k = 0}}
    tile.store %ra -> %sA : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    // expected-error @below {{write-after-read race: %sB is overwritten while other threads may still read it}}
    // expected-note @below {{counterexample: %k = 0}}
    tile.store %rb -> %sB : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    scf.yield %n : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the body reads the buffers with no barrier after the writes before it.
tile.kernel @no_barrier_before_read(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-note @below {{the write, with no barrier since}}
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  // expected-note @below {{the write, with no barrier since}}
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %next_k = arith.addi %k, %c32 : index
    %ra = tile.load %A[%c0, %next_k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %rb = tile.load %B[%next_k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-error @below {{read-after-write race: %sA is read before a barrier makes the write visible}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    // expected-error @below {{read-after-write race: %sB is read before a barrier makes the write visible}}
    // expected-note @below {{counterexample: %k = 0}}
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    tile.store %ra -> %sA : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    tile.store %rb -> %sB : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    scf.yield %n : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the prologue copies the second tile of A; the body is consistent.
tile.kernel @prologue_wrong_tile(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  tile.copy %A[%c0, %c32] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  // expected-error @below {{the staging invariant of %sA does not hold on loop entry}}
  // expected-note @below {{counterexample: any execution}}
  // expected-note @below {{should hold A(0, 0) but holds A(0, e1 + 32)}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %next_k = arith.addi %k, %c32 : index
    %ra = tile.load %A[%c0, %next_k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %rb = tile.load %B[%next_k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    tile.store %ra -> %sA : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    tile.store %rb -> %sB : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    scf.yield %n : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the staged tiles' offsets are loop-carried state, not functions of
// %k: the buffers are no staging ring, and hold nothing known at the head.
tile.kernel @carried_offset(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  %acc:2 = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z, %kk = %c32) -> (tensor<32x32xf32>, index) {
    %next_k = arith.addi %k, %c32 : index
    %ra = tile.load %A[%c0, %kk] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %rb = tile.load %B[%kk, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    // expected-error @below {{%a carries no tag}}
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    tile.store %ra -> %sA : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    tile.store %rb -> %sB : tensor<32x32xf16> -> !tile.shared<32x32xf16>
    %kk2 = arith.muli %kk, %kk : index
    scf.yield %n, %kk2 : tensor<32x32xf32>, index
  }
  // expected-error @below {{sums no value of 'k': no tile.mma over 'k' adds to it}}
  tag.assert_complete %acc#0 over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}
