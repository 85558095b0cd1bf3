//===- TileUpliftWhile.cpp - Counting scf.while loops into scf.for --------===//

#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace tessera {
#define GEN_PASS_DEF_TILEUPLIFTWHILE
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;

namespace {
struct TileUpliftWhilePass
    : tessera::impl::TileUpliftWhileBase<TileUpliftWhilePass> {
  void runOnOperation() override {
    // Each loop on its own (inner ones first), and nothing else: a greedy
    // pattern driver would also erase loops whose results go unused.
    SmallVector<scf::WhileOp> loops;
    getOperation().walk([&](scf::WhileOp loop) { loops.push_back(loop); });
    IRRewriter rewriter(&getContext());
    for (scf::WhileOp loop : loops) {
      rewriter.setInsertionPoint(loop);
      // A loop that does not count stays as it is.
      (void)scf::upliftWhileToForLoop(rewriter, loop);
    }
  }
};
} // namespace
