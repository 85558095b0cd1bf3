// Mutants of tile-quantize's output, planted by the test-only pass
// test-quantize-plant-bug: each emitted-invariant violation is rejected by
// tag-check with a counterexample that names the offending group or column.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32 zero-points" --test-quantize-plant-bug=bug=scale-row --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=ROW
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32 zero-points" --test-quantize-plant-bug=bug=zero-row --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8" --test-quantize-plant-bug=bug=scale-column --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=COLUMN
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32" --test-quantize-plant-bug=bug=dequant-group --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32" --test-quantize-plant-bug=bug=dequant-group --tile-pipeline --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=PIPED
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8" --test-quantize-plant-bug=bug=scale-row --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP8ROW
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64" --test-quantize-plant-bug=bug=nibble-order --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=NIBBLES
// RUN: not tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_down_combine group=32" --test-quantize-plant-bug=bug=scale-row --tile-pipeline --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=MOE-ROW
// RUN: not tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_gate_up_swiglu group=64" --test-quantize-plant-bug=bug=nibble-order --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=MOE-NIBBLES
// RUN: not tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize="kernel=moe_down_combine weights=int8 activations=int8" --test-quantize-plant-bug=bug=scale-column --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=MOE-COLUMN
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8 activation-scales=token" --test-quantize-plant-bug=bug=token-row --tile-pipeline --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=TOKEN-SCALE
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 activations=int8" --test-quantize-plant-bug=bug=nibble-order --tile-pipeline=scheduler=solver --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=NIBBLES-PIPED
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=fp8" --test-quantize-plant-bug=bug=scale-column --tile-pipeline --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=FP8COLUMN
// The same options without a mutation pass.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32 zero-points" --tag-check -o /dev/null
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8" --tag-check -o /dev/null
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8" --tag-check -o /dev/null
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=fp8" --tile-pipeline --tag-check -o /dev/null

// Scales of the next group.
// ROW: error: tag assertion failed: every code uses the scale of its own group and column
// ROW: note: counterexample: d0 = 0
// ROW: note: %b[0, 0] carries B(0, 0, 0); %B_scales[0, 0] carries B_scale(1, 0)

// Zero points of the next group.
// ZERO: error: tag assertion failed: every code uses the zero point of its own group and column
// ZERO: note: %b[0, 0] carries B(0, 0, 0); %B_zeros[0, 0] carries B_zero(1, 0)

// Scales of the next column.
// COLUMN: error: tag assertion failed: every code uses the scale of its own group and column
// COLUMN: note: %b[0, 0] carries B(0, 0, 0); %B_scales[0, 0] carries B_scale(0, 1)

// Dequantized with groups of 64 while the weights have groups of 32: row 32
// of the tile is in group 1 but gets the scale of group 0. Pipelined, the
// solver may pick another row and iteration.
// GROUP: error: tag assertion failed: every code uses the scale of its own group and column
// GROUP: note: counterexample: {{.*}}d0 = 32
// GROUP: note: %b[32, 0] carries B(32, 0, 1); %B_scales[0, 0] carries B_scale(0, 0)
// PIPED: error: tag assertion failed: every code uses the scale of its own group and column
// PIPED: note: %b[{{[0-9]+}}, {{[0-9]+}}] carries B({{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}); %B_scales[0, {{[0-9]+}}] carries B_scale({{[0-9]+}}, {{[0-9]+}})

// fp8: the scale of the next row of blocks. Rows 64-127 of a block share
// its scale, so the solver needs the second K tile of a block (k = 64) to
// show a code of block row 0 (k = 127) meeting the scale of block row 1.
// FP8ROW: error: tag assertion failed: every code uses the scale of its own block
// FP8ROW: note: %b[{{[0-9]+}}, {{[0-9]+}}] carries B({{[0-9]+}}, {{[0-9]+}}, 0, 0); %B_scales[0, 0] carries B_scale(1, 0)

// fp8: the scale of the next column block, after pipelining.
// FP8COLUMN: error: tag assertion failed: every code uses the scale of its own block
// FP8COLUMN: note: %b[{{[0-9]+}}, {{[0-9]+}}] carries B({{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}); %B_scales[0, 0] carries B_scale({{[0-9]+}}, {{[0-9]+}})

// Nibbles unpacked high first while the runtime packs them low first: code
// (0, 0) of the tile is column 1. Caught by the packing-order assertion
// (and by the scale assertions, which see column 1's codes in column 0).
// NIBBLES: error: tag assertion failed: every code is unpacked from the nibble the runtime packed it in
// NIBBLES: note: counterexample: {{.*}}d0 = 0, d1 = 0
// NIBBLES: note: %b[0, 0] carries B(0, 1, 0); %B[0, 0, 0] carries B(0, 0, 0)
// NIBBLES-PIPED: error: tag assertion failed: every code is unpacked from the nibble the runtime packed it in
// NIBBLES-PIPED: note: %b[{{[0-9]+}}, {{[0-9]+}}] carries B({{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}); %B[{{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}] carries B({{[0-9]+}}, {{[0-9]+}}, {{[0-9]+}})

// Per-token scales read one row down: row 0 of the tile gets token 1's.
// TOKEN-SCALE: error: tag assertion failed: every row uses the scale of its own token
// TOKEN-SCALE: note: %a[{{[0-9]+}}, {{[0-9]+}}] carries A([[#T:]], {{[0-9]+}});
// TOKEN-SCALE-SAME: %a_token_scales[{{[0-9]+}}] carries A_scale([[#T+1]])
// The epilogue that scales the loop's result reads them one row down too.
// TOKEN-SCALE: error: tag assertion failed: every row of the result is scaled by its own token's scale
// TOKEN-SCALE: note: %next[{{[0-9]+}}, {{[0-9]+}}] carries A*B([[#R:]], {{[0-9]+}}, {{[0-9]+}});
// TOKEN-SCALE-SAME: %a_token_scales[{{[0-9]+}}] carries A_scale([[#R+1]])

// MoE's transposed expert weights: the scales of the next k group, and
// nibbles unpacked high first along k.
// MOE-ROW: error: tag assertion failed: every code uses the scale of its own group and column
// MOE-ROW: note: %w[{{[0-9]+}}, {{[0-9]+}}] carries W2({{-?[0-9]+}}, {{[0-9]+}}, {{[0-9]+}}, [[#G:]]);
// MOE-ROW-SAME: %W2_scales[{{[0-9]+}}, {{[0-9]+}}] carries W2_scale({{-?[0-9]+}}, {{[0-9]+}}, [[#G+1]])
// MOE-NIBBLES: error: tag assertion failed: every code is unpacked from the nibble the runtime packed it in

// The next column's scales, with the scales applied to the product per
// group (int8 activations, transposed weight): both the codes' assertion
// and the product's column assertion fail.
// MOE-COLUMN: error: tag assertion failed: every code uses the scale of its own group and column
// MOE-COLUMN: error: tag assertion failed: every column of the product is scaled by its own column's scale
// MOE-COLUMN: note: %y_next[0, 0] carries H*W2(0, 0, 0, 0); %y_next[0, 0] carries W2_scale(0, 1)
