// The MoE expert block on sm_80. Tag ops and the ghost code that only
// feeds them are gone before layouts are chosen. The gate/up kernel gathers
// its token rows into shared memory with a gathering tile.copy: the row
// indices take the copy's layout without its columns (each thread holds the
// index of every row whose 16-byte chunks it moves), and each chunk's row
// is an element of the thread's index vector, cast to index, a negative
// index sent past the view's last row (both sentinels read as zeros), then
// one cp.async of the chunk (zero-filled past the view). The combine's
// scatter adds each register with an atomic add, under the same checks. The
// block's expert is a tensor.extract of a one-element tile that every
// thread holds.
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// LAYOUT-NOT: tag.
// LAYOUT-LABEL: tile.kernel @moe_gate_up_swiglu
// LAYOUT: %[[IDS:.*]] = tile.load %{{.*}} -> tensor<64xi32, #tile.linear<register = {{\[}}[16], [32]], lane = {{\[}}[0], [0], [0], [1], [2]], warp = {{\[}}[4], [8]]>>
// LAYOUT: %[[TOK:.*]] = arith.divsi %[[IDS]], %{{.*}} : tensor<64xi32, #tile.linear<register = {{\[}}[16], [32]], lane = {{\[}}[0], [0], [0], [1], [2]], warp = {{\[}}[4], [8]]>>
// LAYOUT: tensor.extract %{{.*}}[%{{.*}}] : tensor<1xi32, #tile.linear<register = [], lane = {{\[}}[0], [0], [0], [0], [0]], warp = {{\[}}[0], [0]]>>
// LAYOUT: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] rows(%[[TOK]] : {{.*}}) -> %{{.*}} : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
// LAYOUT-LABEL: tile.kernel @moe_down_combine
// LAYOUT: tile.atomic_add %{{.*}} rows(%{{.*}} : tensor<64xi32, #tile.linear<register = {{\[}}[8], [16]], lane = {{\[}}[0], [0], [1], [2], [4]], warp = {{\[}}[0], [32]]>>) : tensor<64x64xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [16, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 32], [32, 0]]>>

// CHECK-LABEL: gpu.func @moe_gate_up_swiglu
// CHECK-SAME: (%[[X:[^:]*]]: memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: memref.load %{{.*}}[%block_id_x] : memref<?xi32, strided<[1], offset: ?>>
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: scf.for
// CHECK: %[[XROWS:.*]] = memref.dim %[[X]], %c0
// CHECK: %[[ROW32:.*]] = vector.extract %{{.*}}[0] : i32 from vector<4xi32>
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ROW32]] : i32 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[ROW]], %c0 : index
// CHECK: %[[AT:.*]] = arith.select %[[NEG]], %[[XROWS]], %[[ROW]] : index
// CHECK: %[[INSIDE:.*]] = arith.cmpi slt, %[[AT]], %[[XROWS]] : index
// CHECK: %[[COUNT:.*]] = arith.select %[[INSIDE]], %{{.*}}, %c0 : index
// CHECK: nvgpu.device_async_copy %[[X]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}], 8, %[[COUNT]] {bypassL1}
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

// A tile.gather into registers: each register's row from the thread's own
// index register, checked to be inside the view (negative and past-the-end
// indices read as zero), one 16-byte vector load per run of eight columns
// where the view's rows are aligned, element by element otherwise.
// RUN: tessera-opt %s --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=GATHER
// GATHER-LABEL: gpu.func @gather_rows
// GATHER-SAME: (%[[X:[^:]*]]: memref<?x?xbf16, strided<[?, 1], offset: ?>>
// GATHER: %[[ROW:.*]] = arith.index_cast %{{.*}} : i32 to index
// GATHER: %[[BELOW:.*]] = arith.cmpi slt, %[[ROW]], %{{.*}} : index
// GATHER: %[[INROWS:.*]] = arith.select %[[BELOW]], %{{.*}}, %c0 : index
// GATHER: %[[FROM0:.*]] = arith.cmpi sge, %[[ROW]], %c0 : index
// GATHER: %[[COUNT:.*]] = arith.select %[[FROM0]], %[[INROWS]], %c0 : index
// GATHER: arith.cmpi eq, %[[COUNT]], %c8 : index
// GATHER: scf.if %{{.*}} -> (vector<8xbf16>) {
// GATHER-NEXT: vector.load %[[X]][%[[ROW]], %{{.*}}] {alignment = 16 : i64} : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<8xbf16>
// GATHER: } else {
// GATHER: scf.if %{{.*}} -> (bf16) {
// GATHER: memref.load %[[X]][%[[ROW]], %{{.*}}] : memref<?x?xbf16, strided<[?, 1], offset: ?>>
tile.kernel @gather_rows(%X: !tile.view<?x?xbf16>, %ids: !tile.view<?xi32>,
                         %Y: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %rows = tile.load %ids[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %x = tile.gather %X[%c0, %c0] rows(%rows)
      : !tile.view<?x?xbf16>, tensor<64xi32> -> tensor<64x64xbf16>
  tile.store %x -> %Y[%c0, %c0] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}
