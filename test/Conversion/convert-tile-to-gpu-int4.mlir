// The int4 weight-only GEMM on sm_80. The nibble-pair view is read as the
// byte array it is (the pair dimension dropped, consecutive pairs one byte
// apart), copied 16 bytes at a time with cp.async; each thread takes its
// codes' nibbles out of their bytes (shift left, arithmetic shift right:
// sign-extended), converts them, scales them register by register and
// feeds the bf16 weights to mma.sync.
// RUN: tessera-opt %kernels/gemm/gemm_w4a16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_w4a16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/gemm/gemm_w4a16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --tile-layout-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT

// CHECK: gpu.func @gemm_w4a16(%{{.*}}: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %[[W:.*]]: memref<?x?x?xi8, strided<[?, ?, 1], offset: ?>>
// CHECK: memref.reinterpret_cast %[[W]] to offset: [%{{.*}}], sizes: [%{{.*}}, %{{.*}}], strides: [%{{.*}}, 1] : memref<?x?x?xi8, strided<[?, ?, 1], offset: ?>> to memref<?x?xi8, strided<[?, 1], offset: ?>>
// CHECK: memref.view {{.*}} to memref<2x128x64xi8, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy {{.*}}, 16, {{.*}} : memref<?x?xi8, strided<[?, 1], offset: ?>> to memref<2x128x64xi8, #gpu.address_space<workgroup>>
// CHECK: scf.for
// CHECK: %[[BYTE:.*]] = memref.load {{.*}} : memref<2x128x64xi8, #gpu.address_space<workgroup>>
// CHECK: %[[UP:.*]] = arith.shli %[[BYTE]], %{{.*}} : i8
// CHECK: arith.shrsi %[[UP]], %{{.*}} : i8
// CHECK: %[[CODES:.*]] = arith.sitofp %{{.*}} : vector<128xi8> to vector<128xf32>
// CHECK: %[[SCALES:.*]] = arith.extf %{{.*}} : vector<128xf16> to vector<128xf32>
// CHECK: %[[REAL:.*]] = arith.mulf %[[CODES]], %[[SCALES]] : vector<128xf32>
// CHECK: arith.truncf %[[REAL]] : vector<128xf32> to vector<128xbf16>
// CHECK: nvvm.mma.sync

// The packed codes take the layout of the unpacked ones with n split into
// (byte, nibble): lane bit 2 picks the nibble. The scales take the codes'
// layout divided by the group (128 rows of k): every k basis is a
// broadcast, register r holds the scale of code register r.
// LAYOUT: tile.load {{.*}} -> tensor<128x64x2xi4, #tile.linear<register = {{\[}}[1, 0, 0], [8, 0, 0], [0, 4, 0], [16, 0, 0], [32, 0, 0], [64, 0, 0], [0, 8, 0]], lane = {{\[}}[2, 0, 0], [4, 0, 0], [0, 0, 1], [0, 1, 0], [0, 2, 0]], warp = {{\[}}[0, 16, 0], [0, 32, 0], [0, 0, 0]]>>
// LAYOUT: tile.unpack {{.*}} -> tensor<128x128xi4, #tile.linear<register = {{\[}}[1, 0], [8, 0], [0, 8], [16, 0], [32, 0], [64, 0], [0, 16]], lane = {{\[}}[2, 0], [4, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 32], [0, 64], [0, 0]]>>
// LAYOUT: tile.dequant {{.*}}, tensor<1x128xf16, #tile.linear<register = {{\[}}[0, 0], [0, 0], [0, 8], [0, 0], [0, 0], [0, 0], [0, 16]], lane = {{\[}}[0, 0], [0, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 32], [0, 64], [0, 0]]>>

// The nibble buffer is swizzled as the tile of 64-byte rows it is: copies
// and byte reads are conflict-free.
// REPORT: remark: shared %{{.*}}: swizzle vec 16, per_phase 2, max_phase 4; written by 16-byte copies, bank-conflict degree 1; read by %{{.*}} element by element (int4 codes from their bytes), bank-conflict degree 1
