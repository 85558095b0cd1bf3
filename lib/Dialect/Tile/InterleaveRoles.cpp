//===- InterleaveRoles.cpp - Roles as one pipelined loop of all threads ---===//
//
// The synchronized form of a `tile.warp_specialize` (FuseMode::Synchronized)
// for chips whose lowering does not run roles: the roles' loops
// interleaved, the hand-over made of commit groups, waits and barriers.
// Where the producer only fills rings it runs ahead of the consumers by a
// slot less than the smallest ring has, as tile-pipeline's multistage
// loops do; otherwise each fill is waited for in its own iteration.
//
//===----------------------------------------------------------------------===//

#include "Fuser.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;
using namespace tessera::tile::fusion;

int64_t Fuser::lookahead() {
  scf::ForOp p = loops[Producer], c = loops[Consumer];
  if (llvm::any_of(p.getRegionIterArgs(), [&](BlockArgument arg) {
        return arg != counters[Producer];
      }))
    return 0;
  // Fills of iterations past the end copy padding only, harmlessly, if
  // fills are all the producer does.
  if (!llvm::all_of(p.getBody()->without_terminator(), [](Operation &inner) {
        return isa<CopyOp, MbarrierArriveOp, MbarrierWaitOp>(inner) ||
               (isMemoryEffectFree(&inner) && !inner.getNumRegions());
      }))
    return 0;
  WalkResult async = c.getBody()->walk([](Operation *inner) {
    auto copy = dyn_cast<CopyOp>(inner);
    auto out = dyn_cast<CopyOutOp>(inner);
    return isa<AsyncCommitOp, AsyncWaitOp>(inner) ||
                   (copy && copy.getAsync()) || (out && out.getAsync())
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (async.wasInterrupted())
    return 0;
  int64_t stages = 0;
  for (auto &entry : rings[Producer]) {
    int64_t ring = cast<SharedType>(entry.first.getType()).getStages();
    stages = stages ? std::min(stages, ring) : ring;
  }
  return std::max<int64_t>(stages - 1, 0);
}

void Fuser::fuseMainAhead(RewriterBase &rewriter, IRMapping &map) {
  scf::ForOp p = loops[Producer], c = loops[Consumer];
  Location loc = p.getLoc();
  Value step = map.lookupOrDefault(c.getStep());
  auto index = [&](int64_t value) {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  auto offset = [&](Value base, Value delta) {
    return arith::AddIOp::create(rewriter, loc, base, delta);
  };
  // The producer's iteration at `iv` (its `count`-th, where it counts),
  // then a commit group: the fills of iterations past the end copy
  // padding, so every iteration commits one group, as tile-pipeline's
  // multistage loops do.
  BlockArgument counter = counters[Producer];
  auto fill = [&](Value iv, Value count) {
    IRMapping early = map;
    early.map(p.getInductionVar(), iv);
    if (counter)
      early.map(counter, count);
    for (Operation &inner : p.getBody()->without_terminator())
      if (!isa<MbarrierArriveOp, MbarrierWaitOp>(inner))
        rewriter.clone(inner, early);
    AsyncCommitOp::create(rewriter, loc);
  };
  Value lb = map.lookupOrDefault(c.getLowerBound());
  Value firstCount =
      counter ? map.lookupOrDefault(p.getInitArgs()[counter.getArgNumber() - 1])
              : Value();
  for (int64_t j = 0; j < ahead; ++j) {
    Value jv = index(j);
    fill(offset(lb, arith::MulIOp::create(rewriter, loc, jv, step)),
         counter ? offset(firstCount, jv) : Value());
  }
  scf::ForOp fused = createFusedLoop(rewriter, p, c, map);
  for (NamedAttribute attr : c->getDiscardableAttrs())
    fused->setAttr(attr.getName(), attr.getValue());
  Block *body = fused.getBody();
  Value n = counter ? body->getArgument(counter.getArgNumber()) : Value();
  if (n && counters[Consumer])
    map.map(counters[Consumer], n);
  // The consumers' first wait: fill n retired and, past the barrier, every
  // read of iteration n - 1 done, so that the fill of n + ahead may reuse
  // its slot. Later waits and the releases have nothing left to order.
  bool waited = false;
  for (Operation &inner : c.getBody()->without_terminator()) {
    if (isa<MbarrierArriveOp>(inner) || (isa<MbarrierWaitOp>(inner) && waited))
      continue;
    if (!isa<MbarrierWaitOp>(inner)) {
      rewriter.clone(inner, map);
      continue;
    }
    waited = true;
    AsyncWaitOp::create(rewriter, inner.getLoc(), ahead - 1);
    BarrierOp::create(rewriter, inner.getLoc());
    Value distance = index(ahead);
    fill(offset(fused.getInductionVar(),
                arith::MulIOp::create(rewriter, loc, distance, step)),
         n ? offset(n, distance) : Value());
  }
  SmallVector<Value> yields;
  if (n)
    yields.push_back(offset(n, index(1)));
  for (Value yielded : c.getBody()->getTerminator()->getOperands())
    yields.push_back(map.lookupOrDefault(yielded));
  scf::YieldOp::create(rewriter, c.getLoc(), yields);
  mapFusedResults(p, c, fused, map);
  rewriter.setInsertionPointAfter(fused);
  // The fills past the end land before anything else uses the rings.
  AsyncWaitOp::create(rewriter, loc, 0);
  BarrierOp::create(rewriter, loc);
}

LogicalResult tile::interleaveRoles(KernelOp kernel, FuseMode mode) {
  assert(mode != FuseMode::Checked && "tag-check builds the checked form");
  if (kernel.getBody().empty())
    return success();
  IRRewriter rewriter(kernel.getContext());
  for (auto roles : llvm::make_early_inc_range(
           kernel.getBody().front().getOps<WarpSpecializeOp>()))
    if (failed(fuseWarpSpecialize(roles, rewriter, mode)))
      return failure();
  kernel.walk([&](Operation *op) {
    if (isa<MbarrierArriveOp, MbarrierWaitOp>(op))
      rewriter.eraseOp(op);
    else if (auto copy = dyn_cast<CopyOp>(op))
      copy.setMulticast(false);
  });
  kernel.walk([&](AllocMbarrierOp alloc) { rewriter.eraseOp(alloc); });
  return success();
}
