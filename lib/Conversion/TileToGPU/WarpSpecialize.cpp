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
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "llvm/Support/SaveAndRestore.h"

using namespace mlir;
using namespace tessera;

/// The named barrier the consumers meet at (0 is the block's).
static constexpr int32_t kConsumerBarrier = 1;

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
  NVVM::BarrierOp::create(builder, loc, TypeRange{}, index32(kConsumerBarrier),
                          index32(kernel.getThreads()), {}, Value());
}

LogicalResult GPULowering::lowerWarpSpecialize(tile::WarpSpecializeOp op) {
  if (isAmd() || target.asyncCopy != AsyncCopyKind::Tma)
    return op.emitOpError("needs sm_90a (TMA and mbarriers), not ")
           << target.chip;
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
  Value consumers = index(kernel.getThreads());
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
    if (failed(lowerBlock(op.getConsumer().front())))
      return failure();
  }
  if (clusters) {
    builder.setInsertionPointAfter(split);
    NVVM::ClusterArriveOp::create(builder, loc, UnitAttr());
    NVVM::ClusterWaitOp::create(builder, loc, UnitAttr());
  }
  return success();
}
