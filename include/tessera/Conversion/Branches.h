//===- Branches.h - scf.if in the tile-level lowerings ----------*- C++ -*-===//
//
// The host and GPU lowerings both rebuild an scf.if of register tiles as an
// scf.if of what they make of them (buffers, the threads' vectors): the
// regions are walked alike, only the ops' lowering and the yields differ.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_BRANCHES_H
#define TESSERA_CONVERSION_BRANCHES_H

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace tessera {

/// Lowers each region of `branch` into the same region of `lowered` (an
/// scf.if of the lowered result types, made with an else region where
/// `branch` has one): `lowerOp` lowers each op of the region with
/// `builder` at the end of the new block, then `yields` gives the values
/// the new block yields for the old block's terminator.
mlir::LogicalResult lowerBranchRegions(
    mlir::OpBuilder &builder, mlir::scf::IfOp branch, mlir::scf::IfOp lowered,
    llvm::function_ref<mlir::LogicalResult(mlir::Operation *)> lowerOp,
    llvm::function_ref<llvm::SmallVector<mlir::Value>(mlir::Operation *)>
        yields);

} // namespace tessera

#endif // TESSERA_CONVERSION_BRANCHES_H
