//===- WarpSpecializeOps.cpp - mbarriers and warp-specialized roles -------===//
//
// Verifiers of `!tile.mbarrier`, `tile.alloc_mbarrier` and
// `tile.warp_specialize`, and the threads a kernel is launched with.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessera::tile;

/// The most slots an mbarrier array has (rings have at most 8 stages; the
/// sm_90a lowering keeps per-slot state in 32-bit masks).
static constexpr int64_t kMaxBarrierSlots = 32;
/// PTX's largest mbarrier arrival count, 2^20 - 1.
static constexpr int64_t kMaxArrivals = (int64_t(1) << 20) - 1;

LogicalResult MbarrierType::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t slots) {
  if (slots < 1 || slots > kMaxBarrierSlots)
    return emitError() << "an mbarrier array has 1 to " << kMaxBarrierSlots
                       << " slots, got " << slots;
  return success();
}

LogicalResult AllocMbarrierOp::verify() {
  if (getArrivals() < 1 || getArrivals() > kMaxArrivals)
    return emitOpError() << "arrivals must be between 1 and " << kMaxArrivals
                         << ", got " << getArrivals();
  if (getCluster() && clusterBlocks((*this)->getParentOfType<KernelOp>()) < 2)
    return emitOpError("a cluster mbarrier array needs a kernel launched in "
                       "clusters of two programs or more (cluster(...))");
  return success();
}

bool tessera::tile::sharesWithCluster(KernelOp kernel) {
  return kernel
      .walk([](Operation *op) {
        auto alloc = dyn_cast<AllocMbarrierOp>(op);
        auto copy = dyn_cast<CopyOp>(op);
        return (alloc && alloc.getCluster()) || (copy && copy.getMulticast())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

int64_t tessera::tile::clusterBlocks(KernelOp kernel) {
  int64_t blocks = 1;
  if (std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster())
    for (int32_t dim : *cluster)
      blocks *= dim;
  return blocks;
}

int64_t tessera::tile::launchedThreads(KernelOp kernel) {
  int64_t threads = kernel.getThreads();
  if (kernel.getBody().empty())
    return threads;
  auto roles = kernel.getBody().front().getOps<WarpSpecializeOp>();
  if (roles.empty())
    return threads;
  return threads * (*roles.begin()).getConsumerGroups() + kProducerThreads;
}

LogicalResult WarpSpecializeOp::verify() {
  auto kernel = (*this)->getParentOfType<KernelOp>();
  for (auto [role, registers] : {std::pair("producer", getProducerRegisters()),
                                 std::pair("consumer", getConsumerRegisters())})
    if (registers < 24 || registers > 256 || registers % 8)
      return emitOpError() << "the " << role << " registers must be a "
                           << "multiple of 8 between 24 and 256, got "
                           << registers;
  // With `pingpong`, two consumer warpgroup sets of the kernel's threads.
  int64_t perGroup = kernel.getThreads();
  int64_t threads = perGroup * getConsumerGroups();
  int64_t most = (1024 - kProducerThreads) / getConsumerGroups();
  if (perGroup % kProducerThreads || perGroup > most)
    return emitOpError() << "needs a kernel of whole warpgroups (a multiple "
                         << "of " << kProducerThreads << " threads) that "
                         << "leaves room for the producer's"
                         << (getPingpong() ? " and a second consumer set" : "")
                         << ": at most " << most << ", got " << perGroup;
  int64_t total = getProducerRegisters() * kProducerThreads +
                  getConsumerRegisters() * threads;
  if (total > kRegisterFileSize)
    return emitOpError() << "gives its roles " << total << " registers ("
                         << getProducerRegisters() << " x " << kProducerThreads
                         << " + " << getConsumerRegisters() << " x " << threads
                         << "), more than the " << kRegisterFileSize
                         << " of an SM";
  for (Operation &other : kernel.getBody().front())
    if (isa<WarpSpecializeOp>(other) && &other != getOperation())
      return emitOpError("is one of several in its kernel; a kernel has one");
  // Register tiles live in one role's registers: none but constants (which
  // canonicalization hoists) crosses into a role, and the producer computes
  // none.
  for (Region *region : {&getProducer(), &getConsumer()}) {
    WalkResult walk = region->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (isa<RankedTensorType>(operand.getType()) &&
            !region->isAncestor(operand.getParentRegion()) &&
            !matchPattern(operand, m_Constant())) {
          op->emitOpError(
              "uses a register tile defined outside its role (not a "
              "constant); define it inside the "
              "tile.warp_specialize region");
          return WalkResult::interrupt();
        }
      if (region != &getProducer())
        return WalkResult::advance();
      if (isa<BarrierOp>(op)) {
        op->emitOpError("in the producer role: the producer synchronizes "
                        "through mbarriers only");
        return WalkResult::interrupt();
      }
      if (isa<CopyOutOp>(op)) {
        op->emitOpError("in the producer role, which only fills the rings; "
                        "the consumers store the results");
        return WalkResult::interrupt();
      }
      if (llvm::any_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>)) {
        op->emitOpError("makes a register tile in the producer role, which "
                        "only copies");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  return success();
}
