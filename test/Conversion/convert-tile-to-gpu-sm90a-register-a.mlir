// wgmma with A in registers on sm_90a: FlashAttention's P.V (P is the
// Q.K^T accumulator after the online softmax) and the MoE kernels' MMAs
// (gathered tokens, rows of H). B is copied by TMA into a 128-byte swizzled
// buffer; A takes the accumulator's layout over [M, K] (mma.m16n8k16's A
// fragment per warp and K step) and goes to the instruction as four 32-bit
// registers per K step of 16.
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --tile-layout-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-set-target=chip=sm_90a \
// RUN:   --tile-assign-layouts | FileCheck %s --check-prefix=MOE

// Q, K and V are TMA buffers (K and V two-slot rings); P.V is a wgmma whose
// A (P) has the accumulator's layout, over 8 warps (2 warpgroups).
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<128x64xbf16>
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16, stages = 2>
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16, stages = 2>
// LAYOUT: tile.mma {{.*}} kind wgmma transpose_b
// LAYOUT: tile.mma %{{.*}}, %{{.*}}, %{{.*}} kind wgmma : tensor<128x64xbf16, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>, tensor<64x64xbf16, {{.*}}>> -> tensor<128x64xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>

// REPORT: shared %{{.*}}: 128-byte swizzle {{.*}} read by %{{.*}} with wgmma through a N-major matrix descriptor

// Q.K^T: both operands by descriptor; P.V: A's four registers (pairs of
// P's bf16 values), descriptor B, scale-d and scale-a/b 1, trans-b 1 (V is
// N-major).
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// The accumulators pass through the wait (tied inline PTX), so that
// nothing reads them before it.
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "// wait for the accumulators $0 {{.*}}\0Awgmma.wait_group.sync.aligned 0;"
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[PAIR:.*]] = vector.extract_strided_slice %[[P:.*]] {offsets = [0], sizes = [2], strides = [1]} : vector<32xbf16> to vector<2xbf16>
// CHECK-NEXT: %[[BITS:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT: %[[A0:.*]] = vector.extract %[[BITS]][0] : i32 from vector<1xi32>
// CHECK: vector.extract_strided_slice %[[P]] {offsets = [6], sizes = [2], strides = [1]}
// CHECK: %[[A3:.*]] = vector.extract %{{.*}}[0] : i32 from vector<1xi32>
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, $70, $71, $72;\0A}\0A", "=f,{{.*}},=f,0,1,{{.*}},31,r,r,r,r,l,n,n,n,n" {{.*}}, %[[A0]], {{.*}}, %[[A3]], %{{.*}}, %c1_i32, %c1_i32, %c1_i32, %c1_i32 :
// CHECK: vector.extract_strided_slice %[[P]] {offsets = [8], sizes = [2], strides = [1]}
// CHECK: llvm.inline_asm
// CHECK: llvm.inline_asm
// CHECK: llvm.inline_asm
// CHECK-NOT: llvm.inline_asm
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "// wait for the accumulators $0 {{.*}}\0Awgmma.wait_group.sync.aligned 0;"

// MoE: both kernels' MMAs are wgmma with the weights (TMA, 3-D, K-major)
// as B and the gathered tokens / rows of H in registers.
// MOE-LABEL: tile.kernel @moe_gate_up_swiglu
// MOE: tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
// MOE: tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
// MOE: tile.mma {{.*}} kind wgmma transpose_b
// MOE: tile.mma {{.*}} kind wgmma transpose_b
// MOE-LABEL: tile.kernel @moe_down_combine
// MOE: tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
// MOE: tile.mma {{.*}} kind wgmma transpose_b
