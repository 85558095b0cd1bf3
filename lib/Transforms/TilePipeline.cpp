//===- TilePipeline.cpp - Software pipelining of K loops --------*- C++ -*-===//
//
// Turns the shared buffers a `tile.pipeline` loop fills into rings and issues
// their copies asynchronously `stages - 1` iterations ahead (see the pass
// description in Passes.td for the schedule).
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Dialect/Tile/WarpSpecialize.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"
#include "tessera/Transforms/PipelineModel.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace tessera {
#define GEN_PASS_DEF_TILEPIPELINE
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

namespace {
/// What pipelining one loop needs: the copies to pipeline, in body order,
/// and the body ops that compute their operands.
struct LoopPlan {
  SmallVector<tile::CopyOp> copies;
  SmallVector<Operation *> slice;
};

LogicalResult planLoop(scf::ForOp loop, LoopPlan &plan) {
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (auto copy = dyn_cast<tile::CopyOp>(op)) {
      if (copy.getAsync() || copy.getDest().getType().isRing())
        return copy.emitError("tile-pipeline: this copy is already "
                              "asynchronous or fills a ring; remove the "
                              "loop's tile.pipeline attribute");
      plan.copies.push_back(copy);
      continue;
    }
    bool writesShared = false;
    op.walk([&](Operation *nested) {
      if (auto store = dyn_cast<tile::StoreOp>(nested))
        writesShared |= isa<tile::SharedType>(store.getDest().getType());
      writesShared |= nested != &op && isa<tile::CopyOp>(nested);
    });
    if (writesShared)
      return op.emitError("tile-pipeline: the loop writes shared memory "
                          "other than by top-level tile.copy; it cannot be "
                          "pipelined");
  }
  if (plan.copies.empty())
    return loop.emitError("tile-pipeline: the loop has no tile.copy into "
                          "shared memory to pipeline");

  llvm::SetVector<Value> buffers;
  for (tile::CopyOp copy : plan.copies) {
    Value buffer = copy.getDest();
    if (!buffers.insert(buffer))
      return copy.emitError("tile-pipeline: the buffer is filled twice in "
                            "one iteration");
    if (!buffer.getDefiningOp<tile::AllocSharedOp>())
      return copy.emitError("tile-pipeline: the buffer must come from "
                            "tile.alloc_shared");
    for (Operation *user : buffer.getUsers()) {
      if (!loop->isProperAncestor(user))
        return user->emitError("tile-pipeline: a pipelined buffer may only "
                               "be used inside its loop")
                   .attachNote(copy.getLoc())
               << "filled here";
      if (!isa<tile::CopyOp, tile::LoadOp>(user))
        return user->emitError("tile-pipeline: a pipelined buffer may only "
                               "be copied into and loaded from");
    }
  }

  // The body ops the copies' operands depend on, in body order.
  llvm::SetVector<Operation *> needed = getCopySlice(loop);
  for (Operation &op : body->without_terminator()) {
    if (!needed.contains(&op) || isa<tile::CopyOp>(op))
      continue;
    if (!isPure(&op) || op.getNumRegions())
      return op.emitError("tile-pipeline: a copy's offsets must be pure "
                          "arithmetic on the induction variable and "
                          "values from outside the loop");
    plan.slice.push_back(&op);
  }
  return success();
}

/// The copies of `plan` for the iteration at `iv`, into `slot` of the rings.
void issueCopies(OpBuilder &builder, scf::ForOp loop, const LoopPlan &plan,
                 const DenseMap<Value, Value> &rings, Value iv, Value slot) {
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (Operation *op : plan.slice)
    builder.clone(*op, mapping);
  for (tile::CopyOp copy : plan.copies) {
    SmallVector<Value> offsets;
    for (Value offset : copy.getOffsets())
      offsets.push_back(mapping.lookupOrDefault(offset));
    auto issued = tile::CopyOp::create(
        builder, copy.getLoc(), mapping.lookupOrDefault(copy.getSource()),
        offsets,
        copy.getRows() ? mapping.lookupOrDefault(copy.getRows()) : Value(),
        rings.lookup(copy.getDest()), slot, /*async=*/true,
        /*multicast=*/false, copy.getPadAttr());
    (void)issued;
  }
  tile::AsyncCommitOp::create(builder, loop.getLoc());
}

/// The expansion follows the schedule's stages: the pipelined copies (and
/// their offset arithmetic) in stage 0, the loads of their buffers in stage
/// stages - 1.
LogicalResult checkSchedule(scf::ForOp loop, const LoopPlan &plan,
                            int64_t stages) {
  auto stageOf = [](Operation *op) {
    auto stage =
        tile::TileDialect::StageAttrHelper(op->getContext()).getAttr(op);
    return stage ? stage.getInt() : -1;
  };
  auto reject =
      [&](Operation *op, int64_t want) {
        return op->emitError()
               << "tile-pipeline: the schedule puts this op in stage "
               << stageOf(op) << ", but the expansion needs stage " << want
               << " (copies in stage 0, the loads of their buffers in stage "
               << stages - 1 << ")";
      };
  for (tile::CopyOp copy : plan.copies) {
    if (stageOf(copy) != 0)
      return reject(copy, 0);
    for (Operation *user : copy.getDest().getUsers())
      if (isa<tile::LoadOp>(user) && stageOf(user) != stages - 1)
        return reject(user, stages - 1);
  }
  for (Operation *op : plan.slice)
    if (stageOf(op) != 0)
      return reject(op, 0);
  return success();
}

/// Drops the schedule's attributes from `loop` and its body: it has been
/// carried out.
void clearSchedule(scf::ForOp loop) {
  MLIRContext *context = loop.getContext();
  loop->removeAttr(tile::TileDialect::PipelineAttrHelper(context).getName());
  loop->removeAttr(tile::TileDialect::IiAttrHelper(context).getName());
  for (Operation &op : *loop.getBody())
    for (StringAttr name :
         {tile::TileDialect::StageAttrHelper(context).getName(),
          tile::TileDialect::OrderAttrHelper(context).getName(),
          tile::TileDialect::LatencyAttrHelper(context).getName()})
      op.removeAttr(name);
}

/// Whether registers can stage every buffer of `plan`: int4 nibble pairs
/// cannot be stored into shared memory from registers yet.
bool canStage(const LoopPlan &plan) {
  return llvm::none_of(plan.copies, [](tile::CopyOp copy) {
    tile::SharedType type = copy.getDest().getType();
    return tile::isNibblePairs(type.getElementType(), type.getShape());
  });
}

/// Targets whose copies into shared memory are loads into registers and
/// stores (CDNA): a ring would take `stages` buffers and overlap nothing,
/// since each copy waits for its loads before it stores. Instead each
/// buffer stays single and the next iteration's tile is staged in
/// registers: the prologue copies the first iteration's tiles; the body
/// loads the next iteration's tiles from their views first (the loads are
/// in flight while the body computes), keeps its barriers, and stores the
/// staged tiles into the buffers after its last barrier. The last
/// iteration's loads read padding, as a ring's prefetches do.
void stageLoop(scf::ForOp loop, const LoopPlan &plan) {
  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  Value iv = loop.getInductionVar();
  auto cloneSlice = [&](IRMapping &mapping) {
    for (Operation *op : plan.slice)
      builder.clone(*op, mapping);
  };
  // Prologue: the first iteration's copies, as the body wrote them.
  IRMapping first;
  first.map(iv, loop.getLowerBound());
  cloneSlice(first);
  for (tile::CopyOp copy : plan.copies)
    builder.clone(*copy, first);

  Block *body = loop.getBody();
  builder.setInsertionPointToStart(body);
  IRMapping next;
  next.map(iv, arith::AddIOp::create(builder, loc, iv, loop.getStep()));
  cloneSlice(next);
  SmallVector<Value> staged;
  for (tile::CopyOp copy : plan.copies) {
    tile::SharedType type = copy.getDest().getType();
    SmallVector<Value> offsets;
    for (Value offset : copy.getOffsets())
      offsets.push_back(next.lookupOrDefault(offset));
    auto tileType =
        RankedTensorType::get(type.getShape(), type.getElementType());
    Value source = next.lookupOrDefault(copy.getSource());
    if (Value rows = copy.getRows())
      staged.push_back(tile::GatherOp::create(
          builder, copy.getLoc(), tileType, source, offsets,
          next.lookupOrDefault(rows), copy.getPadAttr()));
    else
      staged.push_back(tile::LoadOp::create(builder, copy.getLoc(), tileType,
                                            source, offsets,
                                            copy.getPadAttr()));
  }
  Operation *yield = body->getTerminator();
  builder.setInsertionPoint(yield);
  if (!isa_and_nonnull<tile::BarrierOp>(yield->getPrevNode()))
    tile::BarrierOp::create(builder, loc);
  for (auto [copy, tile] : llvm::zip_equal(plan.copies, staged))
    tile::StoreOp::create(builder, tile.getLoc(), tile,
                          tile::CopyOp(copy).getDest(), ValueRange{});
  for (tile::CopyOp copy : plan.copies)
    copy->erase();
  for (Operation *op : llvm::reverse(plan.slice))
    if (op->use_empty())
      op->erase();
  clearSchedule(loop);
}

/// The producer warpgroup's register budget, and the consumers' for
/// `threads` of them: what the register file leaves, at most 240.
constexpr int64_t kProducerRegisters = 40;
int64_t consumerRegisters(int64_t threads) {
  int64_t left =
      (tile::kRegisterFileSize - kProducerRegisters * tile::kProducerThreads) /
      threads;
  return std::min<int64_t>(240, left / 8 * 8);
}

/// The slot and parity (WarpSpecialize.h) of the iteration at `iv` of
/// `loop`, n = (iv - lb) / step.
std::pair<Value, Value> slotAndParity(OpBuilder &b, Location loc,
                                      scf::ForOp loop, Value iv, int64_t stages,
                                      int64_t shift) {
  Value n = arith::DivUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()),
      loop.getStep());
  return tile::ringSlotAndParity(b, loc, n, stages, shift);
}

/// Rings of `stages` slots in place of the buffers `plan` fills.
DenseMap<Value, Value> makeRings(const LoopPlan &plan, int64_t stages) {
  DenseMap<Value, Value> rings;
  for (tile::CopyOp copy : plan.copies) {
    auto alloc = copy.getDest().getDefiningOp<tile::AllocSharedOp>();
    OpBuilder atAlloc(alloc);
    tile::SharedType type = alloc.getType();
    rings[copy.getDest()] = tile::AllocSharedOp::create(
        atAlloc, alloc.getLoc(),
        tile::SharedType::get(type.getContext(), type.getShape(),
                              type.getElementType(), stages));
  }
  return rings;
}

/// Makes the loads of `body` from buffers that became `rings` read `slot`;
/// the old loads go to `dead`.
void readSlots(Block *body, const DenseMap<Value, Value> &rings, Value slot,
               SmallVectorImpl<Operation *> &dead) {
  for (Operation &op : body->without_terminator())
    if (auto load = dyn_cast<tile::LoadOp>(op))
      if (Value ring = rings.lookup(load.getSource())) {
        OpBuilder at(load);
        auto replacement =
            tile::LoadOp::create(at, load.getLoc(), load.getType(), ring,
                                 ValueRange{slot}, load.getPadAttr());
        load.replaceAllUsesWith(replacement.getResult());
        dead.push_back(load);
      }
}

/// Splits `loop`, a loop at the top level of its kernel, into the roles of
/// a tile.warp_specialize: a producer loop that waits for a slot's release
/// (the empty barrier), fills `stages`-slot rings asynchronously and
/// arrives on the slot's full barrier; and the kernel's threads as
/// consumers, running the loop and what follows it, each iteration waiting
/// for its fill, reading the slot and releasing it. The kernel's code
/// before the loop stays with every thread, but for what makes register
/// tiles (not constants) or touches memory, which moves to the consumers.
/// Gathering copies stay with the consumers, as written (the producer
/// issues boxes): the consumers then keep the loop's barriers.
LogicalResult specializeLoop(scf::ForOp loop, const LoopPlan &written,
                             int64_t stages) {
  LoopPlan plan = written;
  llvm::erase_if(plan.copies,
                 [](tile::CopyOp copy) { return bool(copy.getRows()); });
  bool consumersCopy = plan.copies.size() != written.copies.size();
  if (consumersCopy) {
    // The producer computes only what its copies need.
    llvm::SmallPtrSet<Operation *, 8> feeds;
    SmallVector<Value> worklist;
    for (tile::CopyOp copy : plan.copies)
      llvm::append_range(worklist, copy->getOperands());
    while (!worklist.empty())
      if (Operation *def = worklist.pop_back_val().getDefiningOp();
          def && llvm::is_contained(written.slice, def) &&
          feeds.insert(def).second)
        llvm::append_range(worklist, def->getOperands());
    llvm::erase_if(plan.slice, [&](Operation *op) { return !feeds.count(op); });
  }
  if (plan.copies.empty())
    return loop.emitError("tile-pipeline: warp specialization needs a copy "
                          "the producer can issue (every copy of the loop "
                          "gathers rows)");
  auto kernel = dyn_cast<tile::KernelOp>(loop->getParentOp());
  if (!kernel) {
    InFlightDiagnostic diag =
        loop.emitError("tile-pipeline: warp specialization needs the loop "
                       "at the top level of its kernel");
    if (auto outer = loop->getParentOfType<tile::KernelOp>();
        outer && tile::isPersistentKernel(outer))
      diag << " (run tile-persistent after tile-pipeline: it loops each "
              "role over the tiles)";
    return diag;
  }
  Block &top = kernel.getBody().front();
  if (!top.getOps<tile::WarpSpecializeOp>().empty())
    return loop.emitError("tile-pipeline: the kernel already has a "
                          "tile.warp_specialize; a kernel has one");
  int64_t threads = kernel.getThreads();
  if (threads % tile::kProducerThreads ||
      threads + tile::kProducerThreads > 1024)
    return loop.emitError("tile-pipeline: warp specialization needs a "
                          "kernel of whole warpgroups of at most ")
           << 1024 - tile::kProducerThreads << " threads, not " << threads;
  // What the producer needs from before the loop (the loop's bounds, the
  // copies' operands) stays with every thread; the rest of that code (but
  // allocations, constants and tag ops on what stays) moves to the
  // consumers, with the loop and what follows it.
  llvm::SmallPtrSet<Operation *, 16> needed;
  SmallVector<Value> worklist(loop.getOperands().take_front(3));
  for (Operation *op : plan.slice)
    llvm::append_range(worklist, op->getOperands());
  for (tile::CopyOp copy : plan.copies)
    llvm::append_range(worklist, copy->getOperands());
  // Scalar assumptions (on sizes, group counts: what the producer's
  // arithmetic may divide by) stay with every thread, with what they read.
  for (auto assume : top.getOps<tag::AssumeOp>())
    if (assume->isBeforeInBlock(loop) &&
        !isa<ShapedType>(assume.getCondition().getType()))
      worklist.push_back(assume.getCondition());
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != &top || !needed.insert(def).second)
      continue;
    if (!isMemoryEffectFree(def) &&
        !isa<tile::AllocSharedOp, tile::LoadOp, tile::DimOp>(def))
      return def->emitError("tile-pipeline: warp specialization needs this "
                            "op's result in the producer, but it has side "
                            "effects the producer's threads cannot repeat");
    llvm::append_range(worklist, def->getOperands());
  }
  SmallVector<Operation *> moved;
  llvm::SmallPtrSet<Operation *, 16> movedSet;
  for (Operation &op : top) {
    if (&op == loop.getOperation())
      break;
    bool stays = needed.contains(&op) || matchPattern(&op, m_Constant()) ||
                 isa<tile::AllocSharedOp, tile::AllocMbarrierOp>(op) ||
                 (isa<tag::TagDialect>(op.getDialect()) &&
                  llvm::none_of(op.getOperands(), [&](Value operand) {
                    return movedSet.contains(operand.getDefiningOp());
                  }));
    if (!stays) {
      moved.push_back(&op);
      movedSet.insert(&op);
    }
  }
  for (Operation *op = loop; op && !isa<tile::ReturnOp>(op);
       op = op->getNextNode()) {
    moved.push_back(op);
    movedSet.insert(op);
  }
  for (Operation *op : moved)
    for (Operation *user : op->getUsers())
      if (!movedSet.contains(top.findAncestorOpInBlock(*user)))
        return user->emitError("tile-pipeline: warp specialization moves ")
               << op->getName()
               << " to the consumers, but this op, which stays with every "
                  "thread, uses it";

  Location loc = loop.getLoc();
  MLIRContext *context = loop.getContext();
  OpBuilder builder(loop);
  DenseMap<Value, Value> rings = makeRings(plan, stages);
  auto barriers = tile::MbarrierType::get(context, stages);
  Value full = tile::AllocMbarrierOp::create(builder, loc, barriers,
                                             builder.getI64IntegerAttr(1));
  Value empty = tile::AllocMbarrierOp::create(builder, loc, barriers,
                                              builder.getI64IntegerAttr(1));
  auto roles = tile::WarpSpecializeOp::create(
      builder, loc, builder.getI64IntegerAttr(kProducerRegisters),
      builder.getI64IntegerAttr(consumerRegisters(threads)));
  Block *producer = &roles.getProducer().emplaceBlock();
  Block *consumer = &roles.getConsumer().emplaceBlock();

  // The producer: wait for the release, fill, arrive.
  OpBuilder p = OpBuilder::atBlockBegin(producer);
  auto fill = scf::ForOp::create(p, loc, loop.getLowerBound(),
                                 loop.getUpperBound(), loop.getStep());
  p.setInsertionPoint(fill.getBody()->getTerminator());
  auto [slot, released] =
      slotAndParity(p, loc, loop, fill.getInductionVar(), stages, 1);
  tile::MbarrierWaitOp::create(p, loc, empty, slot, released);
  issueCopies(p, loop, plan, rings, fill.getInductionVar(), slot);
  // The copies complete on the full barrier, not in a commit group.
  p.getInsertionBlock()->getTerminator()->getPrevNode()->erase();
  tile::MbarrierArriveOp::create(p, loc, full, slot);

  // The consumers: the loop and what follows, each iteration waiting for
  // its fill and releasing the slot.
  for (Operation *op : moved)
    op->moveBefore(consumer, consumer->end());
  Block *body = loop.getBody();
  OpBuilder c = OpBuilder::atBlockBegin(body);
  auto [readSlot, filled] =
      slotAndParity(c, loc, loop, loop.getInductionVar(), stages, 0);
  tile::MbarrierWaitOp::create(c, loc, full, readSlot, filled);
  SmallVector<Operation *> dead;
  readSlots(body, rings, readSlot, dead);
  for (Operation &op : body->without_terminator())
    if (isa<tile::BarrierOp>(op) && !consumersCopy)
      dead.push_back(&op);
  for (tile::CopyOp copy : plan.copies)
    dead.push_back(copy);
  for (Operation *op : dead)
    op->erase();
  for (Operation *op : llvm::reverse(plan.slice))
    if (op->use_empty())
      op->erase();
  c.setInsertionPoint(body->getTerminator());
  tile::MbarrierArriveOp::create(c, loc, empty, readSlot);
  for (auto &[buffer, ring] : rings)
    buffer.getDefiningOp()->erase();
  clearSchedule(loop);
  return success();
}

LogicalResult pipelineLoop(scf::ForOp loop, const ScheduleOptions &options,
                           bool warpSpecialize) {
  LoopPlan plan;
  if (failed(planLoop(loop, plan)))
    return failure();
  const TargetInfo *target = lookupTarget(options.chip);
  tile::PipelineAttr asked =
      tile::TileDialect::PipelineAttrHelper(loop.getContext()).getAttr(loop);
  if ((warpSpecialize || asked.getWarpSpecialize()) && target &&
      target->runsRoles())
    return specializeLoop(loop, plan, asked.getStages());
  if (target && target->asyncCopy == AsyncCopyKind::BufferToLds &&
      canStage(plan)) {
    stageLoop(loop, plan);
    return success();
  }
  if (llvm::none_of(loop.getBody()->without_terminator(),
                    [](Operation &op) {
                      return tile::TileDialect::StageAttrHelper(op.getContext())
                          .isAttrPresent(&op);
                    }) &&
      failed(scheduleLoop(loop, options)))
    return failure();
  // The solver may have chosen fewer stages than the policy allows; one
  // means the rings would not fit: the loop stays as written.
  auto policy = tile::TileDialect::PipelineAttrHelper(loop.getContext());
  int64_t stages = policy.getAttr(loop).getStages();
  if (stages == 1) {
    policy.removeAttr(loop);
    return success();
  }
  if (failed(checkSchedule(loop, plan, stages)))
    return failure();
  Location loc = loop.getLoc();
  OpBuilder builder(loop);

  // Rings replace the buffers.
  DenseMap<Value, Value> rings = makeRings(plan, stages);

  // Prologue: iterations 0 .. stages - 2 into slots 0 .. stages - 2.
  Value lb = loop.getLowerBound(), step = loop.getStep();
  for (int64_t j = 0; j + 1 < stages; ++j) {
    Value jv = arith::ConstantIndexOp::create(builder, loc, j);
    Value iv = arith::AddIOp::create(
        builder, loc, lb, arith::MulIOp::create(builder, loc, jv, step));
    issueCopies(builder, loop, plan, rings, iv, jv);
  }

  // Steady state: wait for this iteration's group, fence, prefetch.
  Block *body = loop.getBody();
  builder.setInsertionPointToStart(body);
  tile::AsyncWaitOp::create(builder, loc, stages - 2);
  tile::BarrierOp::create(builder, loc);
  Value k = loop.getInductionVar();
  Value sv = arith::ConstantIndexOp::create(builder, loc, stages);
  Value i = arith::DivUIOp::create(
      builder, loc, arith::SubIOp::create(builder, loc, k, lb), step);
  Value slot = arith::RemUIOp::create(builder, loc, i, sv);
  Value ahead = arith::ConstantIndexOp::create(builder, loc, stages - 1);
  Value nextSlot = arith::RemUIOp::create(
      builder, loc, arith::AddIOp::create(builder, loc, i, ahead), sv);
  Value nextIv = arith::AddIOp::create(
      builder, loc, k, arith::MulIOp::create(builder, loc, ahead, step));
  issueCopies(builder, loop, plan, rings, nextIv, nextSlot);

  // Loads read this iteration's slot; the old copies and barriers go.
  SmallVector<Operation *> dead;
  readSlots(body, rings, slot, dead);
  for (tile::CopyOp copy : plan.copies)
    dead.push_back(copy);
  bool first = true;
  for (Operation &op : body->without_terminator())
    if (isa<tile::BarrierOp>(op)) {
      if (!first)
        dead.push_back(&op);
      first = false;
    }
  for (Operation *op : dead)
    op->erase();
  // The offset arithmetic the old copies used is dead now.
  for (Operation *op : llvm::reverse(plan.slice))
    if (op->use_empty())
      op->erase();
  for (auto &[buffer, ring] : rings)
    buffer.getDefiningOp()->erase();

  builder.setInsertionPointAfter(loop);
  tile::AsyncWaitOp::create(builder, loc, 0);
  clearSchedule(loop);
  return success();
}

struct TilePipelinePass : tessera::impl::TilePipelineBase<TilePipelinePass> {
  using Base::Base;
  void runOnOperation() override {
    ScheduleOptions options{scheduler, resolveChip(getOperation(), chip),
                            maxSharedBytes, maxII, rlimit};
    if (failed(verifyScheduleOptions(getOperation().getLoc(), "tile-pipeline",
                                     options)))
      return signalPassFailure();
    for (scf::ForOp loop : getPipelinedLoops(getOperation())) {
      auto policy = tile::TileDialect::PipelineAttrHelper(&getContext());
      if (policy.getAttr(loop).getStages() == 1) {
        policy.removeAttr(loop);
        continue;
      }
      if (failed(pipelineLoop(loop, options, warpSpecialize)))
        return signalPassFailure();
    }
  }
};
} // namespace
