//===- Branches.cpp - scf.if in the tile-level lowerings ------------------===//

#include "tessera/Conversion/Branches.h"

using namespace mlir;

LogicalResult tessera::lowerBranchRegions(
    OpBuilder &builder, scf::IfOp branch, scf::IfOp lowered,
    function_ref<LogicalResult(Operation *)> lowerOp,
    function_ref<SmallVector<Value>(Operation *)> yields) {
  for (auto [from, to] :
       llvm::zip(branch->getRegions(), lowered->getRegions())) {
    if (from.empty())
      continue;
    Block &block = to.front();
    if (block.mightHaveTerminator())
      block.getTerminator()->erase();
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&block);
    for (Operation &op : from.front().without_terminator())
      if (failed(lowerOp(&op)))
        return failure();
    SmallVector<Value> yielded = yields(from.front().getTerminator());
    scf::YieldOp::create(builder, branch.getLoc(), yielded);
  }
  return success();
}
