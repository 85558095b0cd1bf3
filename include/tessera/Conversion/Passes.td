//===- Passes.td - Lowerings of the tile dialect -----------*- tablegen -*-===//

#ifndef TESSERA_CONVERSION_PASSES
#define TESSERA_CONVERSION_PASSES

include "mlir/Pass/PassBase.td"

def ConvertTileToHost : Pass<"convert-tile-to-host", "mlir::ModuleOp"> {
  let summary = "Lower tile kernels to host code (scf, vector, memref, linalg)";
  let description = [{
    Each `tile.kernel @k` becomes `func.func @tessera_kernel_k(%args:
    !llvm.ptr, %grid_x: i64, %grid_y: i64, %grid_z: i64, %begin: i64,
    %end: i64)`, a C-ABI entry that runs program instances `[begin, end)` of
    the grid (instance p has program id (p mod gx, (p / gx) mod gy,
    p / (gx * gy))). `args` points to one pointer per kernel argument: to a
    memref descriptor for a view, to the value for a scalar.

    Register tiles become buffers allocated once per call (a multiply-
    accumulate updates its accumulator in place when nothing else reads it);
    shared memory becomes per-call buffers; barriers and async-copy
    synchronisation vanish, since one thread runs each program instance.
    `tile.mma` becomes a register-blocked vector kernel (4 rows x 16 columns
    of f32 accumulators), element-wise math and reductions become
    `linalg.generic` on buffers, and copies, loads and stores become loops
    that pad or mask at the edges of views. Tag ops are erased.

    Views are dense row-major at run time; int4 views hold two codes per
    byte, low nibble first.
  }];
  let dependentDialects = [
    "mlir::func::FuncDialect", "mlir::linalg::LinalgDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect", "mlir::LLVM::LLVMDialect",
    "mlir::arith::ArithDialect", "mlir::math::MathDialect"
  ];
}

def DefineIntegerDivision : Pass<"define-integer-division"> {
  let summary = "Give integer divisions by zero (and MIN / -1) a result";
  let description = [{
    LLVM leaves an integer division by zero, and a signed division of the
    least value by -1, undefined, and x86 traps on both: the host and
    emulator images would die by SIGFPE when a kernel divides by a scalar
    its caller passes as 0. Every `arith` division and remainder (also
    `ceildiv`/`floordiv`) whose divisor is not a constant that cannot cause
    either gets a guarded divisor and a defined result: `x / 0 = 0`,
    `x % 0 = x`, `MIN / -1 = MIN` and `MIN % -1 = 0`, on scalars and
    vectors. `tessera-compile`'s host pipeline runs it after lowering the
    tiles; emulator images give the device code's divisions the same
    results as they are built (GPU images keep the hardware's division,
    which does not trap: guarding it there cost the gfx942 MoE down kernel
    its second wave).

    ```
    tessera-opt --define-integer-division kernel.mlir
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ConvertTileToGPU : Pass<"convert-tile-to-gpu", "mlir::ModuleOp"> {
  let summary = "Lower laid-out tile kernels to per-thread GPU code";
  let description = [{
    For the module's target (`tile.target`: sm_80, sm_90a, gfx942 or
    gfx90a), after
    `tile-assign-layouts`: each `tile.kernel @k` becomes `gpu.func @k` with
    `known_block_size = [threads, 1, 1]` in `gpu.module @tessera_kernels`.
    Views become strided memrefs (unit innermost stride), scalars stay
    scalars; program ids become block ids. Each register tile becomes one
    vector per thread holding the registers of its layout.

    sm_80 and sm_90a (which runs the sm_80 instructions; no wgmma or TMA
    yet): copies into shared memory become cp.async of 16-byte chunks of a
    coalesced layout, zero-filling outside the view (views whose rows are not
    16-byte aligned take an element-wise path chosen at run time); commit
    groups and waits map one to one; shared buffers are workgroup globals,
    swizzled as their `tile.swizzle` says; loads of MMA operands from shared
    memory become ldmatrix (x4, .trans for B), checked at compile time to
    deliver exactly the operand's layout; `tile.mma` becomes mma.sync
    m16n8k16 (bf16, f16) per accumulator fragment and K step; stores into
    views are masked per element. Tag ops are dropped (tag-check has proved
    them).

    gfx942, gfx90a (wave64): copies into LDS are synchronous 16-byte vector
    loads and stores of the same coalesced layout (element-wise where a row
    chunk is partial or unaligned), commit groups and waits vanish; MMA
    operands are read from LDS element by element; `tile.mma` becomes
    `amdgpu.mfma` 32x32x8 per 16-register accumulator block and K step
    (with the operands swapped where the accumulator is laid out
    transposed, so that rows stay within a lane group: attention's P is
    then the next MMA's A operand); exp2 is v_exp_f32.

    Ops this backend does not lower yet are errors naming the op.
  }];
  let dependentDialects = [
    "mlir::gpu::GPUDialect", "mlir::nvgpu::NVGPUDialect",
    "mlir::amdgpu::AMDGPUDialect",
    "mlir::NVVM::NVVMDialect", "mlir::ROCDL::ROCDLDialect",
    "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::vector::VectorDialect", "mlir::arith::ArithDialect"
  ];
}

#endif // TESSERA_CONVERSION_PASSES
