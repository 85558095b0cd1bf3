// int8 weights with int8 activations (W8A8) on the CDNA chips. The
// activation tile takes the int8 MFMA's A fragments: on gfx942
// (v_mfma_i32_32x32x16_i8) eight consecutive k per lane, the next eight in
// lane + 32; each thread reduces |x| over its registers of a row as
// sign-less bits, then with the lane 32 away (one shuffle per row it
// holds), and the codes are rounded half to even and saturated as on
// NVIDIA. The accumulator is computed transposed (B^T A^T: the weights go
// to the instruction's A operand), so each lane holds the rows of the i32
// product it holds of A, and the row scales apply to it in place.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=gfx942 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX942
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=gfx942 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// gfx90a's int8 MFMA is 32x32x8i8: four k per lane, twice the MFMAs.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=gfx90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefixes=CHECK,GFX90A

// CHECK-LABEL: gpu.func @gemm_bf16_int8_pc_a8k64
// CHECK: scf.for
// CHECK: arith.maxui %{{.*}} : i16
// CHECK: gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// CHECK-NEXT: arith.maximumf
// CHECK-NEXT: arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK-NOT: gpu.shuffle
// CHECK: arith.fptosi %{{.*}} : vector<64xf32> to vector<64xi8>
// GFX942-COUNT-16: amdgpu.mfma 32x32x16 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<8xi8>, vector<8xi8>, vector<16xi32>
// GFX90A-COUNT-32: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<4xi8>, vector<4xi8>, vector<16xi32>
// CHECK-NOT: amdgpu.mfma
// CHECK: arith.sitofp %{{.*}} : vector<64xi32> to vector<64xf32>

// Waves 2 x 2. A (and its codes): k bits 1, 2, 4 in registers, 8 in lane
// bit 5, then k 16 and 32 and the row block 32; rows in lanes 0-31. B:
// the same transposed. The product: the 32x32 D blocks transposed (rows
// in lanes 0-31, columns 1, 2, 8, 16 in registers, 4 in lane bit 5). The
// scales: A divided by the row groups.
// LAYOUT: tile.load {{.*}} -> tensor<128x64xbf16, #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 4], [0, 16], [0, 32], [32, 0]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 8]], warp = {{\[}}[0, 0], [64, 0]]>>
// LAYOUT: tile.load {{.*}} -> tensor<64x128xi8, #tile.linear<register = {{\[}}[1, 0], [2, 0], [4, 0], [16, 0], [32, 0], [0, 32]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [8, 0]], warp = {{\[}}[0, 64], [0, 0]]>>
// LAYOUT: tile.quant {{.*}} -> tensor<128x64xi8, {{.*}}>, tensor<128x1xf32, #tile.linear<register = {{\[}}[0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [32, 0]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 0]], warp = {{\[}}[0, 0], [64, 0]]>>
// LAYOUT: tile.mma {{.*}} -> tensor<128x128xi32, #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 8], [0, 16], [0, 32], [32, 0]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], warp = {{\[}}[0, 64], [64, 0]]>>
