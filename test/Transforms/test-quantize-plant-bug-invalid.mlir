// The test-only pass that plants quantization bugs says when it has nothing
// to plant, instead of leaving the kernel correct and the mutant test
// vacuous.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize=group=64 --test-quantize-plant-bug=bug=nibbles 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize=weights=int8 --test-quantize-plant-bug=bug=nibble-order 2>&1 | FileCheck %s --check-prefix=NIBBLES
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize=group=64 --test-quantize-plant-bug=bug=dequant-group 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8" --test-quantize-plant-bug=bug=token-row 2>&1 | FileCheck %s --check-prefix=TOKEN
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize=group=64 --test-quantize-plant-bug=bug=zero-row 2>&1 | FileCheck %s --check-prefix=ZERO
// UNKNOWN: error: test-quantize-plant-bug: unknown bug 'nibbles'; use scale-row, zero-row, scale-column, dequant-group, nibble-order or token-row
// NIBBLES: error: test-quantize-plant-bug: no tile.unpack to plant 'nibble-order' in
// GROUP: error: test-quantize-plant-bug: no tile.dequant with an even number of groups to plant 'dequant-group' in
// TOKEN: error: test-quantize-plant-bug: no load of per-token scales to plant 'token-row' in
// ZERO: error: test-quantize-plant-bug: no load of zero points to plant 'zero-row' in
