//===- WarpSpecialize.cpp - Producer and consumer roles on sm_90a ---------===//
//
// tile.warp_specialize on sm_90a. The kernel's `threads` (the consumers)
// keep thread ids 0 .. T - 1, so that every layout is the one the kernel
// was written for; the producer warpgroup is launched after them (T .. T +
// 127). Before the roles split, all threads run the kernel's code; then
//
//   producer warpgroup: setmaxnreg.dec P; its first thread runs the
//     producer region (the other 127 threads have nothing to do and exit);
//   consumers: setmaxnreg.inc C; the consumer region, in which a
//     tile.barrier is the named barrier `bar.sync 1, T` among them only.
//
// tile.alloc_mbarrier places `slots` mbarriers (8 bytes each) in shared
// memory and thread 0 initializes them before the split, with the count of
// arrivals the role that arrives makes per tile-level arrival: 1 for the
// producer's single thread, T for the consumers (every consumer thread
// arrives once its own reads are done). A wait spins on
// mbarrier.try_wait.parity. The producer's copy into a TMA ring slot adds
// its bytes to the transaction count of the barrier its next arrival names
// (mbarrier.expect_tx) and completes on it, so that the phase completes
// once the arrival is made and every copy has landed; without a tensor map
// the thread copies the tile itself and fences it for the async proxy,
// before the same arrival. A consumer's arrival follows its wgmmas'
// wait_group 0 (the MMAs reading the slot have retired).
//
// Ping-pong (`pingpong`): two consumer sets of T threads (ids 0 .. 2T - 1,
// the producer after them), each laying tiles out with its own warps from
// 0, meeting at its own named barrier and writing its own copy of the
// consumers' shared buffers; they take the tile loop's iterations
// alternately and run their main loops in turn (lowerPingPongTiles).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace tessera;

/// The named barrier the consumers meet at (0 is the block's); ping-pong
/// consumer set g meets at kConsumerBarrier + g, and waits for its turn to
/// run a main loop at kOrderBarrier + g.
static constexpr int32_t kConsumerBarrier = 1;
static constexpr int32_t kOrderBarrier = 3;

/// Whether an mbarrier array's arrivals come from the consumer region.
static bool arrivedByConsumers(tile::AllocMbarrierOp alloc) {
  for (Operation *user : alloc->getUsers())
    if (isa<tile::MbarrierArriveOp>(user))
      if (auto roles = user->getParentOfType<tile::WarpSpecializeOp>())
        return roles.getConsumer().isAncestor(user->getParentRegion());
  return false;
}

bool GPULowering::filledByProducer(Value buffer) {
  return llvm::any_of(buffer.getUsers(), [](Operation *user) {
    auto roles = user->getParentOfType<tile::WarpSpecializeOp>();
    return isa<tile::CopyOp>(user) && roles &&
           roles.getProducer().isAncestor(user->getParentRegion());
  });
}

LogicalResult GPULowering::lowerAllocMbarrier(tile::AllocMbarrierOp op) {
  if (isAmd() || target.asyncCopy != AsyncCopyKind::Tma)
    return op.emitOpError("needs sm_90a's mbarriers, not ") << target.chip;
  int64_t slots = op.getType().getSlots();
  int64_t offset = llvm::alignTo(sharedBytes, 8);
  sharedBytes = offset + 8 * slots;
  mbarrierOffsets[op.getResult()] = offset;
  // Nothing reads the array through a memref; map it to the shared base.
  mapping.map(op.getResult(), dynamicSharedMemory());
  int64_t count = op.getArrivals() *
                  (arrivedByConsumers(op) ? kernel.getThreads() : int64_t(1)) *
                  (op.getCluster() ? tile::clusterBlocks(kernel) : int64_t(1));
  auto init = scf::IfOp::create(builder, loc, isThreadZero());
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(init.thenBlock());
    for (int64_t i = 0; i < slots; ++i)
      NVVM::MBarrierInitOp::create(builder, loc,
                                   sharedPointer(sharedAddress(offset + 8 * i)),
                                   index32(count), Value());
  }
  // The initialization is visible to every thread before the roles split.
  gpu::BarrierOp::create(builder, loc);
  return success();
}

Value GPULowering::mbarrierPointer(Value barrier, Value slot) {
  return mbarrierAt(barrier, mapping.lookup(slot));
}

Value GPULowering::mbarrierAt(Value barrier, Value slot) {
  Value offset = arith::MulIOp::create(
      builder, loc,
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), slot),
      arith::ConstantIntOp::create(builder, loc, builder.getI64Type(), 8));
  return sharedPointer(arith::AddIOp::create(
      builder, loc, sharedAddress(mbarrierOffsets.at(barrier)), offset));
}

void GPULowering::spinOnParity(Value barrier, Value parity, bool cluster) {
  auto spin = scf::WhileOp::create(builder, loc, TypeRange{}, ValueRange{});
  OpBuilder::InsertionGuard guard(builder);
  builder.createBlock(&spin.getBefore());
  Value done = NVVM::MBarrierTryWaitOp::create(
      builder, loc, builder.getI1Type(), barrier, parity, Value(),
      cluster ? NVVM::MemScopeKind::CLUSTER : NVVM::MemScopeKind::CTA);
  Value notDone = arith::XOrIOp::create(
      builder, loc, done,
      arith::ConstantIntOp::create(builder, loc, builder.getI1Type(), 1));
  scf::ConditionOp::create(builder, loc, notDone, ValueRange{});
  builder.createBlock(&spin.getAfter());
  scf::YieldOp::create(builder, loc);
}

static bool isClusterArray(Value barrier) {
  return barrier.getDefiningOp<tile::AllocMbarrierOp>().getCluster();
}

void GPULowering::arriveOn(Value barrier, Value slot) {
  Value local = mbarrierAt(barrier, slot);
  if (!isClusterArray(barrier)) {
    NVVM::MBarrierArriveOp::create(builder, loc, Type(), local, Value());
    return;
  }
  // The same slot of every program's array, through its shared::cluster
  // address (a release of this program's reads, at cluster scope).
  auto remote = LLVM::LLVMPointerType::get(builder.getContext(), 7);
  for (int64_t rank = 0; rank < tile::clusterBlocks(kernel); ++rank)
    NVVM::MBarrierArriveOp::create(
        builder, loc, Type(),
        NVVM::MapaOp::create(builder, loc, remote, local, index32(rank)),
        Value(), NVVM::MemScopeKind::CLUSTER);
}

LogicalResult GPULowering::lowerMbarrierOp(Operation *op) {
  if (role == Role::All)
    return op->emitOpError("outside a tile.warp_specialize role is not "
                           "supported by convert-tile-to-gpu yet");
  if (auto wait = dyn_cast<tile::MbarrierWaitOp>(op)) {
    Value parity = arith::ExtUIOp::create(builder, loc, builder.getI32Type(),
                                          mapping.lookup(wait.getParity()));
    spinOnParity(mbarrierPointer(wait.getBarrier(), wait.getSlot()), parity,
                 isClusterArray(wait.getBarrier()));
    return success();
  }
  auto arrive = cast<tile::MbarrierArriveOp>(op);
  arriveOn(arrive.getBarrier(), mapping.lookup(arrive.getSlot()));
  return success();
}

LogicalResult GPULowering::lowerRoleCopy(tile::CopyOp op) {
  if (op.getRows())
    return op.emitOpError("gathering rows in the producer role is not "
                          "supported yet (it issues TMA boxes); gather in "
                          "the consumers or without roles");
  if (!isTmaBuffer(op.getDest()))
    return op.emitOpError("in the producer role must fill a TMA ring (a "
                          "buffer only wgmma reads, filled from a 2-D or 3-D "
                          "kernel argument)");
  // The barrier the copy completes on: the producer's next arrival.
  tile::MbarrierArriveOp arrival;
  for (Operation *next = op->getNextNode(); next && !arrival;
       next = next->getNextNode())
    arrival = dyn_cast<tile::MbarrierArriveOp>(next);
  if (!arrival)
    return op.emitOpError("in the producer role needs an arrival after it, "
                          "on the barrier the copy completes on");
  const TmaBuffer &buffer = tmaBuffers.at(op.getDest());
  Value map = tensorMapFor(op)->pointer;
  Value slot = op.getSlot() ? mapping.lookup(op.getSlot()) : Value();
  Value barrier = mbarrierPointer(arrival.getBarrier(), arrival.getSlot());
  auto withMap = ifNullMap(map);
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(withMap.thenBlock());
    // The producer's one thread copies; the arrival releases its stores.
    copyWithoutMap(op, buffer, slot, index(0), index(1));
  }
  OpBuilder::InsertionGuard outer(builder);
  builder.setInsertionPointToStart(withMap.elseBlock());
  int64_t panelBytes = buffer.rows * buffer.rowBytes;
  NVVM::MBarrierExpectTxOp::create(builder, loc, barrier,
                                   index32(buffer.panels * panelBytes),
                                   NVVM::MemScopeKind::CTA);
  issueTmaPanels(op, buffer, slot, map, barrier);
  return success();
}

void GPULowering::syncThreads() {
  if (role != Role::Consumer) {
    gpu::BarrierOp::create(builder, loc);
    return;
  }
  Value id = index32(kConsumerBarrier);
  if (consumerGroup)
    id = arith::IndexCastOp::create(builder, loc, builder.getI32Type(),
                                    inConsumerSet(kConsumerBarrier, 1));
  NVVM::BarrierOp::create(builder, loc, TypeRange{}, id,
                          index32(kernel.getThreads()), {}, Value());
}

bool GPULowering::perConsumerSet(Value buffer) {
  if (!consumerGroup || cast<tile::SharedType>(buffer.getType()).isRing())
    return false;
  return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
    auto roles = user->getParentOfType<tile::WarpSpecializeOp>();
    bool writes = (isa<tile::StoreOp>(user) &&
                   cast<tile::StoreOp>(user).getDest() == buffer) ||
                  (isa<tile::CopyOp>(user) &&
                   cast<tile::CopyOp>(user).getDest() == buffer);
    return writes && roles &&
           roles.getConsumer().isAncestor(user->getParentRegion());
  });
}

Value GPULowering::inConsumerSet(int64_t offset, int64_t stride) {
  return arith::AddIOp::create(
      builder, loc, index(offset),
      arith::MulIOp::create(builder, loc, consumerGroup, index(stride)));
}

LogicalResult GPULowering::lowerWarpSpecialize(tile::WarpSpecializeOp op) {
  // Elsewhere tile-interleave-roles has made the roles one loop.
  if (!target.runsRoles())
    return op.emitOpError("needs sm_90a (TMA and mbarriers), not ")
           << target.chip << " (run tile-interleave-roles first)";
  // A cluster's programs reach each other's mbarriers (remote releases,
  // multicast copies' transactions) only once all are initialized; no
  // program exits while another may still reach its shared memory.
  bool clusters = tile::sharesWithCluster(kernel);
  if (clusters) {
    NVVM::FenceMbarrierInitOp::create(builder, loc);
    NVVM::ClusterArriveOp::create(builder, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(builder, loc, UnitAttr());
  }
  Value tid = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value consumers = index(kernel.getThreads() * op.getConsumerGroups());
  Value isProducer = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::uge, tid, consumers);
  auto split = scf::IfOp::create(builder, loc, isProducer, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(builder);
  // The producer warpgroup gives registers up; its first thread issues.
  builder.setInsertionPointToStart(split.thenBlock());
  NVVM::SetMaxRegisterOp::create(builder, loc, op.getProducerRegisters(),
                                 NVVM::SetMaxRegisterAction::decrease);
  Value first = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq,
                                      tid, consumers);
  auto issuer = scf::IfOp::create(builder, loc, first);
  builder.setInsertionPointToStart(issuer.thenBlock());
  {
    llvm::SaveAndRestore<Role> inRole(role, Role::Producer);
    if (failed(lowerBlock(op.getProducer().front())))
      return failure();
  }
  builder.setInsertionPointToStart(split.elseBlock());
  NVVM::SetMaxRegisterOp::create(builder, loc, op.getConsumerRegisters(),
                                 NVVM::SetMaxRegisterAction::increase);
  {
    llvm::SaveAndRestore<Role> inRole(role, Role::Consumer);
    if (failed(op.getPingpong() ? lowerPingPongConsumers(op)
                                : lowerBlock(op.getConsumer().front())))
      return failure();
  }
  if (clusters) {
    builder.setInsertionPointAfter(split);
    NVVM::ClusterArriveOp::create(builder, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(builder, loc, UnitAttr());
  }
  return success();
}

/// bar.sync / bar.arrive on named barrier `id` (an i32) for `count`
/// threads.
static void namedBarrier(OpBuilder &b, Location loc, Value id, int64_t count,
                         bool arrive) {
  Value threads = arith::ConstantIntOp::create(b, loc, b.getI32Type(), count);
  if (!arrive) {
    NVVM::BarrierOp::create(b, loc, TypeRange{}, id, threads, {}, Value());
    return;
  }
  LLVM::CallIntrinsicOp::create(
      b, loc, b.getStringAttr("llvm.nvvm.barrier.cta.arrive.aligned.count"),
      ValueRange{id, threads});
}

LogicalResult GPULowering::lowerPingPongConsumers(tile::WarpSpecializeOp op) {
  // tile-persistent's form: a tile loop, carrying the count of the main
  // loop's iterations, around the main loop.
  Block &block = op.getConsumer().front();
  scf::ForOp tiles, main;
  for (auto loop : block.getOps<scf::ForOp>()) {
    if (tiles)
      return loop.emitOpError("is a second loop of a ping-pong consumer role");
    tiles = loop;
  }
  if (tiles) {
    auto inner = tiles.getBody()->getOps<scf::ForOp>();
    if (!inner.empty() && std::next(inner.begin()) == inner.end())
      main = *inner.begin();
  }
  if (!tiles || !main || tiles.getNumRegionIterArgs() != 1 ||
      main.getInitArgs().empty() ||
      main.getInitArgs().back() != tiles.getRegionIterArgs()[0])
    return op.emitOpError(
        "takes the ping-pong schedule, in which the consumer warpgroups own "
        "alternate tiles of a persistent kernel: its consumer role needs "
        "tile-persistent's tile loop around its main loop");
  for (Operation &inner : block) {
    if (&inner == tiles.getOperation()) {
      if (failed(lowerPingPongTiles(tiles, main)))
        return failure();
      continue;
    }
    if (failed(lowerOp(&inner)))
      return failure();
  }
  return success();
}

/// Each consumer set g runs the iterations i of the tile loop with i mod 2
/// = g; for the others it only adds their main loop's trip count to the
/// count of iterations, so that its ring slots and phases follow the
/// producer's. The sets run their main loops in tile order: set g waits at
/// named barrier kOrderBarrier + g before each of its main loops but its
/// first tile's, where the other set arrives after its main loop if a tile
/// follows. A wait for a slot's phase is then never made two phases early
/// (parity waits cannot tell those apart), and one set's epilogue
/// overlaps the other's MMAs.
LogicalResult GPULowering::lowerPingPongTiles(scf::ForOp tiles,
                                              scf::ForOp main) {
  Location at = tiles.getLoc();
  Value lb = mapping.lookup(tiles.getLowerBound());
  Value ub = mapping.lookup(tiles.getUpperBound());
  Value step = mapping.lookup(tiles.getStep());
  auto loop =
      scf::ForOp::create(builder, at, lb, ub, step,
                         ValueRange{mapping.lookup(tiles.getInitArgs()[0])});
  mapping.map(tiles.getInductionVar(), loop.getInductionVar());
  mapping.map(tiles.getRegionIterArgs()[0], loop.getRegionIterArgs()[0]);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  // The main loop's bounds, computed by every set (pure scalar code).
  llvm::SetVector<Operation *> bounds;
  SmallVector<Value> pending = {main.getLowerBound(), main.getUpperBound(),
                                main.getStep()};
  while (!pending.empty()) {
    Operation *def = pending.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != tiles.getBody() || !bounds.insert(def))
      continue;
    if (!isMemoryEffectFree(def) || def->getNumRegions())
      return def->emitOpError("computes a ping-pong consumer's main loop "
                              "bounds with side effects; the other set "
                              "counts that loop's iterations without running "
                              "the tile");
    llvm::append_range(pending, def->getOperands());
  }
  for (Operation &inner : tiles.getBody()->without_terminator())
    if (bounds.contains(&inner) && failed(lowerOp(&inner)))
      return failure();
  Value two = index(2);
  Value iteration = arith::DivUIOp::create(
      builder, at,
      arith::SubIOp::create(builder, at, loop.getInductionVar(), lb), step);
  Value mine = arith::CmpIOp::create(
      builder, at, arith::CmpIPredicate::eq,
      arith::RemUIOp::create(builder, at, iteration, two), consumerGroup);
  auto own = scf::IfOp::create(builder, at, builder.getIndexType(), mine,
                               /*withElseRegion=*/true);
  auto toI32 = [&](Value v) {
    return arith::IndexCastOp::create(builder, at, builder.getI32Type(), v);
  };
  {
    OpBuilder::InsertionGuard inner(builder);
    builder.setInsertionPointToStart(own.thenBlock());
    // Set g waits at kOrderBarrier + g and hands over at the other's.
    Value waitId = toI32(inConsumerSet(kOrderBarrier, 1));
    Value notify = toI32(inConsumerSet(kOrderBarrier + 1, -1));
    for (Operation &op : tiles.getBody()->without_terminator()) {
      if (bounds.contains(&op))
        continue;
      if (&op == main.getOperation()) {
        Value notFirst = arith::CmpIOp::create(
            builder, at, arith::CmpIPredicate::ne, iteration, index(0));
        auto wait = scf::IfOp::create(builder, at, notFirst);
        {
          OpBuilder::InsertionGuard g(builder);
          builder.setInsertionPointToStart(wait.thenBlock());
          namedBarrier(builder, at, waitId, 2 * kernel.getThreads(), false);
        }
      }
      if (failed(lowerOp(&op)))
        return failure();
      if (&op == main.getOperation()) {
        Value next =
            arith::AddIOp::create(builder, at, loop.getInductionVar(), step);
        Value follows = arith::CmpIOp::create(
            builder, at, arith::CmpIPredicate::ult, next, ub);
        auto arrive = scf::IfOp::create(builder, at, follows);
        OpBuilder::InsertionGuard g(builder);
        builder.setInsertionPointToStart(arrive.thenBlock());
        namedBarrier(builder, at, notify, 2 * kernel.getThreads(), true);
      }
    }
    Value count =
        mapping.lookup(tiles.getBody()->getTerminator()->getOperand(0));
    scf::YieldOp::create(builder, at, count);
  }
  {
    OpBuilder::InsertionGuard inner(builder);
    builder.setInsertionPointToStart(own.elseBlock());
    Value from = mapping.lookup(main.getLowerBound());
    Value to = mapping.lookup(main.getUpperBound());
    Value by = mapping.lookup(main.getStep());
    Value runs =
        arith::CmpIOp::create(builder, at, arith::CmpIPredicate::sgt, to, from);
    Value span = arith::SubIOp::create(builder, at, to, from);
    Value trips = arith::DivUIOp::create(
        builder, at,
        arith::AddIOp::create(builder, at, span,
                              arith::SubIOp::create(builder, at, by, index(1))),
        by);
    trips = arith::SelectOp::create(builder, at, runs, trips, index(0));
    scf::YieldOp::create(builder, at,
                         ValueRange{arith::AddIOp::create(
                             builder, at, loop.getRegionIterArgs()[0], trips)});
  }
  builder.setInsertionPointToEnd(loop.getBody());
  scf::YieldOp::create(builder, at, own.getResult(0));
  mapping.map(tiles.getResult(0), loop.getResult(0));
  return success();
}
