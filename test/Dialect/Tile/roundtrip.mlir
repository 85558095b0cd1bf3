// RUN: tessera-opt %s --split-input-file | FileCheck %s
// The custom form is stable, and the generic form reads back to it.
// RUN: tessera-opt %s --split-input-file | tessera-opt --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | tessera-opt --split-input-file | FileCheck %s

// CHECK-LABEL: tile.kernel @structure
// CHECK-SAME: (%{{.*}}: !tile.view<?x?xbf16>, %{{.*}}: !tile.view<?x64xf32>, %{{.*}}: index, %{{.*}}: f32, %{{.*}}: i1) threads(256) cluster(2, 1, 1) {
tile.kernel @structure(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x64xf32>,
                       %n: index, %s: f32, %flag: i1) threads(256) cluster(2, 1, 1) {
  // CHECK: tile.program_id x
  // CHECK: tile.program_id z
  // CHECK: tile.num_programs y
  // CHECK: tile.dim %{{.*}}, 1 : !tile.view<?x?xbf16>
  %0 = tile.program_id x
  %1 = tile.program_id z
  %2 = tile.num_programs y
  %3 = tile.dim %A, 1 : !tile.view<?x?xbf16>
  // CHECK: tile.return
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @memory
tile.kernel @memory(%A: !tile.view<?x?xbf16>, %X: !tile.view<?x?x64xbf16>,
                    %ids: !tile.view<?xi32>, %Out: !tile.view<?x?xf32>,
                    %i: index, %j: index) threads(128) {
  // CHECK: %[[S:.*]] = tile.alloc_shared : !tile.shared<128x64xbf16>
  // CHECK: %[[R:.*]] = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 3>
  %s = tile.alloc_shared : !tile.shared<128x64xbf16>
  %r = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 3>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %[[S]] : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
  tile.copy %A[%i, %j] -> %s : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
  // CHECK: tile.copy_out %[[S]] -> %{{.*}}[%{{.*}}, %{{.*}}] async : !tile.shared<128x64xbf16> -> !tile.view<?x?xbf16>
  tile.copy_out %s -> %A[%i, %j] async : !tile.shared<128x64xbf16> -> !tile.view<?x?xbf16>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] -> %[[R]][%{{.*}}] async pad(1.000000e+00 : bf16) :
  tile.copy %X[%i, %j, %i] -> %r[%j] async pad(1.0 : bf16)
      : !tile.view<?x?x64xbf16> -> !tile.shared<64x64xbf16, stages = 3>
  // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] rows(%[[ROWS:.*]] : tensor<64xi32>) -> %[[R]][%{{.*}}] async :
  %gathered = tile.load %ids[%i] : !tile.view<?xi32> -> tensor<64xi32>
  tile.copy %A[%i, %j] rows(%gathered : tensor<64xi32>) -> %r[%j] async
      : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 3>
  // CHECK: tile.async_commit
  // CHECK: tile.async_wait 0
  // CHECK: tile.barrier
  tile.async_commit
  tile.async_wait 0
  tile.barrier
  // CHECK: tile.load %[[S]] : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
  // CHECK: tile.load %[[R]][%{{.*}}] : !tile.shared<64x64xbf16, stages = 3> -> tensor<64x64xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}] pad(0xFF80 : bf16) : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
  // CHECK: tile.load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] : !tile.view<?x?x64xbf16> -> tensor<64xbf16>
  %a = tile.load %s : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
  %b = tile.load %r[%i] : !tile.shared<64x64xbf16, stages = 3> -> tensor<64x64xbf16>
  %c = tile.load %A[%i, %j] pad(0xFF80 : bf16) : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
  %d = tile.load %X[%i, %j, %i] : !tile.view<?x?x64xbf16> -> tensor<64xbf16>
  // CHECK: tile.store %{{.*}} -> %[[S]] : tensor<128x64xbf16> -> !tile.shared<128x64xbf16>
  // CHECK: tile.store %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : tensor<16x32xbf16> -> !tile.view<?x?xbf16>
  tile.store %a -> %s : tensor<128x64xbf16> -> !tile.shared<128x64xbf16>
  tile.store %c -> %A[%i, %j] : tensor<16x32xbf16> -> !tile.view<?x?xbf16>
  // CHECK: %[[IDS:.*]] = tile.load {{.*}} -> tensor<16xi32>
  // CHECK: tile.gather %{{.*}}[%{{.*}}, %{{.*}}] rows(%[[IDS]]) : !tile.view<?x?xbf16>, tensor<16xi32> -> tensor<16x32xbf16>
  %rows = tile.load %ids[%i] : !tile.view<?xi32> -> tensor<16xi32>
  %g = tile.gather %A[%i, %j] rows(%rows) : !tile.view<?x?xbf16>, tensor<16xi32> -> tensor<16x32xbf16>
  // CHECK: tile.atomic_add %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] : tensor<16x8xf32> -> !tile.view<?x?xf32>
  // CHECK: tile.atomic_add %{{.*}} -> %{{.*}}[%{{.*}}, %{{.*}}] rows(%[[IDS]] : tensor<16xi32>) : tensor<16x8xf32> -> !tile.view<?x?xf32>
  %v = arith.constant dense<1.0> : tensor<16x8xf32>
  tile.atomic_add %v -> %Out[%i, %j] : tensor<16x8xf32> -> !tile.view<?x?xf32>
  tile.atomic_add %v -> %Out[%i, %j] rows(%rows : tensor<16xi32>) : tensor<16x8xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @math
tile.kernel @math(%x: f32, %i: i32) threads(32) {
  %a = arith.constant dense<1.0> : tensor<128x64xbf16>
  %bt = arith.constant dense<1.0> : tensor<128x64xbf16>
  %c = arith.constant dense<0.0> : tensor<128x128xf32>
  // CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} kind wgmma transpose_b : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
  %m = tile.mma %a, %bt, %c kind wgmma transpose_b : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<128x128xf32>
  // CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} transpose_a : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
  %c2 = arith.constant dense<0.0> : tensor<64x64xf32>
  %m2 = tile.mma %a, %a, %c2 transpose_a : tensor<128x64xbf16>, tensor<128x64xbf16> -> tensor<64x64xf32>
  // CHECK: tile.mma %{{.*}}, %{{.*}}, %{{.*}} kind auto : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xi32>
  %qa = arith.constant dense<1> : tensor<16x32xi8>
  %qb = arith.constant dense<1> : tensor<32x8xi8>
  %qc = arith.constant dense<0> : tensor<16x8xi32>
  %qm = tile.mma %qa, %qb, %qc kind auto : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xi32>
  // CHECK: tile.reduce max %{{.*}} dim 1 : tensor<128x128xf32> -> tensor<128xf32>
  // CHECK: tile.reduce sum %{{.*}} dim 0 : tensor<128x128xf32> -> tensor<128xf32>
  %r = tile.reduce max %m dim 1 : tensor<128x128xf32> -> tensor<128xf32>
  %r2 = tile.reduce sum %m dim 0 : tensor<128x128xf32> -> tensor<128xf32>
  // CHECK: tile.broadcast %{{.*}} dims [1] : tensor<128xf32> -> tensor<128x64xf32>
  %bc = tile.broadcast %r dims [1] : tensor<128xf32> -> tensor<128x64xf32>
  // CHECK: tile.broadcast %{{.*}} dims [0, 1] : tensor<1x1xf32> -> tensor<128x64xf32>
  %unit = arith.constant dense<2.0> : tensor<1x1xf32>
  %bu = tile.broadcast %unit dims [0, 1] : tensor<1x1xf32> -> tensor<128x64xf32>
  // CHECK: tile.unpack %{{.*}} dim 1 order [1, 0] : tensor<4x4x2xi4> -> tensor<4x8xi4>
  %packed = arith.constant dense<1> : tensor<4x4x2xi4>
  %unpacked = tile.unpack %packed dim 1 order [1, 0] : tensor<4x4x2xi4> -> tensor<4x8xi4>
  // CHECK: tile.splat %{{.*}} : f32 -> tensor<128x64xf32>
  %sp = tile.splat %x : f32 -> tensor<128x64xf32>
  // CHECK: tile.iota : tensor<64xi32>
  %io = tile.iota : tensor<64xi32>
  // CHECK: tile.select %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xi1>, tensor<128x64xf32>
  %cond = arith.cmpf olt, %bc, %sp : tensor<128x64xf32>
  %sel = tile.select %cond, %bc, %sp : tensor<128x64xi1>, tensor<128x64xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @quant
tile.kernel @quant(%i: index) threads(64) {
  %codes = arith.constant dense<3> : tensor<128x128xi4>
  %scales = arith.constant dense<0.5> : tensor<1x128xf16>
  %zeros = arith.constant dense<8> : tensor<1x128xi4>
  // CHECK: tile.dequant %{{.*}}, %{{.*}} group [128, 1] : tensor<128x128xi4>, tensor<1x128xf16> -> tensor<128x128xbf16>
  // CHECK: tile.dequant %{{.*}}, %{{.*}}, %{{.*}} group [256, 1] : tensor<128x128xi4>, tensor<1x128xf16>, tensor<1x128xi4> -> tensor<128x128xf16>
  %w = tile.dequant %codes, %scales group [128, 1] : tensor<128x128xi4>, tensor<1x128xf16> -> tensor<128x128xbf16>
  %w2 = tile.dequant %codes, %scales, %zeros group [256, 1] : tensor<128x128xi4>, tensor<1x128xf16>, tensor<1x128xi4> -> tensor<128x128xf16>
  // CHECK: tile.quant %{{.*}} group [1, 64] : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x2xf32>
  %q, %s = tile.quant %w group [1, 64] : tensor<128x128xbf16> -> tensor<128x128xf8E4M3FN>, tensor<128x2xf32>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @pipeline_policy
tile.kernel @pipeline_policy(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: scf.for
  // CHECK: } {tile.pipeline = #tile.pipeline<stages = 4>}
  scf.for %k = %c0 to %n step %c1 {
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 4>}
  tile.return
}

// -----

#a = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#b = #tile.linear<register = [[8, 0], [0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
// CHECK-LABEL: func.func @convert_layout
func.func @convert_layout(%x: tensor<16x8xf32, #a>) -> tensor<16x8xf32, #b> {
  // CHECK: tile.convert_layout %{{.*}} : tensor<16x8xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0]]{{.*}}>> -> tensor<16x8xf32, #tile.linear<register = {{\[}}[8, 0], [0, 1]]
  %y = tile.convert_layout %x : tensor<16x8xf32, #a> -> tensor<16x8xf32, #b>
  return %y : tensor<16x8xf32, #b>
}

// -----

// CHECK-LABEL: tile.kernel @warp_specialized
tile.kernel @warp_specialized(%A: !tile.view<?x?xf16>, %K: index) threads(256) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %true = arith.constant true
  %r = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  // CHECK: tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  // CHECK: tile.alloc_mbarrier arrivals(3) : !tile.mbarrier<2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(3) : !tile.mbarrier<2>
  // CHECK: tile.warp_specialize registers(40, 232) producer {
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      // CHECK: tile.mbarrier_wait %{{.*}}[%{{.*}}], parity %{{.*}} : !tile.mbarrier<2>
      tile.mbarrier_wait %empty[%c0], parity %true : !tile.mbarrier<2>
      tile.copy %A[%c0, %k] -> %r[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      // CHECK: tile.mbarrier_arrive %{{.*}}[%{{.*}}] : !tile.mbarrier<2>
      tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<2>
    }
  // CHECK: } consumer {
  } consumer {
    scf.for %k = %c0 to %K step %c32 {
      tile.mbarrier_wait %full[%c0], parity %true : !tile.mbarrier<2>
      %a = tile.load %r[%c0] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<2>
    }
  }
  tile.return
}

// A clustered hand-over: multicast fills, a cluster array of releases.
// CHECK-LABEL: tile.kernel @multicast
// CHECK-SAME: cluster(2)
tile.kernel @multicast(%A: !tile.view<?x?xf16>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %true = arith.constant true
  %r = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  // CHECK: tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      tile.mbarrier_wait %empty[%c0], parity %true : !tile.mbarrier<2>
      // CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %{{.*}}[%{{.*}}] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.copy %A[%c0, %k] -> %r[%c0] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<2>
    }
  } consumer {
  }
  tile.return
}

// -----

// The ping-pong schedule: the op's keyword and the persistent policy's.
// CHECK-LABEL: tile.kernel @pingpong
// CHECK-SAME: attributes {tile.persistent = #tile.persistent<group = 4, pingpong = true>}
tile.kernel @pingpong() threads(128)
    attributes {tile.persistent = #tile.persistent<group = 4, pingpong = true>} {
  // CHECK: tile.warp_specialize registers(40, 232) pingpong producer {
  tile.warp_specialize registers(40, 232) pingpong producer {
  } consumer {
  }
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @warp_specialize_policy
tile.kernel @warp_specialize_policy(%n: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // CHECK: } {tile.pipeline = #tile.pipeline<stages = 4, warp_specialize = true>}
  scf.for %k = %c0 to %n step %c1 {
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 4, warp_specialize = true>}
  tile.return
}
