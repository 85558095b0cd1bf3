// RUN: tessera-opt %s --split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: tile.kernel @fold_static_dim
tile.kernel @fold_static_dim(%A: !tile.view<?x64xf32>, %X: !tile.view<?x64xf32>) threads(32) {
  // CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
  // CHECK-DAG: %[[D0:.*]] = tile.dim %{{.*}}, 0
  // CHECK: tile.load %{{.*}}[%[[D0]], %[[C64]]]
  %d0 = tile.dim %A, 0 : !tile.view<?x64xf32>
  %d1 = tile.dim %A, 1 : !tile.view<?x64xf32>
  %t = tile.load %A[%d0, %d1] : !tile.view<?x64xf32> -> tensor<4x4xf32>
  tile.store %t -> %X[%d0, %d1] : tensor<4x4xf32> -> !tile.view<?x64xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @fold_splat_and_broadcast
tile.kernel @fold_splat_and_broadcast(%X: !tile.view<?x?xf32>, %x: f32, %i: index) threads(32) {
  // A splat of a constant is a constant; so is its broadcast.
  // CHECK: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<16x8xf32>
  // CHECK: tile.store %[[ONE]]
  // CHECK: %[[S:.*]] = tile.splat %{{.*}} : f32 -> tensor<16xf32>
  // CHECK-NOT: dims []
  // CHECK: %[[B:.*]] = tile.broadcast %[[S]] dims [1]
  // CHECK: tile.store %[[B]]
  %c1 = arith.constant 1.0 : f32
  %one = tile.splat %c1 : f32 -> tensor<16xf32>
  %one2 = tile.broadcast %one dims [1] : tensor<16xf32> -> tensor<16x8xf32>
  tile.store %one2 -> %X[%i, %i] : tensor<16x8xf32> -> !tile.view<?x?xf32>
  %s = tile.splat %x : f32 -> tensor<16xf32>
  %same = tile.broadcast %s dims [] : tensor<16xf32> -> tensor<16xf32>
  %s2 = tile.broadcast %same dims [1] : tensor<16xf32> -> tensor<16x8xf32>
  tile.store %s2 -> %X[%i, %i] : tensor<16x8xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @fold_select
tile.kernel @fold_select(%X: !tile.view<?xf32>, %x: f32, %y: f32, %i: index) threads(32) {
  // CHECK-DAG: %[[A:.*]] = tile.splat %{{.*}} : f32 -> tensor<16xf32>
  // CHECK-DAG: %[[B:.*]] = tile.splat %{{.*}} : f32 -> tensor<16xf32>
  // CHECK-NOT: tile.select
  // CHECK: tile.store %[[A]]
  // CHECK: tile.store %[[B]]
  // CHECK: tile.store %[[A]]
  %a = tile.splat %x : f32 -> tensor<16xf32>
  %b = tile.splat %y : f32 -> tensor<16xf32>
  %t = arith.constant dense<true> : tensor<16xi1>
  %f = arith.constant dense<false> : tensor<16xi1>
  %c = arith.cmpf olt, %a, %b : tensor<16xf32>
  %r0 = tile.select %t, %a, %b : tensor<16xi1>, tensor<16xf32>
  %r1 = tile.select %f, %a, %b : tensor<16xi1>, tensor<16xf32>
  %r2 = tile.select %c, %a, %a : tensor<16xi1>, tensor<16xf32>
  tile.store %r0 -> %X[%i] : tensor<16xf32> -> !tile.view<?xf32>
  tile.store %r1 -> %X[%i] : tensor<16xf32> -> !tile.view<?xf32>
  tile.store %r2 -> %X[%i] : tensor<16xf32> -> !tile.view<?xf32>
  tile.return
}

// -----

// Pure tile ops whose results are unused disappear; memory ops and
// synchronisation stay.
// CHECK-LABEL: tile.kernel @dead_code
tile.kernel @dead_code(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  // CHECK-NOT: tile.iota
  // CHECK-NOT: tile.mma
  // CHECK: tile.barrier
  %io = tile.iota : tensor<16xi32>
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  %m = tile.mma %a, %a, %a : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
  tile.barrier
  tile.return
}
