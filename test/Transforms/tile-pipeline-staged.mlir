// RUN: tessera-opt %s --split-input-file --tile-pipeline=chip=gfx942 | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-pipeline=chip=gfx90a | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-pipeline=chip=gfx942 --tag-check -o /dev/null
// On CDNA (copies into LDS are buffer loads, then LDS stores) the buffers
// stay single and the next iteration's tiles are staged in registers,
// whatever the stage count.

// CHECK-LABEL: tile.kernel @staged
// CHECK: %[[SA:.*]] = tile.alloc_shared : !tile.shared<32x32xf16>
// CHECK: %[[SB:.*]] = tile.alloc_shared : !tile.shared<32x32xf16>
// CHECK-NOT: stages
// Prologue: the first iteration's tiles, copied synchronously.
// CHECK: tile.copy %{{.*}}[%{{.*}}, %[[LB:.*]]] -> %[[SA]] pad(0.000000e+00 : f16) :
// CHECK-NEXT: tile.copy %{{.*}}[%[[LB]], %{{.*}}] -> %[[SB]] :
// CHECK-NEXT: scf.for %[[K:.*]] = %[[LB]] to %{{.*}} step %[[STEP:[^ ]*]]
// The next iteration's tiles load into registers first.
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K]], %[[STEP]]
// CHECK-NEXT: %[[RA:.*]] = tile.load %{{.*}}[%{{.*}}, %[[NEXT]]] pad(0.000000e+00 : f16) : !tile.view<?x?xf16> -> tensor<32x32xf16>
// CHECK-NEXT: %[[RB:.*]] = tile.load %{{.*}}[%[[NEXT]], %{{.*}}] : !tile.view<?x?xf16> -> tensor<32x32xf16>
// The body's own barrier and loads, unchanged.
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.load %[[SA]] :
// CHECK-NEXT: tile.load %[[SB]] :
// CHECK-NEXT: tag.assert_contract
// CHECK-NEXT: tile.mma
// A barrier before the stores, which the body did not end with.
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store %[[RA]] -> %[[SA]] :
// CHECK-NEXT: tile.store %[[RB]] -> %[[SB]] :
// CHECK-NEXT: scf.yield
// No waits: nothing is asynchronous.
// CHECK-NOT: tile.async
// CHECK: tile.return
tile.kernel @staged(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %K: index) threads(256) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.copy %A[%c0, %k] -> %sA pad(0.0 : f16) : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// The copies' offset arithmetic is cloned for the next iteration and for
// the prologue; the body's copy of it goes when nothing else uses it.
// CHECK-LABEL: tile.kernel @offsets
// CHECK: %[[K0:.*]] = arith.muli %[[LB:.*]], %{{.*}} : index
// CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %[[K0]]] -> %{{.*}} :
// CHECK-NEXT: scf.for %[[K:.*]] = %[[LB]] to
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[K]], %{{.*}} : index
// CHECK-NEXT: %[[KN:.*]] = arith.muli %[[NEXT]], %{{.*}} : index
// CHECK-NEXT: tile.load %{{.*}}[%{{.*}}, %[[KN]]] :
// CHECK-NOT: arith.muli
// Its last barrier stays the only one before the store.
// CHECK: tile.mma
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store
// CHECK-NEXT: scf.yield
tile.kernel @offsets(%A: !tile.view<?x?xf16>, %T: index) threads(256) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %t = %c0 to %T step %c1 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %k = arith.muli %t, %c32 : index
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %n = tile.mma %a, %a, %c transpose_b : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    tile.barrier
    scf.yield %n : tensor<32x32xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

// int4 nibble-pair buffers cannot be stored from registers yet: the loop
// becomes a ring, as on other targets.
// CHECK-LABEL: tile.kernel @nibbles
// CHECK: tile.alloc_shared : !tile.shared<64x16x2xi4, stages = 2>
// CHECK: tile.async_commit
tile.kernel @nibbles(%W: !tile.view<?x?x2xi4>, %K: index) threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sW = tile.alloc_shared : !tile.shared<64x16x2xi4>
  scf.for %k = %c0 to %K step %c64 {
    tile.copy %W[%k, %c0, %c0] -> %sW : !tile.view<?x?x2xi4> -> !tile.shared<64x16x2xi4>
    tile.barrier
    %w = tile.load %sW : !tile.shared<64x16x2xi4> -> tensor<64x16x2xi4>
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}
