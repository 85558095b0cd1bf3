//===- FuseRoles.cpp - Warp-specialized roles as one loop -----------------===//
//
// The protocol a `tile.warp_specialize` must follow, and the interleaved
// loop that stands for it (WarpSpecialize.h). Both roles have one main loop
// over the same range; iteration n of each is the n-th of the other's. In
// it, for every mbarrier array B of S slots:
//  - one role arrives on B (as many times per iteration as B counts
//    arrivals per phase) and the other waits on it once, all at the top
//    level of the loop body (an arrival or wait under a condition, or
//    outside the loop, is refused);
//  - every arrival and wait uses slot n mod S;
//  - a *full* barrier (the producer arrives, the consumers wait): the
//    consumers wait for the phase of parity (n div S) mod 2, the one the
//    producer's arrival of iteration n completes;
//  - an *empty* barrier (the consumers arrive, the producer waits): the
//    producer waits for parity (n div S + 1) mod 2, the phase the
//    consumers' arrival of iteration n - S completed (for n < S, the
//    phase before the first, complete from the start).
// Rings handed over: the producer only fills them (asynchronous copies
// after its wait on an empty barrier, before its arrival on a full one),
// the consumers only load them (after their wait on that full barrier,
// before their arrival on that empty one), each access at slot n mod S,
// and the ring has as many stages as its barriers slots.
//
// In a persistent kernel each role's main loop sits in a tile loop over
// the same tiles, which carries from 0 the count of the main loop's
// iterations (the main loop continues it by 1 an iteration): n is that
// count, the role's iteration over all tiles, equal in both roles. The
// interleaved form then has one tile loop around the interleaved main
// loop. On the ping-pong schedule two consumer warpgroups take the tiles
// alternately, each counting the other's iterations too, and run their
// main loops in tile order (the sm_90a lowering's turns): the consumers'
// iterations over all tiles are then the same sequence as one set's, and
// the same interleaved form stands for them.
//
// These make the concurrent execution read, at consumer iteration n, what
// the producer's iteration n wrote, and never wait for an arrival that
// does not come: running the producer's iteration n and then the
// consumers' is an execution the concurrent one is equivalent to. The
// structure is checked here (an error names the op); the slot and parity
// equalities are `tag.assert`s in the checked form, which tag-check proves
// for every n and every shape or refutes with a counterexample.
//
//===----------------------------------------------------------------------===//

#include "Fuser.h"

#include "tessera/Dialect/Tag/TagDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tile;

using namespace tessera::tile::fusion;

const char *fusion::roleName(RoleKind role) {
  return role == Producer ? "producer" : "consumer";
}

static bool sameIndex(Value a, Value b) {
  if (a == b)
    return true;
  std::optional<int64_t> x = getConstantIntValue(a), y = getConstantIntValue(b);
  return x && y && *x == *y;
}

static bool isRing(Value memory) {
  auto shared = dyn_cast<SharedType>(memory.getType());
  return shared && shared.isRing();
}

static bool hasMbarrierOps(Block *block) {
  return llvm::any_of(*block, llvm::IsaPred<MbarrierArriveOp, MbarrierWaitOp>);
}

LogicalResult Fuser::findLoop(RoleKind role) {
  Region &region = role == Producer ? op.getProducer() : op.getConsumer();
  auto single = [&](Block &block) -> FailureOr<scf::ForOp> {
    scf::ForOp found;
    for (Operation &inner : block) {
      auto loop = dyn_cast<scf::ForOp>(inner);
      if (!loop)
        continue;
      if (found)
        return loop.emitOpError()
               << "is a second loop at the top level of the " << roleName(role)
               << " role" << (&block == &region.front() ? "" : "'s tile loop")
               << "; a role has one main loop";
      found = loop;
    }
    return found;
  };
  FailureOr<scf::ForOp> top = single(region.front());
  if (failed(top))
    return failure();
  if (!*top)
    return op.emitOpError() << "has no scf.for at the top level of its "
                            << roleName(role) << " role (its main loop)";
  loops[role] = *top;
  // A persistent kernel's role: a tile loop around the main loop.
  if (hasMbarrierOps(top->getBody()))
    return success();
  FailureOr<scf::ForOp> inner = single(*top->getBody());
  if (failed(inner))
    return failure();
  if (!*inner || !hasMbarrierOps(inner->getBody()))
    return success();
  tileLoops[role] = *top;
  loops[role] = *inner;
  return checkCounting(role);
}

/// The tile loop carries, from 0, the count of the main loop's iterations
/// over the tiles before; the main loop continues it by one an iteration
/// (tile-persistent's form). Iteration n of a tile's main loop is then
/// iteration `counter` of the role, the same in both roles.
LogicalResult Fuser::checkCounting(RoleKind role) {
  scf::ForOp tiles = tileLoops[role], main = loops[role];
  auto tileYield = cast<scf::YieldOp>(tiles.getBody()->getTerminator());
  auto mainYield = cast<scf::YieldOp>(main.getBody()->getTerminator());
  for (auto [i, counter] : llvm::enumerate(main.getRegionIterArgs())) {
    auto base = dyn_cast<BlockArgument>(main.getInitArgs()[i]);
    if (!base || base.getOwner() != tiles.getBody() || base.getArgNumber() == 0)
      continue;
    unsigned slot = base.getArgNumber() - 1;
    auto next = mainYield.getOperand(i).getDefiningOp<arith::AddIOp>();
    std::optional<int64_t> zero =
        getConstantIntValue(tiles.getInitArgs()[slot]);
    std::optional<int64_t> one =
        next ? getConstantIntValue(next.getLhs() == counter ? next.getRhs()
                                                            : next.getLhs())
             : std::nullopt;
    if (zero == 0 && one == 1 &&
        (next.getLhs() == counter || next.getRhs() == counter) &&
        tileYield.getOperand(slot) == main.getResult(i)) {
      bases[role] = base;
      counters[role] = counter;
      return success();
    }
  }
  return tiles.emitOpError()
         << "loops over tiles around the " << roleName(role)
         << " role's main loop without counting that loop's iterations from "
            "tile to tile (an iteration argument from 0 that the main loop "
            "continues by 1 an iteration), which the ring slots and "
            "barrier phases follow";
}

LogicalResult Fuser::collectBarriers(RoleKind role) {
  Block *body = loops[role].getBody();
  Region &region = role == Producer ? op.getProducer() : op.getConsumer();
  WalkResult walk = region.walk([&](Operation *inner) {
    if (!isa<MbarrierArriveOp, MbarrierWaitOp>(inner))
      return WalkResult::advance();
    if (inner->getBlock() != body) {
      inner->emitOpError() << "outside the top level of the " << roleName(role)
                           << " role's loop: a role waits and arrives "
                              "once per iteration of its loop, "
                              "unconditionally";
      return WalkResult::interrupt();
    }
    if (auto arrive = dyn_cast<MbarrierArriveOp>(inner))
      barriers[arrive.getBarrier()].arrives[role].push_back(arrive);
    else {
      auto wait = cast<MbarrierWaitOp>(inner);
      barriers[wait.getBarrier()].waits[role].push_back(wait);
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult Fuser::checkBarriers() {
  for (auto &[barrier, use] : barriers) {
    auto alloc = barrier.getDefiningOp<AllocMbarrierOp>();
    Operation *first = !use.arrives[0].empty()   ? use.arrives[0][0]
                       : !use.arrives[1].empty() ? use.arrives[1][0]
                       : !use.waits[0].empty() ? use.waits[0][0].getOperation()
                                               : use.waits[1][0].getOperation();
    if (!alloc)
      return first->emitOpError("on an mbarrier array that is not a "
                                "tile.alloc_mbarrier of the kernel");
    // One role arrives, the other waits once.
    int arriver = use.arrives[Producer].empty() ? Consumer : Producer;
    int waiter = 1 - arriver;
    if (use.arrives[arriver].empty() || !use.arrives[waiter].empty() ||
        use.waits[waiter].size() != 1 || !use.waits[arriver].empty())
      return first->emitOpError(
          "on a barrier the roles do not hand over: one role must arrive "
          "on it and the other wait on it, once per iteration");
    if (alloc.getCluster()) {
      usesCluster = true;
      if (arriver != Consumer)
        return alloc.emitOpError(
            "is a cluster mbarrier array the producer arrives on: cluster "
            "arrays are the consumers' releases of slots that every "
            "program's multicast copies fill");
    }
    int64_t count = use.arrives[arriver].size();
    if (count != alloc.getArrivals())
      return alloc.emitOpError()
             << "counts " << alloc.getArrivals()
             << " arrivals per phase, but the " << roleName(RoleKind(arriver))
             << " arrives on it "
             << (count == 1 ? std::string("once")
                            : std::to_string(count) + " times")
             << " per iteration";
  }
  return success();
}

LogicalResult Fuser::collectRings(RoleKind role) {
  Region &region = role == Producer ? op.getProducer() : op.getConsumer();
  Block *body = loops[role].getBody();
  WalkResult walk =
      region.walk([&](Operation *inner) {
        Value ring;
        for (Value operand : inner->getOperands())
          if (isRing(operand))
            ring = operand;
        if (!ring)
          return WalkResult::advance();
        bool allowed = false;
        if (auto copy = dyn_cast<CopyOp>(inner))
          allowed =
              role == Producer && copy.getAsync() && copy.getDest() == ring;
        else if (auto load = dyn_cast<LoadOp>(inner))
          allowed = role == Consumer && load.getSource() == ring;
        if (!allowed || inner->getBlock() != body) {
          inner->emitOpError()
              << "on a ring the roles hand over: the producer only fills such "
                 "rings (asynchronous copies) and the consumers only load "
                 "them, at the top level of their loops";
          return WalkResult::interrupt();
        }
        RingAccess access{inner, {}, {}};
        for (Operation *prev = inner->getPrevNode(); prev;
             prev = prev->getPrevNode())
          if (auto wait = dyn_cast<MbarrierWaitOp>(prev))
            access.before.push_back(wait.getBarrier());
        for (Operation *next = inner->getNextNode(); next;
             next = next->getNextNode())
          if (auto arrive = dyn_cast<MbarrierArriveOp>(next)) {
            access.after.push_back(arrive.getBarrier());
            if (role == Producer)
              break;
          }
        if (access.before.empty() || access.after.empty()) {
          inner->emitOpError()
              << (role == Producer ? "fills" : "reads")
              << " a ring slot without "
              << (access.before.empty() ? "a wait for the slot before it"
                                        : "an arrival after it")
              << " in the " << roleName(role) << " role's loop";
          return WalkResult::interrupt();
        }
        rings[role][ring].push_back(access);
        return WalkResult::advance();
      });
  return failure(walk.wasInterrupted());
}

LogicalResult Fuser::checkRings() {
  for (auto &[ring, fills] : rings[Producer]) {
    SmallVector<RingAccess> reads = rings[Consumer].lookup(ring);
    int64_t stages = cast<SharedType>(ring.getType()).getStages();
    for (const RingAccess &fill : fills) {
      // A multicast fill writes every program's slot: each program's
      // producer waits until every program released it.
      if (cast<CopyOp>(fill.op).getMulticast()) {
        usesCluster = true;
        for (Value empty : fill.before)
          if (!barriers.lookup(empty).arrives[Consumer].empty() &&
              !empty.getDefiningOp<AllocMbarrierOp>().getCluster())
            return fill.op->emitOpError(
                "multicasts into a ring slot whose release is not a "
                "cluster mbarrier array: another program's copy could "
                "overwrite the slot before this program's consumers "
                "released it");
      }
      // Producer: wait empty, fill, arrive full; consumers: wait full,
      // read, arrive empty.
      Value full = fill.after.front();
      SmallVector<Value> around(fill.before);
      around.push_back(full);
      for (Value barrier : around)
        if (cast<MbarrierType>(barrier.getType()).getSlots() != stages)
          return fill.op->emitOpError()
                 << "fills a ring of " << stages
                 << " stages handed over with barriers of "
                 << cast<MbarrierType>(barrier.getType()).getSlots()
                 << " slots";
      for (const RingAccess &read : reads) {
        if (!llvm::is_contained(read.before, full))
          return read.op->emitOpError(
              "reads a ring slot without waiting for the barrier the "
              "producer's fill of it arrives on");
        if (llvm::none_of(fill.before, [&](Value empty) {
              return llvm::is_contained(read.after, empty);
            }))
          return read.op->emitOpError(
              "reads a ring slot that the producer refills without waiting "
              "for the consumers' release of it: no barrier the producer "
              "waits on before the fill is arrived on after the read");
      }
    }
  }
  for (auto &[ring, reads] : rings[Consumer])
    if (!rings[Producer].count(ring))
      return reads.front().op->emitOpError(
          "reads a ring the producer does not fill");
  return success();
}

bool Fuser::equivalent(Value a, Value b, int depth) {
  if (sameIndex(a, b))
    return true;
  if (tileLoops[Producer] && ((a == tileLoops[Producer].getInductionVar() &&
                               b == tileLoops[Consumer].getInductionVar()) ||
                              (a == bases[Producer] && b == bases[Consumer])))
    return true;
  Operation *x = a.getDefiningOp(), *y = b.getDefiningOp();
  if (!depth || !x || !y || x->getName() != y->getName() ||
      x->getAttrDictionary() != y->getAttrDictionary() ||
      !isMemoryEffectFree(x) || x->getNumRegions() ||
      x->getNumOperands() != y->getNumOperands() ||
      cast<OpResult>(a).getResultNumber() !=
          cast<OpResult>(b).getResultNumber())
    return false;
  return llvm::all_of_zip(
      x->getOperands(), y->getOperands(),
      [&](Value u, Value v) { return equivalent(u, v, depth - 1); });
}

LogicalResult Fuser::analyze() {
  if (failed(findLoop(Producer)) || failed(findLoop(Consumer)))
    return failure();
  if (op.getPingpong() && !tileLoops[Consumer])
    return op.emitOpError(
        "takes the ping-pong schedule, in which the consumer warpgroups own "
        "alternate tiles of a persistent kernel, but its roles do not loop "
        "over tiles (run tile-persistent)");
  if (!tileLoops[Producer] != !tileLoops[Consumer])
    return op.emitOpError()
           << "loops over tiles in its "
           << roleName(tileLoops[Producer] ? Producer : Consumer)
           << " role only; both roles run their main loop for every tile";
  for (scf::ForOp *pair : {tileLoops, loops}) {
    scf::ForOp p = pair[Producer], c = pair[Consumer];
    if (!p)
      continue;
    if (!equivalent(p.getLowerBound(), c.getLowerBound()) ||
        !equivalent(p.getUpperBound(), c.getUpperBound()) ||
        !equivalent(p.getStep(), c.getStep()))
      return c.emitOpError()
             << "runs over another range than the producer's "
             << (pair == tileLoops ? "tile " : "") << "loop: the roles' "
             << (pair == tileLoops ? "tile " : "")
             << "loops take the same lower bound, upper bound and step";
  }
  if (failed(collectBarriers(Producer)) || failed(collectBarriers(Consumer)) ||
      failed(checkBarriers()) || failed(collectRings(Producer)) ||
      failed(collectRings(Consumer)) || failed(checkRings()))
    return failure();
  return success();
}

std::pair<Value, Value> tile::ringSlotAndParity(OpBuilder &b, Location loc,
                                                Value n, int64_t slots,
                                                int64_t shift) {
  Value count = arith::ConstantIndexOp::create(b, loc, slots);
  Value slot = arith::RemUIOp::create(b, loc, n, count);
  Value phase = arith::DivUIOp::create(b, loc, n, count);
  if (shift)
    phase = arith::AddIOp::create(
        b, loc, phase, arith::ConstantIndexOp::create(b, loc, shift));
  Value parity = arith::IndexCastOp::create(b, loc, b.getI1Type(), phase);
  return {slot, parity};
}

void Fuser::addObligations(OpBuilder &b, Operation *clone, Operation *original,
                           RoleKind role, Value n) {
  Location loc = original->getLoc();
  b.setInsertionPoint(clone);
  auto check = [&](Value got, Value want, const Twine &message) {
    Value same =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, got, want);
    tag::AssertOp::create(b, loc, same, b.getStringAttr(message));
  };
  auto slotsOf = [](Value barrier) {
    return cast<MbarrierType>(barrier.getType()).getSlots();
  };
  if (auto arrive = dyn_cast<MbarrierArriveOp>(clone)) {
    int64_t slots = slotsOf(arrive.getBarrier());
    Value slot = ringSlotAndParity(b, loc, n, slots, 0).first;
    check(arrive.getSlot(), slot,
          Twine("the ") + roleName(role) + "'s arrival of iteration n is on " +
              "slot n mod " + Twine(slots));
  } else if (auto wait = dyn_cast<MbarrierWaitOp>(clone)) {
    // The consumers wait for the producer's arrival of this iteration; the
    // producer for the consumers' of iteration n - S.
    int64_t slots = slotsOf(wait.getBarrier());
    int64_t shift = role == Consumer ? 0 : 1;
    auto [slot, parity] = ringSlotAndParity(b, loc, n, slots, shift);
    check(wait.getSlot(), slot,
          Twine("the ") + roleName(role) + "'s wait of iteration n is on " +
              "slot n mod " + Twine(slots));
    check(wait.getParity(), parity,
          Twine("the ") + roleName(role) + "'s wait of iteration n is for " +
              "the phase of parity " +
              (role == Consumer ? "(n div S) mod 2, which the producer's "
                                  "arrival of iteration n completes"
                                : "(n div S + 1) mod 2, which the "
                                  "consumers' arrival of iteration n - S "
                                  "completed") +
              " (S = " + Twine(slots) + ")");
  } else {
    Value ring = isa<CopyOp>(original) ? cast<CopyOp>(original).getDest()
                                       : cast<LoadOp>(original).getSource();
    int64_t stages = cast<SharedType>(ring.getType()).getStages();
    Value slot = isa<CopyOp>(clone) ? cast<CopyOp>(clone).getSlot()
                                    : cast<LoadOp>(clone).getIndices()[0];
    Value want = ringSlotAndParity(b, loc, n, stages, 0).first;
    check(slot, want,
          Twine("the ") + roleName(role) + "'s " +
              (role == Producer ? "fill" : "read") +
              " of iteration n is of ring slot n mod " + Twine(stages));
  }
}

static void cloneRange(RewriterBase &rewriter, Operation *from, Operation *to,
                       IRMapping &map) {
  for (Operation *it = from; it != to; it = it->getNextNode())
    rewriter.clone(*it, map);
}

scf::ForOp fusion::createFusedLoop(RewriterBase &rewriter, scf::ForOp p,
                                   scf::ForOp c, IRMapping &map) {
  SmallVector<Value> inits;
  for (scf::ForOp loop : {p, c})
    for (Value init : loop.getInitArgs())
      inits.push_back(map.lookupOrDefault(init));
  auto fused = scf::ForOp::create(rewriter, c.getLoc(),
                                  map.lookupOrDefault(c.getLowerBound()),
                                  map.lookupOrDefault(c.getUpperBound()),
                                  map.lookupOrDefault(c.getStep()), inits);
  Block *body = fused.getBody();
  body->getArgument(0).setLoc(c.getInductionVar().getLoc());
  unsigned next = 1;
  for (scf::ForOp loop : {p, c}) {
    map.map(loop.getInductionVar(), fused.getInductionVar());
    for (BlockArgument arg : loop.getRegionIterArgs()) {
      body->getArgument(next).setLoc(arg.getLoc());
      map.map(arg, body->getArgument(next++));
    }
  }
  if (!body->empty())
    rewriter.eraseOp(body->getTerminator());
  rewriter.setInsertionPointToStart(body);
  return fused;
}

void fusion::mapFusedResults(scf::ForOp p, scf::ForOp c, scf::ForOp fused,
                             IRMapping &map) {
  unsigned next = 0;
  for (scf::ForOp loop : {p, c})
    for (Value result : loop.getResults())
      map.map(result, fused.getResult(next++));
}

LogicalResult Fuser::fuseMain(RewriterBase &rewriter, FuseMode mode,
                              IRMapping &map) {
  Location loc = op.getLoc();
  scf::ForOp p = loops[Producer], c = loops[Consumer];
  auto kernel = op->getParentOfType<KernelOp>();
  // Programs of a cluster that multicast copies or arrive on each other's
  // barriers run the loop over the same range.
  if (mode == FuseMode::Checked && usesCluster &&
      failed(assertClusterUniform(
          rewriter, c.getLoc(), kernel, uniformIVs(c.getInductionVar()),
          {{map.lookupOrDefault(c.getLowerBound()),
            "the roles' loops' lower bound"},
           {map.lookupOrDefault(c.getUpperBound()),
            "the roles' loops' upper bound"},
           {map.lookupOrDefault(c.getStep()), "the roles' loops' step"}})))
    return failure();
  if (ahead) {
    fuseMainAhead(rewriter, map);
    return success();
  }
  scf::ForOp fused = createFusedLoop(rewriter, p, c, map);
  // Attributes of the consumers' loop (the computation's policies) stay.
  for (NamedAttribute attr : c->getDiscardableAttrs())
    fused->setAttr(attr.getName(), attr.getValue());
  Block *body = fused.getBody();
  Value n;
  if (tileLoops[Producer]) {
    // The role's count of iterations over all tiles, the same in both.
    n = body->getArgument(counters[Producer].getArgNumber());
  } else if (mode == FuseMode::Checked) {
    Value offset = arith::SubIOp::create(rewriter, loc, fused.getInductionVar(),
                                         fused.getLowerBound());
    n = arith::DivUIOp::create(rewriter, loc, offset, fused.getStep());
  }
  SmallVector<Value> yields;
  for (RoleKind role : {Producer, Consumer}) {
    scf::ForOp loop = loops[role];
    if (role == Consumer && n && counters[Consumer])
      map.map(counters[Consumer], n);
    for (Operation &inner : loop.getBody()->without_terminator()) {
      Operation *clone = rewriter.clone(inner, map);
      if (mode == FuseMode::Plain)
        continue;
      auto copy = dyn_cast<CopyOp>(clone);
      if (mode == FuseMode::Checked && copy && copy.getMulticast()) {
        // Every program of the cluster copies this window.
        OpBuilder b(clone);
        SmallVector<std::pair<Value, std::string>> offsets;
        for (auto [i, offset] : llvm::enumerate(copy.getOffsets()))
          offsets.push_back(
              {offset, "offset " + std::to_string(i) + " of a multicast copy"});
        if (failed(assertClusterUniform(b, inner.getLoc(), kernel,
                                        uniformIVs(fused.getInductionVar()),
                                        offsets)))
          return failure();
      }
      bool ringAccess = llvm::any_of(rings[role], [&](auto &entry) {
        return llvm::any_of(entry.second, [&](const RingAccess &access) {
          return access.op == &inner;
        });
      });
      if (mode == FuseMode::Checked &&
          (isa<MbarrierArriveOp, MbarrierWaitOp>(inner) || ringAccess)) {
        OpBuilder b(clone);
        addObligations(b, clone, &inner, role, n);
      }
      // The hand-over as the synchronisation the checker models.
      OpBuilder after(clone->getContext());
      after.setInsertionPointAfter(clone);
      Location at = inner.getLoc();
      if (isa<MbarrierArriveOp>(inner)) {
        if (role == Producer)
          AsyncCommitOp::create(after, at);
        else
          BarrierOp::create(after, at);
      } else if (isa<MbarrierWaitOp>(inner) && role == Consumer) {
        AsyncWaitOp::create(after, at, 0);
        BarrierOp::create(after, at);
      }
      if (isa<MbarrierArriveOp, MbarrierWaitOp>(inner))
        rewriter.eraseOp(clone);
    }
    for (Value yielded : loop.getBody()->getTerminator()->getOperands())
      yields.push_back(map.lookupOrDefault(yielded));
  }
  rewriter.setInsertionPointToEnd(body);
  scf::YieldOp::create(rewriter, c.getLoc(), yields);
  mapFusedResults(p, c, fused, map);
  rewriter.setInsertionPointAfter(fused);
  return success();
}

void Fuser::cloneConsumerPrologue(RewriterBase &rewriter, Operation *from,
                                  Operation *to, ArrayRef<Operation *> shared,
                                  IRMapping &map) {
  for (Operation *it = from; it != to; it = it->getNextNode()) {
    Operation *same = nullptr;
    if (isMemoryEffectFree(it) && !it->getNumRegions())
      for (Operation *clone : shared)
        if (clone->getName() == it->getName() &&
            clone->getAttrDictionary() == it->getAttrDictionary() &&
            clone->getResultTypes() == it->getResultTypes() &&
            llvm::equal(clone->getOperands(),
                        llvm::map_range(it->getOperands(), [&](Value v) {
                          return map.lookupOrDefault(v);
                        }))) {
          same = clone;
          break;
        }
    if (same)
      map.map(it->getResults(), same->getResults());
    else
      rewriter.clone(*it, map);
  }
}

LogicalResult Fuser::fuse(RewriterBase &rewriter, FuseMode mode,
                          IRMapping &map) {
  rewriter.setInsertionPoint(op);
  Block &producer = op.getProducer().front(),
        &consumer = op.getConsumer().front();
  bool tiled = bool(tileLoops[Producer]);
  ahead = mode == FuseMode::Synchronized ? lookahead() : 0;
  scf::ForOp p = tiled ? tileLoops[Producer] : loops[Producer],
             c = tiled ? tileLoops[Consumer] : loops[Consumer];
  cloneRange(rewriter, &producer.front(), p, map);
  cloneRange(rewriter, &consumer.front(), c, map);
  if (!tiled) {
    if (failed(fuseMain(rewriter, mode, map)))
      return failure();
  } else {
    // One tile loop: both roles' code before their main loops (the
    // consumers' reusing the producer's tile coordinates and offsets),
    // the interleaved main loop, then both roles' code after it.
    // The programs of a cluster walk the same tiles in step.
    if (mode == FuseMode::Checked && usesCluster &&
        failed(assertClusterUniform(rewriter, c.getLoc(),
                                    op->getParentOfType<KernelOp>(), {},
                                    {{map.lookupOrDefault(c.getLowerBound()),
                                      "the roles' tile loops' lower bound"},
                                     {map.lookupOrDefault(c.getUpperBound()),
                                      "the roles' tile loops' upper bound"},
                                     {map.lookupOrDefault(c.getStep()),
                                      "the roles' tile loops' step"}})))
      return failure();
    scf::ForOp tiles = createFusedLoop(rewriter, p, c, map);
    fusedTile = tiles.getInductionVar();
    map.map(bases[Consumer], map.lookup(bases[Producer]));
    // The synchronized pipeline drains its rings at the end of every tile,
    // so each tile's iterations may count from 0: slot 0 first.
    if (ahead) {
      Value zero =
          arith::ConstantIndexOp::create(rewriter, bases[Producer].getLoc(), 0);
      map.map(bases[Producer], zero);
      map.map(bases[Consumer], zero);
    }
    if (mode == FuseMode::Checked) {
      // A count of iterations is far from wrapping around: at one
      // iteration a nanosecond, 2^62 take 146 years.
      Location at = bases[Producer].getLoc();
      Value limit = arith::ConstantIndexOp::create(rewriter, at, 1LL << 62);
      Value below =
          arith::CmpIOp::create(rewriter, at, arith::CmpIPredicate::ult,
                                map.lookup(bases[Producer]), limit);
      tag::AssumeOp::create(
          rewriter, at, below,
          rewriter.getStringAttr("a role counts fewer than 2^62 iterations"));
    }
    SmallVector<Operation *> producerClones;
    for (Operation *it = &p.getBody()->front(); it != loops[Producer];
         it = it->getNextNode())
      producerClones.push_back(rewriter.clone(*it, map));
    cloneConsumerPrologue(rewriter, &c.getBody()->front(), loops[Consumer],
                          producerClones, map);
    if (failed(fuseMain(rewriter, mode, map)))
      return failure();
    cloneRange(rewriter, loops[Producer]->getNextNode(),
               p.getBody()->getTerminator(), map);
    cloneRange(rewriter, loops[Consumer]->getNextNode(),
               c.getBody()->getTerminator(), map);
    SmallVector<Value> yields;
    for (scf::ForOp loop : {p, c})
      for (Value yielded : loop.getBody()->getTerminator()->getOperands())
        yields.push_back(map.lookupOrDefault(yielded));
    scf::YieldOp::create(rewriter, c.getLoc(), yields);
    mapFusedResults(p, c, tiles, map);
  }
  rewriter.setInsertionPoint(op);
  cloneRange(rewriter, p->getNextNode(), nullptr, map);
  cloneRange(rewriter, c->getNextNode(), nullptr, map);
  rewriter.eraseOp(op);
  return success();
}

LogicalResult tile::fuseWarpSpecialize(WarpSpecializeOp op,
                                       RewriterBase &rewriter, FuseMode mode,
                                       IRMapping *clones) {
  Fuser fuser(op);
  if (failed(fuser.analyze()))
    return failure();
  IRMapping map;
  return fuser.fuse(rewriter, mode, clones ? *clones : map);
}
