// RUN: tessera-opt %s --split-input-file --tile-pipeline | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-pipeline --tag-check -o /dev/null

// CHECK-LABEL: tile.kernel @three_stages
// The buffers become 3-slot rings.
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
// Prologue: iterations 0 and 1 into slots 0 and 1, one commit group each.
// CHECK: tile.copy %{{.*}} -> %[[RA]][%[[S0:.*]]] async
// CHECK: tile.copy %{{.*}} -> %[[RB]][%[[S0]]] async
// CHECK-NEXT: tile.async_commit
// CHECK: tile.copy %{{.*}} -> %[[RA]][%[[S1:.*]]] async
// CHECK: tile.copy %{{.*}} -> %[[RB]][%[[S1]]] async
// CHECK-NEXT: tile.async_commit
// CHECK-NOT: tile.copy
// The loop: wait until one group is in flight, fence, prefetch two ahead.
// CHECK: scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %[[STEP:[^ ]*]]
// CHECK-NEXT: tile.async_wait 1
// CHECK-NEXT: tile.barrier
// CHECK: %[[I:.*]] = arith.divui %{{.*}}, %[[STEP]]
// CHECK: %[[SLOT:.*]] = arith.remui %[[I]], %{{.*}}
// CHECK: %[[NEXT_SLOT:.*]] = arith.remui
// CHECK: tile.copy %{{.*}} -> %[[RA]][%[[NEXT_SLOT]]] async
// CHECK: tile.copy %{{.*}} -> %[[RB]][%[[NEXT_SLOT]]] async
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.load %[[RA]][%[[SLOT]]]
// CHECK-NEXT: tile.load %[[RB]][%[[SLOT]]]
// CHECK-NOT: tile.barrier
// CHECK: scf.yield
// CHECK-NOT: tile.pipeline
// CHECK: tile.async_wait 0
tile.kernel @three_stages(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    scf.yield %n : tensor<32x32xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}

// -----

// Two stages: one prologue copy, no group left in flight at the wait. The
// copy's offset arithmetic inside the loop is cloned for the prefetch.
// CHECK-LABEL: tile.kernel @two_stages
// CHECK: tile.alloc_shared : !tile.shared<64xf32, stages = 2>
// CHECK: arith.muli
// CHECK: tile.copy {{.*}} async
// CHECK-NEXT: tile.async_commit
// CHECK: scf.for
// CHECK-NEXT: tile.async_wait 0
// CHECK-NEXT: tile.barrier
tile.kernel @two_stages(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tag.bind %X as "X"(i) = (d0) -> (d0) : !tile.view<?xf32>
  %s = tile.alloc_shared : !tile.shared<64xf32>
  scf.for %i = %c0 to %n step %c1 {
    %off = arith.muli %i, %c64 : index
    tile.copy %X[%off] -> %s : !tile.view<?xf32> -> !tile.shared<64xf32>
    tile.barrier
    %t = tile.load %s : !tile.shared<64xf32> -> tensor<64xf32>
    tag.assert_eq %t[(d0)[s0] -> (d0)](i), %X[(d0)[s0] -> (d0 + s0)](i) captures(%off) : tensor<64xf32>, !tile.view<?xf32>
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

// One stage is no pipelining: the loop only loses the attribute.
// CHECK-LABEL: tile.kernel @one_stage
// CHECK: tile.alloc_shared : !tile.shared<16xf32>
// CHECK-NOT: async
// CHECK: tile.barrier
// CHECK-NOT: tile.pipeline
tile.kernel @one_stage(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %X[%i] -> %s : !tile.view<?xf32> -> !tile.shared<16xf32>
    tile.barrier
    %t = tile.load %s : !tile.shared<16xf32> -> tensor<16xf32>
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 1>}
  tile.return
}
