// fp8 (e4m3) wgmma on sm_90a: the MoE kernels quantized with fp8 weights
// and fp8 activations. The weights' codes are copied by TMA into 64x64
// byte buffers: rows of 64 bytes, so the buffers take the 64-byte swizzle
// (a 128-byte swizzle needs 128-byte rows). The activations' codes are A in
// registers: per K step of 32, four 32-bit registers of four codes each
// (wgmma's 8-bit A fragment), and the instruction is m64n64k32 e4m3 x e4m3
// with trans-b 0 (fp8 wgmma reads B K-major only, so the weights are
// stored [N, K]: transpose_b).
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   "--tile-quantize=kernel=moe_gate_up_swiglu weights=fp8 activations=fp8" \
// RUN:   "--tile-quantize=kernel=moe_down_combine weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   "--tile-quantize=kernel=moe_gate_up_swiglu weights=fp8 activations=fp8" \
// RUN:   "--tile-quantize=kernel=moe_down_combine weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --tile-layout-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir \
// RUN:   "--tile-quantize=kernel=moe_gate_up_swiglu weights=fp8 activations=fp8" \
// RUN:   "--tile-quantize=kernel=moe_down_combine weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// The A operand (the codes) has wgmma's 8-bit A layout: four consecutive
// K per register group, lanes 4 apart in K, rows of 8 over the lane's
// upper bits, 16 rows per warp.
// LAYOUT-LABEL: tile.kernel @moe_gate_up_swiglu_fp8_b128_af8k64
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<64x64xf8E4M3FN>
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<64x64xf8E4M3FN>
// LAYOUT: tile.mma %codes, %{{.*}}, %{{.*}} kind wgmma transpose_b : tensor<64x64xf8E4M3FN, #tile.linear<register = {{\[}}[0, 1], [0, 2], [8, 0], [0, 16], [0, 32]], lane = {{\[}}[0, 4], [0, 8], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0]]>>
// LAYOUT: tile.mma %codes, %{{.*}}, %{{.*}} kind wgmma transpose_b
// LAYOUT-LABEL: tile.kernel @moe_down_combine_fp8_b128_af8k64
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<64x64xf8E4M3FN>
// LAYOUT: tile.mma %codes, %{{.*}}, %{{.*}} kind wgmma transpose_b

// REPORT: shared %{{.*}}: 64-byte swizzle in 1 panel(s) of 64-byte rows, 1024-byte aligned; written by bulk tensor copies (TMA) onto mbarriers; read by %{{.*}} with wgmma through a K-major matrix descriptor
// REPORT: shared %{{.*}}: 64-byte swizzle in 1 panel(s) of 64-byte rows
// REPORT: shared %{{.*}}: 64-byte swizzle in 1 panel(s) of 64-byte rows

// The B descriptor (the buffer's address 9216 bytes past the base, 8 KiB
// further than without the buffer of gathered token rows, then 32 bytes on
// per K step): layout type 2 (64-byte swizzle) in bits 62-63, stride
// byte offset 512 (8 rows of 64 bytes; 32 in 16-byte units, bit 37), so
// 0x8000002000000000 with the start address in the low bits.
// CHECK-LABEL: gpu.func @moe_gate_up_swiglu_fp8_b128_af8k64
// CHECK-NOT: mma.sync
// CHECK: %[[BASE:.*]] = arith.index_cast %intptr : index to i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: arith.andi %{{.*}}, %c262143_i64 : i64
// CHECK-NEXT: %[[ADDR:.*]] = arith.shrui %{{.*}}, %c4_i64 : i64
// CHECK-NEXT: %[[DESC:.*]] = arith.ori %[[ADDR]], %c-9223371899415756800_i64 : i64
// CHECK-NEXT: %[[QUAD:.*]] = vector.extract_strided_slice %[[CODES:.*]] {offsets = [0], sizes = [4], strides = [1]} : vector<32xi8> to vector<4xi8>
// CHECK-NEXT: %[[BITS:.*]] = vector.bitcast %[[QUAD]] : vector<4xi8> to vector<1xi32>
// CHECK-NEXT: %[[A0:.*]] = vector.extract %[[BITS]][0] : i32 from vector<1xi32>
// CHECK: vector.extract_strided_slice %[[CODES]] {offsets = [12], sizes = [4], strides = [1]}
// CHECK: %[[A3:.*]] = vector.extract %{{.*}}[0] : i32 from vector<1xi32>
// CHECK-NEXT: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, $70, $71;\0A}\0A", "=f,{{.*}},=f,0,1,{{.*}},31,r,r,r,r,l,n,n,n" {{.*}}, %[[A0]], {{.*}}, %[[A3]], %[[DESC]], %c1_i32, %c1_i32, %c1_i32 :
// The second K step of 32 takes the codes' next 16 registers and a
// descriptor 32 bytes further on.
// CHECK-NEXT: arith.addi %[[BASE]], %c9248_i64 : i64
// CHECK: vector.extract_strided_slice %[[CODES]] {offsets = [16], sizes = [4], strides = [1]}
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK: "// wait for the accumulators $0 {{.*}}\0Awgmma.wait_group.sync.aligned 0;"
// CHECK-LABEL: gpu.func @moe_down_combine_fp8_b128_af8k64
// CHECK-NOT: mma.sync
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK: wgmma.mma_async.sync.aligned.m64n64k32.f32.e4m3.e4m3
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
