//===- PipelineSchedule.cpp - Latencies and schedules of K loops -*- C++
//-*-===//
//
// Steps 1 and 2 of software pipelining. The latency model is a small table
// per target: throughput numbers per SM (CU) from the vendors' published
// peak rates, plus a fixed latency for global memory. They are estimates for
// scheduling, not measurements.
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"
#include "tessera/Transforms/PipelineModel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

namespace tessera {
#define GEN_PASS_DEF_TILEPIPELINELATENCIES
#define GEN_PASS_DEF_TILEPIPELINESCHEDULE
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

std::optional<LatencyModel> tessera::getLatencyModel(StringRef chip) {
  // flops/cycle/SM for 16-bit MMAs, bytes/cycle/SM of global memory,
  // bytes/cycle/SM of shared memory, elements/cycle/SM of vector math.
  const TargetInfo *target = lookupTarget(chip);
  return target ? target->latency : std::nullopt;
}

static int64_t bytesOf(ArrayRef<int64_t> shape, Type element) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return (count * element.getIntOrFloatBitWidth() + 7) / 8;
}

SmallVector<std::pair<Resource, int64_t>>
tessera::estimateOccupancy(Operation *op, const LatencyModel &model) {
  if (auto copy = dyn_cast<tile::CopyOp>(op)) {
    tile::SharedType dest = copy.getDest().getType();
    int64_t bytes = bytesOf(dest.getShape(), dest.getElementType());
    SmallVector<std::pair<Resource, int64_t>> busy = {
        {Resource::GlobalMemory,
         llvm::divideCeilSigned(bytes, model.globalBytesPerCycle)}};
    if (!model.asyncCopyEngine)
      busy.push_back(
          {Resource::SharedMemory,
           llvm::divideCeilSigned(bytes, model.sharedBytesPerCycle)});
    return busy;
  }
  if (auto mma = dyn_cast<tile::MmaOp>(op)) {
    auto a = mma.getA().getType();
    int64_t m = mma.getType().getDimSize(0), n = mma.getType().getDimSize(1);
    int64_t k = a.getDimSize(mma.getTransposeA() ? 0 : 1);
    return {{Resource::TensorCore,
             llvm::divideCeilSigned(2 * m * n * k, model.mmaFlopsPerCycle)}};
  }
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    auto type = load.getType();
    int64_t bytes = bytesOf(type.getShape(), type.getElementType());
    if (isa<tile::SharedType>(load.getSource().getType()))
      return {{Resource::SharedMemory,
               llvm::divideCeilSigned(bytes, model.sharedBytesPerCycle)}};
    return {{Resource::GlobalMemory,
             llvm::divideCeilSigned(bytes, model.globalBytesPerCycle)}};
  }
  // Other tile ops: one pass over the elements of their result.
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return {{Resource::Vector,
               llvm::divideCeilSigned(tensor.getNumElements(),
                                      model.vectorElementsPerCycle)}};
  return {};
}

int64_t tessera::estimateLatency(Operation *op, const LatencyModel &model) {
  // The busiest unit, plus the trip to global memory for what reads it.
  int64_t cycles = 0;
  for (auto [resource, busy] : estimateOccupancy(op, model))
    cycles = std::max(cycles, busy);
  bool global = isa<tile::CopyOp>(op);
  if (auto load = dyn_cast<tile::LoadOp>(op))
    global = !isa<tile::SharedType>(load.getSource().getType());
  return global ? cycles + model.memoryLatency : cycles;
}

SmallVector<scf::ForOp> tessera::getPipelinedLoops(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (tile::TileDialect::PipelineAttrHelper(loop.getContext())
            .isAttrPresent(loop))
      loops.push_back(loop);
  });
  return loops;
}

namespace {
struct LatenciesPass : tessera::impl::TilePipelineLatenciesBase<LatenciesPass> {
  using Base::Base;
  void runOnOperation() override {
    std::string target = resolveChip(getOperation(), chip);
    std::optional<LatencyModel> model = getLatencyModel(target);
    if (!model) {
      getOperation().emitError()
          << "tile-pipeline-latencies: unknown chip '" << target
          << "'; use sm_80, sm_90a, gfx942 or gfx90a";
      return signalPassFailure();
    }
    Builder builder(&getContext());
    for (scf::ForOp loop : getPipelinedLoops(getOperation()))
      for (Operation &op : loop.getBody()->without_terminator())
        tile::TileDialect::LatencyAttrHelper(&getContext())
            .setAttr(&op,
                     builder.getI64IntegerAttr(estimateLatency(&op, *model)));
  }
};

struct SchedulePass : tessera::impl::TilePipelineScheduleBase<SchedulePass> {
  using Base::Base;
  void runOnOperation() override {
    ScheduleOptions options{scheduler, resolveChip(getOperation(), chip),
                            maxSharedBytes, maxII, rlimit};
    if (failed(verifyScheduleOptions(getOperation().getLoc(),
                                     "tile-pipeline-schedule", options)))
      return signalPassFailure();
    for (scf::ForOp loop : getPipelinedLoops(getOperation()))
      if (tile::TileDialect::PipelineAttrHelper(loop.getContext())
                  .getAttr(loop)
                  .getStages() > 1 &&
          failed(scheduleLoop(loop, options)))
        return signalPassFailure();
  }
};
} // namespace

void tessera::scheduleHeuristically(scf::ForOp loop) {
  int64_t stages = tile::TileDialect::PipelineAttrHelper(loop.getContext())
                       .getAttr(loop)
                       .getStages();
  llvm::SetVector<Operation *> early = getCopySlice(loop);
  Builder builder(loop.getContext());
  int64_t order = 0;
  for (Operation &op : loop.getBody()->without_terminator()) {
    tile::TileDialect::StageAttrHelper(loop.getContext())
        .setAttr(&op, builder.getI64IntegerAttr(
                          early.contains(&op) ? 0 : stages - 1));
    tile::TileDialect::OrderAttrHelper(loop.getContext())
        .setAttr(&op, builder.getI64IntegerAttr(order++));
  }
}

LogicalResult tessera::verifyScheduleOptions(Location loc, StringRef pass,
                                             const ScheduleOptions &options) {
  if (!getLatencyModel(options.chip))
    return emitError(loc) << pass << ": unknown chip '" << options.chip
                          << "'; use sm_80, sm_90a, gfx942 or gfx90a";
  if (options.maxSharedBytes < 0 || options.maxII < 0)
    return emitError(loc)
           << pass << ": max-shared-bytes and max-ii must not be negative";
  return success();
}

LogicalResult tessera::scheduleLoop(scf::ForOp loop,
                                    const ScheduleOptions &options) {
  ModuloProblem problem =
      buildModuloProblem(loop, *getLatencyModel(options.chip));
  // Both schedulers walk cycles of the II; keep that bounded (and free of
  // overflow) whatever `tile.latency` a user wrote.
  constexpr int64_t kMaxCycles = int64_t(1) << 24;
  int64_t cycles = 0;
  for (const ModuloProblem::Node &node : problem.nodes) {
    cycles += std::min(node.latency, kMaxCycles);
    for (int64_t busy : node.occupancy)
      cycles += std::min(busy, kMaxCycles);
  }
  if (cycles > kMaxCycles)
    return loop.emitError()
           << "tile-pipeline-schedule: the loop body's latencies add up to "
           << cycles << " cycles, more than the " << kMaxCycles
           << " a schedule may span; check its tile.latency values";
  int64_t budget = options.maxSharedBytes
                       ? options.maxSharedBytes
                       : analysis::getMaxSharedBytes(options.chip);
  if (options.scheduler == PipelineScheduler::Heuristic) {
    // The policy's stages are the most the loop may use: fewer where the
    // rings would not fit the chip's shared memory, down to one (the loop
    // is not pipelined).
    int64_t stages = problem.maxStages;
    while (stages > 1 &&
           problem.otherSharedBytes + stages * problem.ringSlotBytes > budget)
      --stages;
    if (stages != problem.maxStages) {
      auto policy = tile::TileDialect::PipelineAttrHelper(loop.getContext());
      policy.setAttr(loop, tile::PipelineAttr::get(
                               loop.getContext(), stages,
                               policy.getAttr(loop).getWarpSpecialize()));
      problem.maxStages = stages;
    }
    if (stages == 1)
      return success();
    scheduleHeuristically(loop);
    if (std::optional<ModuloSchedule> greedy =
            scheduleGreedily(problem, problem.maxStages))
      tile::TileDialect::IiAttrHelper(loop.getContext())
          .setAttr(loop,
                   Builder(loop.getContext()).getI64IntegerAttr(greedy->ii));
    return success();
  }

  ModuloSolverOptions solverOptions{budget, options.maxII, options.rlimit};
  ModuloSolverOutcome outcome = scheduleWithSolver(problem, solverOptions);
  if (outcome.unknown)
    return loop.emitError()
           << "tile-pipeline-schedule: Z3 gave up (" << *outcome.unknown
           << ") within rlimit = " << options.rlimit
           << "; raise the rlimit option or use scheduler=heuristic";
  if (!outcome.schedule) {
    InFlightDiagnostic diag = loop.emitError();
    diag << "tile-pipeline-schedule: no modulo schedule fits";
    if (options.maxII)
      diag << " with II <= " << options.maxII;
    diag << "; these constraints conflict:";
    for (auto &[label, op] : outcome.core)
      diag.attachNote(op ? op->getLoc() : loop.getLoc()) << label;
    return failure();
  }
  applySchedule(loop, problem, *outcome.schedule);
  return success();
}
