//===- WgmmaOverlap.cpp - One wgmma group in flight in K loops ------------===//
//
// A pipelined K loop on sm_90a (tile-pipeline's form, every copy into a
// tile.tma ring) reads, per iteration i,
//
//   async_wait; barrier; copies of iteration i + S - 1 into slot
//   (i + S - 1) mod S; commit; loads of slot i mod S; acc = mma(..., acc)
//
// and a wgmma whose group is waited for at once leaves the tensor cores
// idle while the next iteration's fills are waited for and issued. Where
// the accumulator only flows from one iteration's wgmma into the next
// one's, the loop is lowered as
//
//   async_wait; loads of slot i mod S; wgmma i; commit;
//   wait_group 1 (wgmma i - 1 is complete); barrier (in every warpgroup);
//   copies into slot (i + S - 1) mod S = (i - 1) mod S; commit
//
// and `wait_group 0` after the loop, before the accumulator is read. The
// copies move past the loads and the MMA, which is sound because they
// write other slots than the loads read: their slot is (j + c) mod S and
// the loads' (j + d) mod S, c - d not a multiple of S, recognized in the
// slot arithmetic. A TMA fill becomes visible to each thread through its
// own mbarrier wait (at the load), so the barrier that preceded the loads
// now serves the copies: every warpgroup's wgmma of iteration i - 1, the
// last reader of the slot the copies overwrite, is complete before it.
// Loops of any other form, and MMAs with A in registers, keep the plain
// order and wait_group 0.
//
// A warp-specialized consumer loop (wait for a fill; loads of TMA ring
// slots; the wgmma; releases of slots) keeps a group in flight the same
// way, its releases made one iteration late: iteration i releases the
// slots of i - 1 after `wait_group 1` retired that iteration's wgmma
// (TileToGPU.cpp's lowerFor carries the slots).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessera;

namespace {
/// A ring slot written as (base + offset) mod stages.
struct RingSlot {
  Value base;
  int64_t offset = 0, stages = 0;
};
} // namespace

/// `slot` as (base + offset) mod stages, if the slot arithmetic has that
/// form (tile-pipeline's remui of the iteration number, plus a constant).
static std::optional<RingSlot> matchRingSlot(Value slot) {
  auto rem = slot.getDefiningOp<arith::RemUIOp>();
  if (!rem)
    return std::nullopt;
  std::optional<int64_t> stages = getConstantIntValue(rem.getRhs());
  if (!stages || *stages <= 0)
    return std::nullopt;
  RingSlot ring{rem.getLhs(), 0, *stages};
  if (auto add = ring.base.getDefiningOp<arith::AddIOp>()) {
    for (auto [base, offset] : {std::pair(add.getLhs(), add.getRhs()),
                                std::pair(add.getRhs(), add.getLhs())})
      if (std::optional<int64_t> c = getConstantIntValue(offset)) {
        ring.base = base;
        ring.offset = *c;
        break;
      }
  }
  return ring;
}

/// Whether slots `a` and `b` of a ring are provably different.
static bool differentSlots(Value a, Value b) {
  std::optional<RingSlot> x = matchRingSlot(a), y = matchRingSlot(b);
  return x && y && x->base == y->base && x->stages == y->stages &&
         (x->offset - y->offset) % x->stages != 0;
}

/// Whether `mma` of `loop` may keep its group in flight: both operands
/// are `ringLoads` of TMA rings (a register A would have to stay live, and
/// unchanged, until the group completes, which costs registers the kernels
/// that gather A, the MoE blocks, need for occupancy), and the accumulator
/// flows from this iteration's wgmma to the next one's only (wgmma may
/// chain accumulators without a wait).
static bool chainsFromRings(scf::ForOp loop, tile::MmaOp mma,
                            ArrayRef<Operation *> ringLoads) {
  if (!llvm::is_contained(ringLoads, mma.getA().getDefiningOp()) ||
      !llvm::is_contained(ringLoads, mma.getB().getDefiningOp()))
    return false;
  Block *body = loop.getBody();
  auto iterArg = dyn_cast<BlockArgument>(mma.getAcc());
  if (!iterArg || iterArg.getOwner() != body || !iterArg.hasOneUse() ||
      !mma.getResult().hasOneUse())
    return false;
  OpOperand &yielded = *mma.getResult().getUses().begin();
  return yielded.getOwner() == body->getTerminator() &&
         loop.getRegionIterArgs()[yielded.getOperandNumber()] == iterArg;
}

/// The slot a ring load or copy names (null for a single buffer).
static Value slotOf(Operation *op) {
  if (auto load = dyn_cast<tile::LoadOp>(op))
    return load.getIndices().empty() ? Value() : load.getIndices()[0];
  return cast<tile::CopyOp>(op).getSlot();
}

tile::MmaOp GPULowering::planWgmmaOverlap(scf::ForOp loop,
                                          SmallVectorImpl<Operation *> &order) {
  if (isAmd() || target.asyncCopy != AsyncCopyKind::Tma)
    return {};
  Block *body = loop.getBody();
  tile::MmaOp mma;
  tile::BarrierOp barrier;
  SmallVector<Operation *> copies, ringLoads;
  for (Operation &op : body->without_terminator()) {
    if (auto m = dyn_cast<tile::MmaOp>(op)) {
      if (mma || m.getKind() != tile::MmaKind::wgmma)
        return {};
      mma = m;
    } else if (auto b = dyn_cast<tile::BarrierOp>(op)) {
      if (barrier || mma)
        return {};
      barrier = b;
    } else if (auto copy = dyn_cast<tile::CopyOp>(op)) {
      // Only TMA copies into TMA rings, between the barrier and the MMA (a
      // gathering copy's rows become visible at a barrier after its wait,
      // which the overlapped order moves past the loads).
      if (!barrier || mma || !isTmaBuffer(copy.getDest()) || !copy.getSlot() ||
          copy.getRows())
        return {};
      copies.push_back(copy);
    } else if (isa<tile::AsyncCommitOp>(op)) {
      if (!barrier || mma)
        return {};
      copies.push_back(&op);
    } else if (isa<tile::AsyncWaitOp>(op)) {
      if (barrier)
        return {};
    } else if (auto load = dyn_cast<tile::LoadOp>(op);
               load && isTmaBuffer(load.getSource())) {
      ringLoads.push_back(load);
    } else if (!isa<tile::LoadOp, tile::GatherOp>(op) &&
               !isMemoryEffectFree(&op)) {
      // Nothing else may touch shared memory (or synchronize).
      return {};
    }
  }
  if (!mma || !barrier || copies.empty() ||
      !chainsFromRings(loop, mma, ringLoads))
    return {};
  // Every copy writes another slot than every load of its ring reads.
  for (Operation *copy : copies) {
    auto c = dyn_cast<tile::CopyOp>(copy);
    if (!c)
      continue;
    for (Operation *load : ringLoads)
      if (cast<tile::LoadOp>(load).getSource() == c.getDest() &&
          !differentSlots(slotOf(c), slotOf(load)))
        return {};
  }
  for (Operation &op : body->without_terminator())
    if (&op != barrier && !llvm::is_contained(copies, &op))
      order.push_back(&op);
  order.push_back(barrier);
  llvm::append_range(order, copies);
  return mma;
}

tile::MmaOp GPULowering::planDeferredReleases(
    scf::ForOp loop, SmallVectorImpl<tile::MbarrierArriveOp> &releases) {
  Block *body = loop.getBody();
  tile::MmaOp mma;
  SmallVector<Operation *> ringLoads;
  for (Operation &op : body->without_terminator()) {
    if (auto m = dyn_cast<tile::MmaOp>(op)) {
      if (mma || m.getKind() != tile::MmaKind::wgmma)
        return {};
      mma = m;
    } else if (auto release = dyn_cast<tile::MbarrierArriveOp>(op)) {
      // Releases after the MMA, of barriers of 2 slots or more (with one
      // slot the next fill would wait for the release the consumers make
      // after waiting for that fill).
      if (!mma || release.getBarrier().getType().getSlots() < 2)
        return {};
      releases.push_back(release);
    } else if (isa<tile::MbarrierWaitOp>(op)) {
      if (mma)
        return {};
    } else if (auto load = dyn_cast<tile::LoadOp>(op);
               load && isTmaBuffer(load.getSource())) {
      ringLoads.push_back(load);
    } else if (!isMemoryEffectFree(&op)) {
      return {};
    }
  }
  if (!mma || releases.empty() || !chainsFromRings(loop, mma, ringLoads)) {
    releases.clear();
    return {};
  }
  return mma;
}
