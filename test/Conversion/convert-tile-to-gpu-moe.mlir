// The MoE expert block on sm_80. Tag ops and the ghost code that only
// feeds them are gone before layouts are chosen. A gather's row indices
// take the slice of the gathered tile's layout (each thread holds the index
// of every row it reads), so each run of registers' row is an element of
// the thread's own index vector: cast to index, checked to be inside the
// view (negative and past-the-end sentinels read as zero) and loaded with
// one vector load per run of two columns where the view's rows are
// aligned, element by element otherwise. The
// combine's scatter adds each register with an atomic add, under the same
// checks. The block's expert is a tensor.extract of a one-element tile
// that every thread holds.
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// LAYOUT-NOT: tag.
// LAYOUT-LABEL: tile.kernel @moe_gate_up_swiglu
// LAYOUT: %[[IDS:.*]] = tile.load %{{.*}} -> tensor<64xi32, #tile.linear<register = {{\[}}[8], [16]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = {{\[}}[0], [32]]>>
// LAYOUT: %[[TOK:.*]] = arith.divsi %[[IDS]], %{{.*}} : tensor<64xi32, #tile.linear<register = {{\[}}[8], [16]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = {{\[}}[0], [32]]>>
// LAYOUT: tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi32, #tile.linear<register = [], lane = {{\[}}[0], [0], [0], [0], [0]], warp = {{\[}}[0], [0]]>>
// LAYOUT: tile.gather %{{.*}} rows(%[[TOK]]) : {{.*}} -> tensor<64x64xbf16, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [16, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 0], [32, 0]]>>
// LAYOUT-LABEL: tile.kernel @moe_down_combine
// LAYOUT: tile.atomic_add %{{.*}} rows(%{{.*}} : tensor<64xi32, #tile.linear<register = {{\[}}[8], [16]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = {{\[}}[0], [32]]>>) : tensor<64x64xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 32], [32, 0]]>>

// CHECK-LABEL: gpu.func @moe_gate_up_swiglu
// CHECK-SAME: (%[[X:[^:]*]]: memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: memref.load %{{.*}}[%block_id_x] : memref<?xi32, strided<[1], offset: ?>>
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: scf.for
// The tile's column offset (the loop's k) must be a multiple of the run.
// CHECK: %[[REM:.*]] = arith.remsi %{{.*}}, %c2 : index
// CHECK: arith.cmpi eq, %[[REM]], %c0 : index
// CHECK: %[[ROW32:.*]] = vector.extract %{{.*}}[{{[0-9]+}}] : i32 from vector<4xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ROW32]] : i32 to index
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
// CHECK: %[[INROWS:.*]] = arith.select %[[BELOW]], %{{.*}}, %c0 : index
// CHECK: %[[FROM0:.*]] = arith.cmpi sge, %[[ROW]], %c0 : index
// CHECK: %[[COUNT:.*]] = arith.select %[[FROM0]], %[[INROWS]], %c0 : index
// CHECK: arith.cmpi eq, %[[COUNT]], %c2 : index
// CHECK: scf.if %{{.*}} -> (vector<2xbf16>) {
// CHECK-NEXT: vector.load %[[X]][%[[ROW]], %{{.*}}] {alignment = 4 : i64} : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<2xbf16>
// CHECK: } else {
// CHECK: scf.if %{{.*}} -> (bf16) {
// CHECK: memref.load %[[X]][%[[ROW]], %{{.*}}] : memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: nvvm.mma.sync

// CHECK-LABEL: gpu.func @moe_down_combine
// CHECK-SAME: %[[OUT:[^:]*]]: memref<?x?xf32, strided<[?, 1], offset: ?>>, %[[TW:[^:]*]]: memref<?xf32, strided<[1], offset: ?>>
// CHECK: nvvm.mma.sync
// CHECK: memref.load %[[TW]]
// CHECK: scf.if %{{[0-9]+}} {
// CHECK-NEXT: vector.extract
// CHECK-NEXT: memref.atomic_rmw addf %{{.*}}, %[[OUT]][%{{.*}}, %{{.*}}] : (f32, memref<?x?xf32, strided<[?, 1], offset: ?>>) -> f32
// CHECK-NOT: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.return
