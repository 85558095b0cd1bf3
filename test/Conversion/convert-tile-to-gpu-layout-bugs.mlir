// A layout that no longer covers its tile, or covers it but is not the
// fragment the instructions deliver, stops the lowering with an error
// instead of producing a wrong kernel (layouts corrupted by the test-only
// pass test-layout-plant-bug).
// REQUIRES: test-passes
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --test-layout-plant-bug=bug=swap-lanes --convert-tile-to-gpu \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=SWAP
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --test-layout-plant-bug=bug=drop-register --convert-tile-to-gpu \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=DROP

// SWAP: error: 'tile.mma' op operand layouts are not tilings of the mma.sync.m16n8k16 fragments
// DROP: error: 'tile.load' op makes a register tile whose layout does not cover it exactly: the bases reach 4096 of the 8192 elements
