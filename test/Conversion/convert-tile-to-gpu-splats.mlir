// RUN: tessera-opt %s --split-input-file --tile-set-target=chip=gfx942 \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-set-target=chip=sm_80 \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefix=NV
// Splats stay scalars. An element-wise op on splats only is computed once
// and splat; on CDNA an integer op or comparison with a splat operand goes
// register by register against the scalar (no vector of its copies, which
// the backend keeps a register each for); a tile.select on a splat
// condition selects whole vectors. NVIDIA keeps integer ops as vectors.

// CHECK-LABEL: gpu.func @mask
// The positions' comparison with %n: one scalar compare per distinct
// column a thread holds (4; the rest are the same registers again).
// CHECK-COUNT-4: arith.cmpi ult, %{{[0-9]+}}, %arg2 : index
// CHECK-NEXT: vector.from_elements {{.*}} : vector<32xi1>
// CHECK: %[[S2:.*]] = arith.mulf %arg3, %{{.*}} : f32
// CHECK-NEXT: %[[SPLAT:.*]] = vector.broadcast %[[S2]] : f32 to vector<32xf32>
// CHECK-NEXT: arith.select %{{.*}}, %{{.*}}, %[[SPLAT]] : vector<32xi1>, vector<32xf32>
// NV-LABEL: gpu.func @mask
// NV: arith.cmpi ult, %{{.*}}, %{{.*}} : vector<32xindex>
// NV: %[[S2:.*]] = arith.mulf %arg3, %{{.*}} : f32
// NV-NEXT: vector.broadcast %[[S2]] : f32 to vector<32xf32>
tile.kernel @mask(%X: !tile.view<?x?xf32>, %O: !tile.view<?x?xf32>,
                  %n: index, %s: f32) threads(256) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<128x64xf32>
  %cols = tile.iota : tensor<64xindex>
  %cols2 = tile.broadcast %cols dims [0]
      : tensor<64xindex> -> tensor<128x64xindex>
  %n_t = tile.splat %n : index -> tensor<128x64xindex>
  %in = arith.cmpi ult, %cols2, %n_t : tensor<128x64xindex>
  %rows = tile.iota : tensor<128xindex>
  %rows2 = tile.broadcast %rows dims [1]
      : tensor<128xindex> -> tensor<128x64xindex>
  %below = arith.cmpi ule, %cols2, %rows2 : tensor<128x64xindex>
  %keep = arith.andi %in, %below : tensor<128x64xi1>
  %s_t = tile.splat %s : f32 -> tensor<128x64xf32>
  %two = arith.constant dense<2.0> : tensor<128x64xf32>
  %s2 = arith.mulf %s_t, %two : tensor<128x64xf32>
  %y = tile.select %keep, %x, %s2 : tensor<128x64xi1>, tensor<128x64xf32>
  tile.store %y -> %O[%c0, %c0] : tensor<128x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// On gfx942 each thread holds one row of the MMA result: the row's maximum
// broadcast along the row is a splat of the reduced scalar. On sm_80 a
// thread holds two rows, so the broadcast picks registers.
// CHECK-LABEL: gpu.func @rowmax
// CHECK: %[[MAX:.*]] = arith.maximumf %{{.*}}, %shuffleResult{{.*}} : f32
// CHECK-NEXT: %[[ROW:.*]] = vector.broadcast %[[MAX]] : f32 to vector<32xf32>
// CHECK-NEXT: arith.subf %{{.*}}, %[[ROW]] : vector<32xf32>
// NV-LABEL: gpu.func @rowmax
// NV-NOT: vector.broadcast %{{.*}} : f32 to vector<32xf32>
// NV: arith.subf %{{.*}}, %{{.*}} : vector<32xf32>
tile.kernel @rowmax(%Q: !tile.view<?x?xbf16>, %K: !tile.view<?x?xbf16>,
                    %O: !tile.view<?x?xf32>) threads(256) {
  %c0 = arith.constant 0 : index
  %q = tile.load %Q[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %k = tile.load %K[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %s = tile.mma %q, %k, %zero transpose_b
      : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  %m = tile.reduce max %s dim 1 : tensor<128x64xf32> -> tensor<128xf32>
  %mb = tile.broadcast %m dims [1] : tensor<128xf32> -> tensor<128x64xf32>
  %d = arith.subf %s, %mb : tensor<128x64xf32>
  tile.store %d -> %O[%c0, %c0] : tensor<128x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
