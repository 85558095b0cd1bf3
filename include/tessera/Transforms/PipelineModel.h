//===- PipelineModel.h - Latency model and schedules of K loops -*- C++ -*-===//

#ifndef TESSERA_TRANSFORMS_PIPELINEMODEL_H
#define TESSERA_TRANSFORMS_PIPELINEMODEL_H

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>

namespace tessera {

/// Per-SM (CU) rates of a target, in units per cycle, and the latency of
/// global memory in cycles.
struct LatencyModel {
  int64_t mmaFlopsPerCycle;
  int64_t globalBytesPerCycle;
  int64_t sharedBytesPerCycle;
  int64_t vectorElementsPerCycle;
  int64_t memoryLatency;
};

/// The model of sm_80, sm_90a or gfx942.
std::optional<LatencyModel> getLatencyModel(llvm::StringRef chip);

/// Estimated cycles of one tile op (0 for scalar arithmetic).
int64_t estimateLatency(mlir::Operation *op, const LatencyModel &model);

/// The heuristic schedule: copies into shared memory (and their offset
/// arithmetic) in stage 0, the rest in stage S - 1, in body order; as
/// `tile.stage` / `tile.order` attributes.
void scheduleHeuristically(mlir::scf::ForOp loop);

} // namespace tessera

#endif // TESSERA_TRANSFORMS_PIPELINEMODEL_H
