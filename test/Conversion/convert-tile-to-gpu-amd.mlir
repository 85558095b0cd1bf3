// The bf16 GEMM and attention on gfx942 (wave64). Copies into LDS are
// 16-byte vector loads and stores (no cp.async; commit groups and waits
// vanish), and the pipeline keeps two stages: three would not fit 64 KiB of
// LDS. Each 16-register accumulator block takes one amdgpu.mfma 32x32x8 per
// K step of 8. Attention's accumulators are laid out transposed (lanes along
// rows) so that its row reductions stay within a wave and P is the next
// MMA's A operand without a conversion.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline --tile-assign-layouts --convert-tile-to-gpu \
// RUN:   --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline --tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline --tile-assign-layouts --tile-layout-report -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir \
// RUN:   --tile-set-target=chip=gfx942 --tile-pipeline --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=ATTN

// CHECK-LABEL: gpu.func @gemm_bf16
// CHECK-NOT: nvgpu.
// CHECK-NOT: nvvm.
// CHECK: memref.view {{.*}} to memref<2x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: %[[CHUNK:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<8xbf16>
// CHECK: vector.store %[[CHUNK]], %{{.*}} {alignment = 16 : i64} : memref<2x128x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: scf.for
// CHECK: gpu.barrier
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK-NOT: nvvm.

// The MFMA atoms tiled over a 2x2 grid of waves, each 64x64 of the
// accumulator (two 32x32 blocks each way).
// LAYOUT: tile.mma {{.*}} -> tensor<128x128xf32, #tile.linear<register = {{\[}}[1, 0], [2, 0], [8, 0], [16, 0], [0, 32], [32, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]], warp = {{\[}}[0, 64], [64, 0]]>>

// ATTN: tile.mma {{.*}} transpose_b : {{.*}} -> tensor<128x64xf32, #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], warp = {{\[}}[32, 0], [64, 0]]>>
// ATTN: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16, #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], warp = {{\[}}[32, 0], [64, 0]]>>

// A's four K elements per lane are one 8-byte LDS load; B's are a column
// (element by element). The report claims no bank-conflict degree on AMD.
// REPORT: remark: shared %{{.*}}: swizzle vec 8, per_phase 1, max_phase 8; written by 16-byte stores; read by %{{.*}} with 8-byte vector loads; LDS bank conflicts are not modelled for gfx942 yet
// REPORT: remark: shared %{{.*}}: swizzle vec 8, per_phase 1, max_phase 8; written by 16-byte stores; read by %{{.*}} element by element; LDS bank conflicts are not modelled for gfx942 yet
