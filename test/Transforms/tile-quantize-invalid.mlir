// tile-quantize rejects what it cannot quantize, saying what to change.
// RUN: tessera-opt %s --split-input-file --tile-quantize=group=64 --verify-diagnostics
// Options are checked before any kernel is looked at; the option parser
// admits only the listed formats, placements and scale sources.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize=weights=fp4 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 group=64" 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=48" 2>&1 | FileCheck %s --check-prefix=GROUP
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="kernel=gemm" 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: not tessera-opt %kernels/moe/moe_expert_block.mlir --tile-quantize 2>&1 | FileCheck %s --check-prefix=MANY
// The shipped GEMM steps K by 64: a group of 128 would straddle tiles.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize=group=128 2>&1 | FileCheck %s --check-prefix=WHOLE
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="placement=after" 2>&1 | FileCheck %s --check-prefix=PLACEMENT
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32 placement=per-group" 2>&1 | FileCheck %s --check-prefix=PERGROUP
// PLACEMENT: for the --placement option: Cannot find option named 'after'!
// PERGROUP: gemm_bf16.mlir:{{[0-9]+}}:5: error: tile-quantize: placement=per-group scales each K tile's product once and needs one group per K tile (group = 64); use that group or placement=registers
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="activations=int4" 2>&1 | FileCheck %s --check-prefix=ACT
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 activations=fp8" 2>&1 | FileCheck %s --check-prefix=F8ACT
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=int8" 2>&1 | FileCheck %s --check-prefix=F8A8
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 activations=fp8 placement=registers" 2>&1 | FileCheck %s --check-prefix=F8REG
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 group=64" 2>&1 | FileCheck %s --check-prefix=F8GROUP
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=fp8 zero-points" 2>&1 | FileCheck %s --check-prefix=F8ZP
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8 activation-scales=row" 2>&1 | FileCheck %s --check-prefix=SCOPE
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activation-scales=token" 2>&1 | FileCheck %s --check-prefix=TOKEN
// SCOPE: for the --activation-scales option: Cannot find option named 'row'!
// TOKEN: error: tile-quantize: activation-scales=token quantizes the activations; use activations=int8 or fp8
// F8ACT: error: tile-quantize: fp8 activations multiply fp8 weights; use weights=fp8
// F8A8: error: tile-quantize: int8 activations multiply integer weights; use activations=fp8 with weights=fp8
// F8REG: error: tile-quantize: fp8 activations feed an fp8 MMA whose product is scaled after it: use weights without zero-points and placement=per-group or auto
// F8GROUP: error: tile-quantize: fp8 weights have one scale per 128x128 block; drop group=64
// F8ZP: error: tile-quantize: fp8 weights are symmetric; drop zero-points
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=64 zero-points activations=int8" 2>&1 | FileCheck %s --check-prefix=A8
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="weights=int8 activations=int8 placement=registers" 2>&1 | FileCheck %s --check-prefix=A8
// RUN: not tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-quantize="group=32 activations=int8" 2>&1 | FileCheck %s --check-prefix=A8GROUP
// ACT: for the --activations option: Cannot find option named 'int4'!
// A8: error: tile-quantize: int8 activations feed an int8 MMA whose product is scaled after it: use weights without zero-points and placement=per-group or auto
// A8GROUP: error: tile-quantize: placement=per-group scales each K tile's product once and needs one group per K tile (group = 64); use that group (int8 activations need the per-group placement)
// FORMAT: for the --weights option: Cannot find option named 'fp4'!
// INT8: error: tile-quantize: int8 weights have one scale per channel; drop group=64
// GROUP: error: tile-quantize: int4 groups are 32, 64 or 128 rows of k, not 48
// NAME: error: tile-quantize: no kernel named 'gemm'
// MANY: error: tile-quantize: the module has 2 kernels; name the one to quantize with kernel=<name>
// WHOLE: gemm_bf16.mlir:{{[0-9]+}}:5: error: tile-quantize: the weight tile holds 64 rows of k but group = 128: a tile must hold whole groups; use a group that divides 64 or a K step that is a multiple of 128

tile.kernel @both_layouts(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sA = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  %a = tile.load %sA : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the weight is read both as [k, n] and transposed; its scales need one layout}}
  %d = tile.mma %a, %b, %c transpose_b : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @register_operand(%A: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = arith.constant dense<1.0> : tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: operand b must be a tile.load of a tile.alloc_shared buffer}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @already_quantized(%A: !tile.view<?x?xbf16>, %W: !tile.view<?x?xi8>) threads(128) {
  %c0 = arith.constant 0 : index
  %sW = tile.alloc_shared : !tile.shared<64x64xi8>
  tile.copy %W[%c0, %c0] -> %sW : !tile.view<?x?xi8> -> !tile.shared<64x64xi8>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sW : !tile.shared<64x64xi8> -> tensor<64x64xi8>
  %z = arith.constant dense<0> : tensor<64x64xi32>
  %aq = arith.constant dense<1> : tensor<64x64xi8>
  // expected-error @below {{tile-quantize: the weight must be a bf16 or f16 view of rank 2 or more, not '!tile.view<?x?xi8>'}}
  %c = tile.mma %aq, %b, %z : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  tile.return
}

// -----

tile.kernel @weight_read_twice(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %extra = tile.load %B[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the weight argument is used by 'tile.load' besides its tile.copy}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @after_pipelining(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 2>
  tile.copy %B[%c0, %c0] -> %sB[%c0] async : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 2>
  tile.async_commit
  tile.async_wait 0
  tile.barrier
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB[%c0] : !tile.shared<64x64xbf16, stages = 2> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the weight buffer is already a ring; run tile-quantize before tile-pipeline}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

// expected-error @below {{tile-quantize: the kernel has no tile.mma}}
tile.kernel @no_mma(%A: !tile.view<?x?xbf16>) threads(128) {
  tile.return
}

// -----

tile.kernel @filled_twice(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  tile.copy %A[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the weight buffer is filled by more than one tile.copy}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @stored_buffer(%A: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  tile.store %a -> %sB : tensor<64x64xbf16> -> !tile.shared<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the weight buffer is used by 'tile.store'; only tile.copy and tile.load can follow a change of its element type}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @unfilled(%A: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the weight buffer is not filled by a tile.copy}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @three_component_tag(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{tile-quantize: the weight's tag must name its coordinates, one component per dimension, and have no captures}}
  tag.bind %B as "B"(k, n, x) = (d0, d1) -> (d0, d1, 0) : !tile.view<?x?xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @weight_through_loop(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  %last = scf.for %k = %c0 to %K step %c64 iter_args(%w = %B) -> (!tile.view<?x?xbf16>) {
    tile.copy %w[%k, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{tile-quantize: the weight must be copied from a kernel argument}}
    %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %w : !tile.view<?x?xbf16>
  }
  tile.return
}

// -----

// int4 codes are packed two per byte along n.
tile.kernel @odd_columns(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sA = tile.alloc_shared : !tile.shared<16x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x15xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<16x64xbf16>
  // expected-error @below {{tile-quantize: int4 codes are packed two per byte along the tile's columns; the weight tile needs an even number of columns, not 15}}
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x15xbf16>
  %a = tile.load %sA : !tile.shared<16x64xbf16> -> tensor<16x64xbf16>
  %b = tile.load %sB : !tile.shared<64x15xbf16> -> tensor<64x15xbf16>
  %z = arith.constant dense<0.0> : tensor<16x15xf32>
  %c = tile.mma %a, %b, %z : tensor<16x64xbf16>, tensor<64x15xbf16> -> tensor<16x15xf32>
  tile.return
}

// -----

tile.kernel @reads_n(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{tile-quantize: int4 packs the weight's dimension 1 two per byte, so it no longer counts codes; take its size from another operand}}
  %n = tile.dim %B, 1 : !tile.view<?x?xbf16>
  %sA = tile.alloc_shared : !tile.shared<16x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x16xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<16x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x16xbf16>
  %a = tile.load %sA : !tile.shared<16x64xbf16> -> tensor<16x64xbf16>
  %b = tile.load %sB : !tile.shared<64x16xbf16> -> tensor<64x16xbf16>
  %z = arith.constant dense<0.0> : tensor<16x16xf32>
  %c = tile.mma %a, %b, %z : tensor<16x64xbf16>, tensor<64x16xbf16> -> tensor<16x16xf32>
  tile.store %c -> %C[%c0, %n] : tensor<16x16xf32> -> !tile.view<?x?xf32>
  tile.return
}
