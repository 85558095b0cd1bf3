// tile-quantize on the shipped GEMM: each weight format, and tag-check
// proves the emitted group invariants after it (and after pipelining).
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int4 group=64 zero-points" | FileCheck %s --check-prefix=INT4
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8" | FileCheck %s --check-prefix=INT8
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int4 group=32" --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int4 group=64 zero-points" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 zero-points" --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %s --tile-quantize --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %s --tile-quantize | FileCheck %s --check-prefix=WIDE
// RUN: tessera-opt %s --tile-quantize=activations=f16 | FileCheck %s --check-prefix=WIDE
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 zero-points placement=per-group" | FileCheck %s --check-prefix=PERGROUP
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 zero-points placement=per-group" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %s --tile-quantize=weights=int8 | FileCheck %s --check-prefix=AUTO
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8" | FileCheck %s --check-prefix=A8
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 activations=int8" | FileCheck %s --check-prefix=W4A8
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 activations=int8" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8 activation-scales=token" | FileCheck %s --check-prefix=TOKEN
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8 activation-scales=token" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=fp8 activation-scales=token" --tile-pipeline=scheduler=solver --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8" | FileCheck %s --check-prefix=FP8
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_gate_up_swiglu group=32 zero-points" | FileCheck %s --check-prefix=MOE
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_gate_up_swiglu group=32 zero-points" --tile-quantize="kernel=moe_down_combine group=64" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED-MOE
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_gate_up_swiglu weights=fp8" --tile-quantize="kernel=moe_down_combine weights=int8" --tile-pipeline=scheduler=solver --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED-MOE
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_down_combine weights=int8 activations=int8" | FileCheck %s --check-prefix=MOE-A8
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_gate_up_swiglu weights=int8 activations=int8" | FileCheck %s --check-prefix=MOE-GATE-A8
// RUN: tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_gate_up_swiglu weights=fp8 activations=fp8" --tile-quantize="kernel=moe_down_combine weights=int8 activations=int8" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED-MOE
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8" --tile-pipeline --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 placement=per-group" | FileCheck %s --check-prefix=FP8-PG
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 placement=per-group" --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=fp8" | FileCheck %s --check-prefix=FP8A
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=fp8" --tile-pipeline=scheduler=solver --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED

// Per-token activation scales: A arrives as int8 codes followed by one f32
// scale per token; each K tile asserts its rows' scales are its own
// tokens'. With per-channel weights neither scale changes along k: the MMA
// accumulates the int8 x int8 products in an i32 loop argument and the
// loop's result is scaled once after it, with the row and column alignment
// asserted there.
// TOKEN: tile.kernel @gemm_bf16_int8_pc_a8t(%arg0: !tile.view<?x?xi8>, %arg1: !tile.view<?xf32>, %arg2: !tile.view<?x?xi8>, %arg3: !tile.view<?x?xf16>, %arg4: !tile.view<?x?xbf16>)
// TOKEN: tag.bind %arg0 as "A" (m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xi8>
// TOKEN: tag.bind %arg1 as "A_scale" (m) = (d0) -> (d0) : !tile.view<?xf32>
// TOKEN: %[[SA:.*]] = tile.alloc_shared : !tile.shared<128x64xi8>
// TOKEN: %[[ZERO:.*]] = arith.constant dense<0> : tensor<128x128xi32>
// TOKEN: %[[ACC:.*]] = scf.for %{{.*}} iter_args(%[[ITER:.*]] = %[[ZERO]]) -> (tensor<128x128xi32>)
// TOKEN: tile.copy %arg0[%[[M:.*]], %{{.*}}] -> %[[SA]]
// TOKEN: %[[A:.*]] = tile.load %[[SA]] : !tile.shared<128x64xi8> -> tensor<128x64xi8>
// TOKEN: %[[TS:.*]] = tile.load %arg1[%[[M]]] : !tile.view<?xf32> -> tensor<128xf32>
// TOKEN: tag.assert_eq %[[A]][(d0, d1) -> (d0, d1)] (m), %[[TS]][(d0, d1) -> (d0)] (m) message "every row uses the scale of its own token"
// TOKEN: %[[P:.*]] = tile.mma %[[A]], %{{.*}}, %[[ITER]] : tensor<128x64xi8>, tensor<64x128xi8> -> tensor<128x128xi32>
// TOKEN-NOT: arith.mulf
// TOKEN: scf.yield %[[P]] : tensor<128x128xi32>
// TOKEN: %[[REAL:.*]] = arith.sitofp %[[ACC]] : tensor<128x128xi32> to tensor<128x128xf32>
// TOKEN: %[[ROWS:.*]] = tile.load %arg1[%[[M]]] : !tile.view<?xf32> -> tensor<128xf32>
// TOKEN: %[[COLS:.*]] = tile.load %arg3[%{{.*}}, %{{.*}}] : !tile.view<?x?xf16> -> tensor<1x128xf16>
// TOKEN: %[[RB:.*]] = tile.broadcast %[[ROWS]] dims [1] : tensor<128xf32> -> tensor<128x128xf32>
// TOKEN: %[[CB:.*]] = tile.broadcast %{{.*}} dims [0] : tensor<1x128xf32> -> tensor<128x128xf32>
// TOKEN: %[[R1:.*]] = arith.mulf %[[REAL]], %[[RB]]
// TOKEN: %[[R2:.*]] = arith.mulf %[[R1]], %[[CB]]
// TOKEN: tag.assert_eq %[[REAL]][(d0, d1) -> (d0, d1)] (m), %[[ROWS]][(d0, d1) -> (d0)] (m) message "every row of the result is scaled by its own token's scale"
// TOKEN: tag.assert_eq %[[REAL]][(d0, d1) -> (d0, d1)] (n), %[[CB]][(d0, d1) -> (d0, d1)] (n) message "every column of the product is scaled by its own column's scale"
// TOKEN: arith.truncf %[[R2]]
// TOKEN-NOT: tile.quant

// MoE expert weights are [expert, n, k] and read transposed: the codes pack
// along k, the scales keep the weight's layout ([expert, n, k groups]), the
// tile's scale tile is [64 n, 2 groups], and the assertions compare the
// expert too.
// MOE: tile.kernel @moe_gate_up_swiglu_int4_g32_zp(%arg0: !tile.view<?x?xbf16>, %arg1: !tile.view<?x?x?x2xi4>, %arg2: !tile.view<?x?x?xf16>, %arg3: !tile.view<?x?x?xf16>, %arg4: !tile.view<?x?x?x2xi4>, %arg5: !tile.view<?x?x?xf16>, %arg6: !tile.view<?x?x?xf16>,
// MOE: tag.bind %arg1 as "Wg" (e, n, d, g) = (d0, d1, d2, d3) -> (d0, d1, d2 * 2 + d3, (d2 * 2 + d3) floordiv 32) : !tile.view<?x?x?x2xi4>
// MOE: tag.bind %arg2 as "Wg_scale" (e, n, g) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?x?xf16>
// MOE: tile.copy %arg1[%[[E:.*]], %[[N:.*]], %{{.*}}, %{{.*}}] -> %{{.*}} : !tile.view<?x?x?x2xi4> -> !tile.shared<64x32x2xi4>
// MOE: %[[CODES:.*]] = tile.unpack %{{.*}} dim 1 order [0, 1] : tensor<64x32x2xi4> -> tensor<64x64xi4>
// MOE: %[[G:.*]] = arith.divui %[[K:.*]], %c32
// MOE: %[[S:.*]] = tile.load %arg2[%[[E]], %[[N]], %[[G]]] : !tile.view<?x?x?xf16> -> tensor<64x2xf16>
// MOE: tile.dequant %[[CODES]], %[[S]], %{{.*}} group [1, 32] : tensor<64x64xi4>, tensor<64x2xf16>, tensor<64x2xf16> -> tensor<64x64xbf16>
// MOE: tag.assert_eq %[[CODES]][(d0, d1)[s0, s1, s2] -> (d0, d1)] (e, n, d), %arg1[(d0, d1)[s0, s1, s2] -> (s0, d0 + s1, (d1 + s2) floordiv 2, (d1 + s2) mod 2)] (e, n, d) captures(%[[E]], %[[N]], %[[K]])
// MOE: tag.assert_eq %[[CODES]][(d0, d1) -> (d0, d1)] (e, n, g), %[[S]][(d0, d1) -> (d0, d1 floordiv 32)] (e, n, g)
// MoE with int8 activations: the transposed weight's column of per-channel
// scales [64 n, 1] becomes a row over the [64 m, 64 n] product.
// MOE-A8: tile.kernel @moe_down_combine_int8_pc_a8k64(
// MOE-A8: %[[S:.*]] = tile.load %arg2[%{{.*}}, %{{.*}}, %{{.*}}] : !tile.view<?x?x?xf16> -> tensor<64x1xf16>
// MOE-A8: tile.quant %{{.*}} group [1, 64] : tensor<64x64xbf16> -> tensor<64x64xi8>, tensor<64x1xf32>
// MOE-A8: tile.mma %{{.*}}, %{{.*}}, %{{.*}} transpose_b : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
// MOE-A8: %[[SF:.*]] = arith.extf %[[S]] : tensor<64x1xf16> to tensor<64x1xf32>
// MOE-A8: %[[ROW:.*]] = tile.reduce sum %[[SF]] dim 1 : tensor<64x1xf32> -> tensor<64xf32>
// MOE-A8: tile.broadcast %[[ROW]] dims [0] : tensor<64xf32> -> tensor<64x64xf32>
// The gate and up MMAs read one activation tile: one quantization, before
// the first of them, serves both.
// MOE-GATE-A8-LABEL: tile.kernel @moe_gate_up_swiglu_int8_pc_a8k64(
// MOE-GATE-A8: %[[CODES:.*]], %{{.*}} = tile.quant %{{.*}} group [1, 64] : tensor<64x64xbf16> -> tensor<64x64xi8>, tensor<64x1xf32>
// MOE-GATE-A8-NOT: tile.quant
// MOE-GATE-A8: tile.mma %[[CODES]], %{{.*}}, %{{.*}} transpose_b
// MOE-GATE-A8-NOT: tile.quant
// MOE-GATE-A8: tile.mma %[[CODES]], %{{.*}}, %{{.*}} transpose_b
// MOE-GATE-A8-NOT: tile.quant
// MOE-GATE-A8: tile.return
// PROVED-MOE-NOT: error
// PROVED-MOE: remark: tag-check: @moe_gate_up_swiglu_{{.*}} 0 failed
// PROVED-MOE: remark: tag-check: @moe_down_combine_{{.*}} 0 failed

// fp8 weights: e4m3 codes with one f32 scale per 128x128 block. The 64x128
// weight tile lies inside one block: one scale per K step, at the block of
// its k and n offsets; the tag gains the row and column block.
// FP8: tile.kernel @gemm_bf16_fp8_b128(%arg0: !tile.view<?x?xbf16>, %arg1: !tile.view<?x?xf8E4M3FN>, %arg2: !tile.view<?x?xf32>, %arg3: !tile.view<?x?xbf16>)
// FP8: tag.bind %arg1 as "B" (k, n, g, gn) = (d0, d1) -> (d0, d1, d0 floordiv 128, d1 floordiv 128) : !tile.view<?x?xf8E4M3FN>
// FP8: tag.bind %arg2 as "B_scale" (g, gn) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
// FP8: %[[SW:.*]] = tile.alloc_shared : !tile.shared<64x128xf8E4M3FN>
// FP8: tile.copy %arg1[%[[K:.*]], %[[N:.*]]] -> %[[SW]]
// FP8: %[[CODES:.*]] = tile.load %[[SW]] : !tile.shared<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// FP8: %[[GK:.*]] = arith.divui %[[K]], %c128
// FP8: %[[GN:.*]] = arith.divui %[[N]], %c128
// FP8: %[[S:.*]] = tile.load %arg2[%[[GK]], %[[GN]]] : !tile.view<?x?xf32> -> tensor<1x1xf32>
// FP8: %[[W:.*]] = tile.dequant %[[CODES]], %[[S]] group [128, 128] : tensor<64x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<64x128xbf16>
// FP8: tag.assert_eq %[[CODES]][(d0, d1) -> (d0, d1)] (g, gn), %[[S]][(d0, d1) -> (d0 floordiv 128, d1 floordiv 128)] (g, gn) message "every code uses the scale of its own block"
// FP8: tile.mma %{{.*}}, %[[W]], %{{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>

// Per group: the codes widen exactly to bf16, the MMA's product is scaled
// by the block's scale, repeated over the whole product.
// FP8-PG: %[[CODES:.*]] = tile.load %{{.*}} : !tile.shared<64x128xf8E4M3FN> -> tensor<64x128xf8E4M3FN>
// FP8-PG: %[[R:.*]] = arith.extf %[[CODES]] : tensor<64x128xf8E4M3FN> to tensor<64x128xf32>
// FP8-PG: %[[W:.*]] = arith.truncf %[[R]] : tensor<64x128xf32> to tensor<64x128xbf16>
// FP8-PG: %[[P:.*]] = tile.mma %{{.*}}, %[[W]], %{{.*}}
// FP8-PG: %[[SB:.*]] = tile.broadcast %{{.*}} dims [0, 1] : tensor<1x1xf32> -> tensor<128x128xf32>
// FP8-PG: arith.mulf %[[P]], %[[SB]]
// FP8-PG-NOT: tile.dequant

// fp8 activations: each K tile of A is quantized per token to e4m3, the
// MMA is fp8 x fp8 -> f32, and both scales apply to its product.
// FP8A: tile.kernel @gemm_bf16_fp8_b128_af8k64(
// FP8A: %[[AQ:.*]], %[[AS:.*]] = tile.quant %{{.*}} group [1, 64] : tensor<128x64xbf16> -> tensor<128x64xf8E4M3FN>, tensor<128x1xf32>
// FP8A: %[[P:.*]] = tile.mma %[[AQ]], %{{.*}}, %{{.*}} : tensor<128x64xf8E4M3FN>, tensor<64x128xf8E4M3FN> -> tensor<128x128xf32>
// FP8A: %[[ASB:.*]] = tile.broadcast %[[AS]] dims [1] : tensor<128x1xf32> -> tensor<128x128xf32>
// FP8A: %[[T:.*]] = arith.mulf %[[P]], %[[ASB]]
// FP8A: %[[WS:.*]] = tile.broadcast %{{.*}} dims [0, 1] : tensor<1x1xf32> -> tensor<128x128xf32>
// FP8A: arith.mulf %[[T]], %[[WS]]
// W4A8: tile.kernel @gemm_bf16_int4_g64_a8k64(
// W4A8: %[[W:.*]] = arith.extsi %{{.*}} : tensor<64x128xi4> to tensor<64x128xi8>
// W4A8: tile.mma %{{.*}}, %[[W]], %{{.*}} : tensor<128x64xi8>, tensor<64x128xi8> -> tensor<128x128xi32>

// int8 activations: each K tile of A is quantized per token, the MMA is
// int8 x int8 -> i32, and both scales apply to its product.
// A8: tile.kernel @gemm_bf16_int8_pc_a8k64(
// A8: %[[A:.*]] = tile.load %{{.*}} : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
// A8: %[[W:.*]] = tile.load %{{.*}} : !tile.shared<64x128xi8> -> tensor<64x128xi8>
// A8: %[[AQ:.*]], %[[AS:.*]] = tile.quant %[[A]] group [1, 64] : tensor<128x64xbf16> -> tensor<128x64xi8>, tensor<128x1xf32>
// A8: %[[P:.*]] = tile.mma %[[AQ]], %[[W]], %{{.*}} : tensor<128x64xi8>, tensor<64x128xi8> -> tensor<128x128xi32>
// A8: %[[PF:.*]] = arith.sitofp %[[P]] : tensor<128x128xi32> to tensor<128x128xf32>
// A8: %[[ASB:.*]] = tile.broadcast %[[AS]] dims [1] : tensor<128x1xf32> -> tensor<128x128xf32>
// A8: %[[T:.*]] = arith.mulf %[[PF]], %[[ASB]]
// A8: %[[WS:.*]] = tile.broadcast %{{.*}} dims [0] : tensor<1x128xf32> -> tensor<128x128xf32>
// A8: %[[TW:.*]] = arith.mulf %[[T]], %[[WS]]
// A8: arith.addf %{{.*}}, %[[TW]]
// RUN: tessera-opt %s --tile-quantize=weights=int8 --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=PROVED
// The shipped GEMM's product has more rows (128) than its weight tile (64):
// auto keeps the dequantization in registers.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64" | FileCheck %s --check-prefix=INT4-AUTO
// INT4-AUTO: tile.dequant
// INT4-AUTO-NOT: arith.mulf

// Per group: the MMA reads the codes minus the zero points (exact in
// bf16) and its product is scaled per column before it joins the
// accumulator, which the MMA no longer carries.
// PERGROUP: %[[CODES:.*]] = tile.unpack %{{.*}} dim 1 order [0, 1] : tensor<64x64x2xi4> -> tensor<64x128xi4>
// PERGROUP: %[[S:.*]] = tile.load %arg2
// PERGROUP: %[[Z:.*]] = tile.load %arg3
// PERGROUP: %[[R:.*]] = arith.sitofp %[[CODES]] : tensor<64x128xi4> to tensor<64x128xf32>
// PERGROUP: %[[ZB:.*]] = tile.broadcast %{{.*}} dims [0] : tensor<1x128xf32> -> tensor<64x128xf32>
// PERGROUP: %[[SHIFTED:.*]] = arith.subf %[[R]], %[[ZB]]
// PERGROUP: %[[W:.*]] = arith.truncf %[[SHIFTED]] : tensor<64x128xf32> to tensor<64x128xbf16>
// PERGROUP: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
// PERGROUP: %[[P:.*]] = tile.mma %{{.*}}, %[[W]], %[[ZERO]]
// PERGROUP: %[[SB:.*]] = tile.broadcast %{{.*}} dims [0] : tensor<1x128xf32> -> tensor<128x128xf32>
// PERGROUP: %[[SCALED:.*]] = arith.mulf %[[P]], %[[SB]]
// PERGROUP: %[[NEXT:.*]] = arith.addf %{{.*}}, %[[SCALED]]
// PERGROUP: scf.yield %[[NEXT]]
// PERGROUP-NOT: tile.dequant

// int8 per channel on @wide: one group per K tile and a product of 64 rows
// against a weight tile of 256: auto scales after the MMA.
// AUTO-LABEL: tile.kernel @wide_int8_pc
// AUTO-NOT: tile.dequant
// AUTO: %[[P:.*]] = tile.mma
// AUTO: %[[S:.*]] = tile.broadcast
// AUTO-NEXT: %[[T:.*]] = arith.mulf %[[P]], %[[S]]
// AUTO-NEXT: arith.addf %{{.*}}, %[[T]]

// The weight becomes int4 codes packed two per byte along n, low nibble
// first ([k, n / 2, 2]; its tag states that order: byte d1, nibble d2 is
// column 2 * d1 + d2), followed by its scales and zero points; its tag
// gains the scale group; each K step copies bytes n / 2.., unpacks them in
// the same order, loads one row of scales and zeros (64 rows of k = one
// group) and dequantizes before the MMA.
// INT4: tile.kernel @gemm_bf16_int4_g64_zp(%arg0: !tile.view<?x?xbf16>, %arg1: !tile.view<?x?x2xi4>, %arg2: !tile.view<?x?xf16>, %arg3: !tile.view<?x?xf16>, %arg4: !tile.view<?x?xbf16>)
// INT4: tag.bind %arg1 as "B" (k, n, g) = (d0, d1, d2) -> (d0, d1 * 2 + d2, d0 floordiv 64) : !tile.view<?x?x2xi4>
// INT4: tag.bind %arg2 as "B_scale" (g, n) = (d0, d1) -> (d0, d1)
// INT4: tag.bind %arg3 as "B_zero" (g, n) = (d0, d1) -> (d0, d1)
// INT4: %[[SW:.*]] = tile.alloc_shared : !tile.shared<64x64x2xi4>
// INT4: %[[BYTE:.*]] = arith.divui %[[N:.*]], %c2 : index
// INT4: tile.copy %arg1[%[[K:.*]], %[[BYTE]], %{{.*}}] -> %[[SW]] : !tile.view<?x?x2xi4> -> !tile.shared<64x64x2xi4>
// INT4: %[[PACKED:.*]] = tile.load %[[SW]] : !tile.shared<64x64x2xi4> -> tensor<64x64x2xi4>
// INT4: %[[CODES:.*]] = tile.unpack %[[PACKED]] dim 1 order [0, 1] : tensor<64x64x2xi4> -> tensor<64x128xi4>
// INT4: %[[G:.*]] = arith.divui %[[K]], %{{.*}} : index
// INT4: %[[S:.*]] = tile.load %arg2[%[[G]], %[[N]]] : !tile.view<?x?xf16> -> tensor<1x128xf16>
// INT4: %[[Z:.*]] = tile.load %arg3[%[[G]], %[[N]]] : !tile.view<?x?xf16> -> tensor<1x128xf16>
// INT4: %[[W:.*]] = tile.dequant %[[CODES]], %[[S]], %[[Z]] group [64, 1] : tensor<64x128xi4>, tensor<1x128xf16>, tensor<1x128xf16> -> tensor<64x128xbf16>
// INT4: tag.assert_eq %[[CODES]][(d0, d1)[s0, s1] -> (d0, d1)] (k, n), %arg1[(d0, d1)[s0, s1] -> (d0 + s0, (d1 + s1) floordiv 2, (d1 + s1) mod 2)] (k, n) captures(%[[K]], %[[N]]) message "every code is unpacked from the nibble the runtime packed it in"
// INT4: tag.assert_eq %[[CODES]][(d0, d1) -> (d0, d1)] (g, n), %[[S]][(d0, d1) -> (d0 floordiv 64, d1)] (g, n) message "every code uses the scale of its own group and column"
// INT4: tag.assert_eq %[[CODES]][(d0, d1) -> (d0, d1)] (g, n), %[[Z]][(d0, d1) -> (d0 floordiv 64, d1)] (g, n) message "every code uses the zero point
// INT4: tag.assert_contract %{{.*}}, %[[W]]
// INT4: tile.mma %{{.*}}, %[[W]], %{{.*}}

// int8 is per channel: one row of scales for the whole K.
// INT8: tile.kernel @gemm_bf16_int8_pc(%arg0: !tile.view<?x?xbf16>, %arg1: !tile.view<?x?xi8>, %arg2: !tile.view<?x?xf16>, %arg3: !tile.view<?x?xbf16>)
// INT8: tag.bind %arg1 as "B" (k, n, g) = (d0, d1) -> (d0, d1, 0)
// INT8: %[[ZERO:.*]] = arith.constant 0 : index
// INT8-NEXT: tile.load %arg2[%[[ZERO]], %{{.*}}] : !tile.view<?x?xf16> -> tensor<1x128xf16>
// INT8: tile.dequant {{.*}} group [64, 1] : tensor<64x128xi8>, tensor<1x128xf16> -> tensor<64x128xbf16>

// PROVED: remark: tag-check: @{{.*}}: {{[1-9][0-9]*}} proved structurally, {{[0-9]+}} by Z3, 0 failed

// A kernel with a K step of two groups (BK = 256, default group 128): each
// step loads two rows of scales.
// WIDE: tile.kernel @wide_int4_g128(
// WIDE: tile.load %arg2[%{{.*}}, %{{.*}}] : !tile.view<?x?xf16> -> tensor<2x64xf16>
// WIDE: tile.dequant {{.*}} group [128, 1] : tensor<256x64xi4>, tensor<2x64xf16> -> tensor<256x64xf16>
tile.kernel @wide(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<64x256xf16>
  %sB = tile.alloc_shared : !tile.shared<256x64xf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c256 iter_args(%c = %zero) -> (tensor<64x64xf32>) {
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x256xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<256x64xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x256xf16> -> tensor<64x256xf16>
    %b = tile.load %sB : !tile.shared<256x64xf16> -> tensor<256x64xf16>
    tag.assert_contract %a, %b : tensor<64x256xf16>, tensor<256x64xf16>
    %n = tile.mma %a, %b, %c : tensor<64x256xf16>, tensor<256x64xf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %n : tensor<64x64xf32>
  }
  %out = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xf16>
  tile.store %out -> %C[%c0, %c0] : tensor<64x64xf16> -> !tile.view<?x?xf16>
  tile.return
}
