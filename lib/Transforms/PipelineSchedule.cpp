//===- PipelineSchedule.cpp - Latencies and schedules of K loops -*- C++
//-*-===//
//
// Steps 1 and 2 of software pipelining. The latency model is a small table
// per target: throughput numbers per SM (CU) from the vendors' published
// peak rates, plus a fixed latency for global memory. They are estimates for
// scheduling, not measurements.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"
#include "tessera/Transforms/PipelineModel.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringSwitch.h"

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
  return llvm::StringSwitch<std::optional<LatencyModel>>(chip)
      .Case("sm_80", LatencyModel{2048, 10, 128, 256, 500})
      .Case("sm_90a", LatencyModel{4096, 14, 128, 256, 500})
      .Case("gfx942", LatencyModel{2048, 9, 128, 256, 700})
      .Default(std::nullopt);
}

static int64_t bytesOf(ArrayRef<int64_t> shape, Type element) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return (count * element.getIntOrFloatBitWidth() + 7) / 8;
}

int64_t tessera::estimateLatency(Operation *op, const LatencyModel &model) {
  auto ceilDiv = [](int64_t a, int64_t b) { return (a + b - 1) / b; };
  if (auto copy = dyn_cast<tile::CopyOp>(op)) {
    tile::SharedType dest = copy.getDest().getType();
    return model.memoryLatency +
           ceilDiv(bytesOf(dest.getShape(), dest.getElementType()),
                   model.globalBytesPerCycle);
  }
  if (auto mma = dyn_cast<tile::MmaOp>(op)) {
    auto a = mma.getA().getType();
    int64_t m = mma.getType().getDimSize(0), n = mma.getType().getDimSize(1);
    int64_t k = a.getDimSize(mma.getTransposeA() ? 0 : 1);
    return ceilDiv(2 * m * n * k, model.mmaFlopsPerCycle);
  }
  if (auto load = dyn_cast<tile::LoadOp>(op)) {
    auto type = load.getType();
    int64_t bytes = bytesOf(type.getShape(), type.getElementType());
    return isa<tile::SharedType>(load.getSource().getType())
               ? ceilDiv(bytes, model.sharedBytesPerCycle)
               : model.memoryLatency +
                     ceilDiv(bytes, model.globalBytesPerCycle);
  }
  // Other tile ops: one pass over the elements of their result.
  for (Type type : op->getResultTypes())
    if (auto tensor = dyn_cast<RankedTensorType>(type))
      return ceilDiv(tensor.getNumElements(), model.vectorElementsPerCycle);
  return 0;
}

namespace {
SmallVector<scf::ForOp> pipelinedLoops(ModuleOp module) {
  SmallVector<scf::ForOp> loops;
  module.walk([&](scf::ForOp loop) {
    if (loop->hasAttr("tile.pipeline"))
      loops.push_back(loop);
  });
  return loops;
}

struct LatenciesPass : tessera::impl::TilePipelineLatenciesBase<LatenciesPass> {
  using Base::Base;
  void runOnOperation() override {
    std::optional<LatencyModel> model = getLatencyModel(chip);
    if (!model) {
      getOperation().emitError() << "tile-pipeline-latencies: unknown chip '"
                                 << chip << "'; use sm_80, sm_90a or gfx942";
      return signalPassFailure();
    }
    Builder builder(&getContext());
    for (scf::ForOp loop : pipelinedLoops(getOperation()))
      for (Operation &op : loop.getBody()->without_terminator())
        op.setAttr("tile.latency",
                   builder.getI64IntegerAttr(estimateLatency(&op, *model)));
  }
};

struct SchedulePass : tessera::impl::TilePipelineScheduleBase<SchedulePass> {
  void runOnOperation() override {
    for (scf::ForOp loop : pipelinedLoops(getOperation()))
      scheduleHeuristically(loop);
  }
};
} // namespace

void tessera::scheduleHeuristically(scf::ForOp loop) {
  int64_t stages =
      cast<tile::PipelineAttr>(loop->getAttr("tile.pipeline")).getStages();
  Block *body = loop.getBody();
  // Stage 0: the copies into shared memory and what their operands need.
  llvm::SetVector<Operation *> early;
  SmallVector<Value> worklist;
  for (Operation &op : body->without_terminator())
    if (isa<tile::CopyOp>(op)) {
      early.insert(&op);
      llvm::append_range(worklist, op.getOperands());
    }
  while (!worklist.empty()) {
    Operation *def = worklist.pop_back_val().getDefiningOp();
    if (def && def->getBlock() == body && early.insert(def))
      llvm::append_range(worklist, def->getOperands());
  }
  Builder builder(loop.getContext());
  int64_t order = 0;
  for (Operation &op : body->without_terminator()) {
    op.setAttr("tile.stage",
               builder.getI64IntegerAttr(early.contains(&op) ? 0 : stages - 1));
    op.setAttr("tile.order", builder.getI64IntegerAttr(order++));
  }
}
