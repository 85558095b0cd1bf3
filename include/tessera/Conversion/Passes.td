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

#endif // TESSERA_CONVERSION_PASSES
