// Layouts of the pipelined bf16 GEMM on sm_80 (8 warps as a 2 x 4 grid of
// 64x32 warp tiles): the mma.sync fragments tiled over registers and warps,
// A broadcast over the grid's columns, B over its rows; 128-byte swizzles
// make the 16-byte copies and the ldmatrix reads conflict-free.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --tile-layout-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// CHECK: module attributes {tile.target = "sm_80"}
// CHECK: tile.alloc_shared {tile.swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : !tile.shared<128x64xbf16, stages = 3>
// CHECK: tile.alloc_shared {tile.swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>} : !tile.shared<64x128xbf16, stages = 3>
// CHECK: arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 32], [0, 64], [64, 0]]>>
// CHECK: tile.load {{.*}} -> tensor<128x64xbf16, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [16, 0], [32, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 0], [0, 0], [64, 0]]>>
// CHECK: tile.load {{.*}} -> tensor<64x128xbf16, #tile.linear<register = {{\[}}[1, 0], [8, 0], [0, 8], [16, 0], [32, 0], [0, 16]], lane = {{\[}}[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 32], [0, 64], [0, 0]]>>
// CHECK: arith.truncf {{.*}} to tensor<128x128xbf16, #tile.linear<register = {{\[}}[0, 1], [8, 0]

// REPORT: remark: shared %{{.*}}: swizzle vec 8, per_phase 1, max_phase 8; written by 16-byte copies, bank-conflict degree 1; read by %{{.*}} with ldmatrix.x4, 16 bytes per lane, bank-conflict degree 1
// REPORT: remark: shared %{{.*}}: swizzle vec 8, per_phase 1, max_phase 8; written by 16-byte copies, bank-conflict degree 1; read by %{{.*}} with ldmatrix.x4.trans, 16 bytes per lane, bank-conflict degree 1
// REPORT: remark: layout of %cst: 64 registers per thread, covers its tile exactly; [128x128] register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [16, 0], [32, 0]] lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warp = {{\[}}[0, 32], [0, 64], [64, 0]]
