// int8 weights with int8 activations (W8A8) on sm_80. The activation tile
// is quantized in registers per token and K tile: it takes the layout of
// mma.sync m16n8k32's A fragments (four consecutive k per register word),
// each thread reduces |x| over its registers of a row as sign-less bits,
// then over the lanes of its quad (shuffle xor 1 and 2); codes are
// x / scale saturated to [-127, 127] and rounded half to even by adding and
// subtracting 1.5 * 2^23. The int8 weights are read byte by byte into the
// k32 B fragments, and each 16x8 block takes two m16n8k32 s8 MMAs with
// wrapping i32 sums.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// The same on sm_90a: int8 MMAs are mma.sync there too.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// The MoE down projection with int8 activations: its per-channel weight
// scales ([N, 1], the weights stored [N, K]) are reduced over their unit
// dimension and broadcast over the rows of the i32 product; the reduction's
// input takes the layout its result needs, the unit dimension put back.
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   "--tile-quantize=kernel=moe_down_combine weights=int8 activations=int8" \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=MOE
// A group that spans warps (one scale for the whole tile) combines the
// warps' largest |x| through shared memory:
// RUN: tessera-opt %s --tile-assign-layouts --convert-tile-to-gpu \
// RUN:   | FileCheck %s --check-prefix=SPAN

// CHECK-LABEL: gpu.func @gemm_bf16_int8_pc_a8k64
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<{{.*}}xi8, #gpu.address_space<workgroup>>
// CHECK: arith.maxui %{{.*}} : i16
// CHECK: %[[MAX:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: gpu.shuffle  xor %[[MAX]], %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: arith.divf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.addf %{{.*}}, %cst{{.*}} : vector<64xf32>
// CHECK: arith.fptosi %{{.*}} : vector<64xf32> to vector<64xi8>
// CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK: arith.sitofp %{{.*}} : vector<64xi32> to vector<64xf32>

// Warps 4 x 2 (fewer A rows per warp: the bf16 activations are the wider
// operand). A and its codes: the m16n8k32 atom (k bits 1, 2 in registers,
// 4, 8 in lanes, 16 in a register), then k 32 and the m16 step; B: the
// 32x8 atom (k 1, 2 and 16 in registers, 4 and 8 in lanes), an n8 step,
// then k 32. The scales take the layout of the broadcast that applies them
// to the accumulator (its layout with the columns grouped): each thread
// holds the same rows there as in A, in other registers, and the
// quantization writes them by coordinate.
// LAYOUT: tile.load {{.*}} -> tensor<128x64xbf16, #tile.linear<register = {{\[}}[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [16, 0]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 0], [32, 0], [64, 0]]>>
// LAYOUT: tile.load {{.*}} -> tensor<64x128xi8, #tile.linear<register = {{\[}}[1, 0], [2, 0], [16, 0], [0, 8], [32, 0], [0, 16], [0, 32]], lane = {{\[}}[4, 0], [8, 0], [0, 1], [0, 2], [0, 4]], warp = {{\[}}[0, 64], [0, 0], [0, 0]]>>
// LAYOUT: tile.quant {{.*}} -> tensor<128x64xi8, #tile.linear<register = {{\[}}[0, 1], [0, 2], [8, 0], [0, 16], [0, 32], [16, 0]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 0], [32, 0], [64, 0]]>>, tensor<128x1xf32, #tile.linear<register = {{\[}}[0, 0], [8, 0], [0, 0], [0, 0], [0, 0], [16, 0]], lane = {{\[}}[0, 0], [0, 0], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[0, 0], [32, 0], [64, 0]]>>

// MOE: tile.reduce sum %{{.*}} dim 1 : tensor<64x1xf32, #tile.linear<register = {{\[}}[1, 0], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[2, 0], [4, 0], [0, 0], [0, 0], [0, 0]], warp = {{\[}}[0, 0], [0, 0]]>> -> tensor<64xf32, #tile.linear<register = {{\[}}[1], [8], [16], [32]], lane = {{\[}}[2], [4], [0], [0], [0]], warp = {{\[}}[0], [0]]>>

module attributes {tile.target = "sm_80"} {
  tile.kernel @whole_tile(%X: !tile.view<?x?xbf16>, %S: !tile.view<?x?xf32>) threads(64) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<32x32xbf16>
    // SPAN-LABEL: gpu.func @whole_tile
    // SPAN: gpu.shuffle  xor
    // SPAN: memref.store %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
    // SPAN-NEXT: gpu.barrier
    // SPAN-COUNT-2: memref.load %{{.*}} : memref<64xf32, #gpu.address_space<workgroup>>
    // SPAN: gpu.barrier
    %q, %s = tile.quant %x group [32, 32] : tensor<32x32xbf16> -> tensor<32x32xi8>, tensor<1x1xf32>
    tile.store %s -> %S[%c0, %c0] : tensor<1x1xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}
