// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Shared-memory races and async-copy visibility (docs/invariants.md): a read needs
// the write retired and made visible by a barrier; a write needs every
// earlier read fenced by a barrier.

// Reference: synchronous copies, and asynchronous ones retired in order.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %s0 = tile.alloc_shared : !tile.shared<32x32xf16>
  %s1 = tile.alloc_shared : !tile.shared<32x32xf16>
  scf.for %k = %c0 to %K step %c32 {
    tile.copy %A[%c0, %k] -> %s0 async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.async_commit
    tile.copy %A[%c32, %k] -> %s1 async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.async_commit
    // One group may stay in flight: %s0's is retired, %s1's is not.
    tile.async_wait 1
    tile.barrier
    %a = tile.load %s0 : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tile.async_wait 0
    tile.barrier
    %b = tile.load %s1 : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tile.barrier
  }
  tile.return
}

// -----

// Mutant: no barrier between the copy and the load (read-after-write).
tile.kernel @missing_barrier_before_read(%A: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %s = tile.alloc_shared : !tile.shared<32x32xf16>
  scf.for %k = %c0 to %K step %c32 {
    // expected-note @below {{the write, with no barrier since}}
    tile.copy %A[%c0, %k] -> %s : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    // expected-error @below {{read-after-write race: %s is read before a barrier makes the write visible}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %s : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tile.barrier
  }
  tile.return
}

// -----

// Mutant: no barrier at the end of the iteration (write-after-read across
// the back edge: iteration %k + 32 overwrites what iteration %k reads).
tile.kernel @missing_barrier_after_read(%A: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %s = tile.alloc_shared : !tile.shared<32x32xf16>
  scf.for %k = %c0 to %K step %c32 {
    // expected-error @below {{write-after-read race: %s is overwritten while other threads may still read it}}
    // expected-note @below {{counterexample: %k = 32}}
    tile.copy %A[%c0, %k] -> %s : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.barrier
    // expected-note @below {{the earlier read, with no barrier since}}
    %a = tile.load %s : !tile.shared<32x32xf16> -> tensor<32x32xf16>
  }
  tile.return
}

// -----

// Mutant: the async copy is read before any tile.async_wait.
tile.kernel @read_before_wait(%A: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<32x32xf16>
  // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
  tile.copy %A[%c0, %k] -> %s async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.async_commit
  tile.barrier
  // expected-error @below {{read of %s before its asynchronous copy is complete}}
  // expected-note @below {{counterexample: any program instance}}
  %a = tile.load %s : !tile.shared<32x32xf16> -> tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: the wait leaves the needed group in flight (wrong pending count).
tile.kernel @wrong_wait_count(%A: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %s0 = tile.alloc_shared : !tile.shared<32x32xf16>
  %s1 = tile.alloc_shared : !tile.shared<32x32xf16>
  tile.copy %A[%c0, %k] -> %s0 async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.async_commit
  // expected-note @below {{the copy, not yet retired}}
  tile.copy %A[%c32, %k] -> %s1 async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.async_commit
  tile.async_wait 1
  tile.barrier
  %a = tile.load %s0 : !tile.shared<32x32xf16> -> tensor<32x32xf16>
  // expected-error @below {{read of %s1 before its asynchronous copy is complete}}
  // expected-note @below {{counterexample: }}
  %b = tile.load %s1 : !tile.shared<32x32xf16> -> tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: the copy is never committed, so no wait retires it.
tile.kernel @uncommitted_copy(%A: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<32x32xf16>
  // expected-note @below {{the copy, not yet retired}}
  tile.copy %A[%c0, %k] -> %s async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.async_wait 0
  tile.barrier
  // expected-error @below {{before its asynchronous copy is complete}}
  // expected-note @below {{counterexample: }}
  %a = tile.load %s : !tile.shared<32x32xf16> -> tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: waited but not fenced: other threads' copies are not yet visible.
tile.kernel @wait_without_barrier(%A: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<32x32xf16>
  // expected-note @below {{the write, with no barrier since}}
  tile.copy %A[%c0, %k] -> %s async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
  tile.async_commit
  tile.async_wait 0
  // expected-error @below {{read-after-write race}}
  // expected-note @below {{counterexample: }}
  %a = tile.load %s : !tile.shared<32x32xf16> -> tensor<32x32xf16>
  tile.return
}

// -----

// Mutant: a register tile stored to shared memory and read back unfenced.
tile.kernel @store_then_read(%x: f32) threads(128) {
  %s = tile.alloc_shared : !tile.shared<32x32xf32>
  %t = tile.splat %x : f32 -> tensor<32x32xf32>
  // expected-note @below {{the write, with no barrier since}}
  tile.store %t -> %s : tensor<32x32xf32> -> !tile.shared<32x32xf32>
  // expected-error @below {{read-after-write race}}
  // expected-note @below {{counterexample: }}
  %a = tile.load %s : !tile.shared<32x32xf32> -> tensor<32x32xf32>
  tile.return
}
