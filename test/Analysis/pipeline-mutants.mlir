// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Pass-level mutants of software pipelining: the post-pass IR of a 3-stage
// GEMM loop (the schedule tile-pipeline emits), correct and with one
// mistake each. The checker derives each ring's loop invariant from the
// loop's own copy (slot of iteration k - j * step holds its tile, with its
// commit groups, for j = 1 .. stages - 1) and proves it on entry and across
// the back edge; races and visibility are checked per slot.

// The schedule tile-pipeline produces (stages = 3), by hand: it passes.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The prefetch is one iteration short of the schedule (k + 32, not k + 64).
tile.kernel @prefetch_distance_off_by_one(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  // expected-error @below {{the ring invariant of %rA does not hold on loop entry}}
  // expected-note @below {{counterexample: slot = 1, e1 = }}
  // expected-note @below {{should hold A(}}
  // expected-error @below {{the ring invariant of %rB does not hold on loop entry}}
  // expected-note @below {{counterexample: slot = 1, e0 = }}
  // expected-note @below {{should hold B(}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c32 : index
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: Three stages of schedule on a two-slot ring: the prefetch lands in the slot being read.
tile.kernel @one_buffer_too_few(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
  tile.async_commit
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c2 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c2 : index
    %next_k = arith.addi %k, %c64 : index
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
    tile.async_commit
    // expected-error @below {{read of %rA before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
    // expected-error @below {{read of %rB before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The wait leaves the group of this iteration's tiles in flight.
tile.kernel @wait_count_too_high(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 2
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    // expected-error @below {{read of %rA before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    // expected-error @below {{read of %rB before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The prefetch is never committed, so no wait retires it.
tile.kernel @missing_commit_in_loop(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  // expected-error @below {{the ring invariant of %rA does not hold on loop entry}}
  // expected-note @below {{counterexample: slot 0 of %rA should have a copy in flight in the open commit group}}
  // expected-error @below {{the ring invariant of %rB does not hold on loop entry}}
  // expected-note @below {{counterexample: slot 0 of %rB should have a copy in flight in the open commit group}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    // expected-error @below {{read of %rA before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    // expected-error @below {{read of %rB before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The loads read the slot being prefetched instead of the current one.
tile.kernel @loads_read_next_slot(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    // expected-error @below {{read of %rA before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %rA[%next_slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    // expected-error @below {{read of %rB before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %b = tile.load %rB[%next_slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The prologue issues one stage instead of two.
tile.kernel @prologue_missing_a_stage(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  // expected-error @below {{the ring invariant of %rA does not hold on loop entry}}
  // expected-note @below {{counterexample: slot 0 of %rA should have a copy in flight with 1 commit groups after it}}
  // expected-error @below {{the ring invariant of %rB does not hold on loop entry}}
  // expected-note @below {{counterexample: slot 0 of %rB should have a copy in flight with 1 commit groups after it}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The prologue puts A's first two tiles in each other's slots.
tile.kernel @prologue_slots_swapped(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  // expected-error @below {{the ring invariant of %rA does not hold on loop entry}}
  // expected-note @below {{counterexample: slot 0 of %rA should have a copy in flight with 1 commit groups after it}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The wait retires this thread's copies, but without a barrier other threads' copies are not visible and the prefetch overwrites a slot others may still read.
tile.kernel @missing_barrier_after_wait(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    // expected-error @below {{write-after-read race: %rA is overwritten while other threads may still read it}}
    // expected-note @below {{counterexample: %k = 32}}
    // expected-note @below {{the write, with no barrier since}}
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    // expected-error @below {{write-after-read race: %rB is overwritten while other threads may still read it}}
    // expected-note @below {{counterexample: %k = 32}}
    // expected-note @below {{the write, with no barrier since}}
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    // expected-error @below {{read-after-write race: %rA is read before a barrier makes the write visible}}
    // expected-note @below {{counterexample: %k = 32}}
    // expected-note @below {{the earlier read, with no barrier since}}
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    // expected-error @below {{read-after-write race: %rB is read before a barrier makes the write visible}}
    // expected-note @below {{counterexample: %k = 32}}
    // expected-note @below {{the earlier read, with no barrier since}}
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: A's prefetch goes into the slot this iteration reads.
tile.kernel @prefetch_into_current_slot(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c32, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  // expected-error @below {{the ring invariant of %rA does not hold on loop entry}}
  // expected-note @below {{counterexample: slot 1 of %rA should have a copy in flight with 1 commit groups after it}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    // expected-note @below {{the copy, not yet retired by tile.async_wait and a barrier}}
    // expected-note @below {{was written here}}
    tile.copy %A[%c0, %next_k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    // expected-note @below {{was written here}}
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    // expected-error @below {{read of %rA before its asynchronous copy is complete}}
    // expected-note @below {{counterexample: %k = 0}}
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    // expected-error @below {{contraction indices differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries A(}}
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    // expected-error @below {{operands disagree on a component both carry (k)}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries A(}}
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}

// -----

// Mutant: The prologue fetches B's third tile where the second belongs.
tile.kernel @prologue_wrong_tile(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // Prologue: iterations 0 and 1 into slots 0 and 1.
  tile.copy %A[%c0, %c0] -> %rA[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c0, %c0] -> %rB[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  tile.copy %A[%c0, %c32] -> %rA[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.copy %B[%c64, %c0] -> %rB[%c1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
  tile.async_commit
  // expected-error @below {{the ring invariant of %rB does not hold on loop entry}}
  // expected-note @below {{counterexample: slot = 1}}
  // expected-note @below {{should hold B(}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.async_wait 1
    tile.barrier
    %i = arith.divui %k, %c32 : index
    %slot = arith.remui %i, %c3 : index
    %i2 = arith.addi %i, %c2 : index
    %next_slot = arith.remui %i2, %c3 : index
    %next_k = arith.addi %k, %c64 : index
    tile.copy %A[%c0, %next_k] -> %rA[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.copy %B[%next_k, %c0] -> %rB[%next_slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    tile.async_commit
    %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  }
  tile.async_wait 0
  tile.return
}
