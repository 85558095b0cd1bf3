//===- PipelineModel.h - Latency model and schedules of K loops -*- C++ -*-===//

#ifndef TESSERA_TRANSFORMS_PIPELINEMODEL_H
#define TESSERA_TRANSFORMS_PIPELINEMODEL_H

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "tessera/Transforms/PassEnums.h"

#include "llvm/ADT/SetVector.h"

#include <array>
#include <optional>
#include <string>

namespace tessera {

/// Per-SM (CU) rates of a target, in units per cycle, and the latency of
/// global memory in cycles.
struct LatencyModel {
  int64_t mmaFlopsPerCycle;
  int64_t globalBytesPerCycle;
  int64_t sharedBytesPerCycle;
  int64_t vectorElementsPerCycle;
  int64_t memoryLatency;
  /// Copies into shared memory bypass the load/store units (Hopper's TMA);
  /// elsewhere they also occupy the shared-memory pipe.
  bool asyncCopyEngine;
};

/// The model of sm_80, sm_90a, gfx942 or gfx90a.
std::optional<LatencyModel> getLatencyModel(llvm::StringRef chip);

/// Estimated cycles of one tile op (0 for scalar arithmetic).
int64_t estimateLatency(mlir::Operation *op, const LatencyModel &model);

/// The units of an SM (CU) that a modulo schedule reserves.
enum class Resource : unsigned {
  GlobalMemory,
  TensorCore,
  SharedMemory,
  Vector
};
constexpr unsigned kNumResources = 4;
llvm::StringRef getResourceName(Resource resource);

/// The cycles an op keeps each unit busy (the resource table).
llvm::SmallVector<std::pair<Resource, int64_t>>
estimateOccupancy(mlir::Operation *op, const LatencyModel &model);

/// The loops carrying `tile.pipeline`, inner loops first (post order).
llvm::SmallVector<mlir::scf::ForOp> getPipelinedLoops(mlir::ModuleOp module);

/// The copies into shared memory of a loop body and the ops that compute
/// their operands: stage 0 of every schedule.
llvm::SetVector<mlir::Operation *> getCopySlice(mlir::scf::ForOp loop);

/// A pipelined loop body as a modulo-scheduling problem.
struct ModuloProblem {
  struct Node {
    mlir::Operation *op;
    int64_t latency;
    std::array<int64_t, kNumResources> occupancy;
    /// In stage 0 (a copy or its offsets); otherwise in the last stage.
    bool early;
  };
  /// `to` starts at least `latency` cycles after `from` of `distance`
  /// iterations before.
  struct Edge {
    unsigned from, to;
    int64_t latency, distance;
  };
  llvm::SmallVector<Node> nodes;
  llvm::SmallVector<Edge> edges;
  /// (reader, copy): the copy `depth` iterations later overwrites the slot
  /// the reader loads from.
  llvm::SmallVector<std::pair<unsigned, unsigned>> slotReuse;
  int64_t ringSlotBytes = 0, otherSharedBytes = 0;
  /// The `stages` of the loop's #tile.pipeline: the most it may use.
  int64_t maxStages = 2;
};

/// Reads `tile.latency` where present, the model's estimate elsewhere.
ModuloProblem buildModuloProblem(mlir::scf::ForOp loop,
                                 const LatencyModel &model);

/// Lower bound on II from resource use and self-recurrences.
int64_t getResourceBoundII(const ModuloProblem &problem);
/// An II at which every op can run one after the other.
int64_t getTrivialII(const ModuloProblem &problem);

struct ModuloSchedule {
  int64_t ii, depth;
  /// Start cycle of each node of the problem: stage * ii + offset.
  llvm::SmallVector<int64_t> times;
};

bool isValidSchedule(const ModuloProblem &problem,
                     const ModuloSchedule &schedule);

/// Iterative greedy modulo scheduling at a fixed depth (the heuristic).
std::optional<ModuloSchedule> scheduleGreedily(const ModuloProblem &problem,
                                               int64_t depth);

struct ModuloSolverOptions {
  int64_t maxSharedBytes;
  /// 0: up to getTrivialII.
  int64_t maxII = 0;
  unsigned rlimit = 10000000;
};

struct ModuloSolverOutcome {
  std::optional<ModuloSchedule> schedule;
  /// When no schedule fits: the conflicting constraints, with the op each
  /// concerns (or null).
  llvm::SmallVector<std::pair<std::string, mlir::Operation *>> core;
  /// Set when Z3 gave up (the resource limit), with its reason.
  std::optional<std::string> unknown;
};

/// The least II, then the fewest stages, with Z3.
ModuloSolverOutcome scheduleWithSolver(const ModuloProblem &problem,
                                       const ModuloSolverOptions &options);

/// Writes `tile.stage` / `tile.order` on the body, and `tile.ii` and the
/// chosen depth (`tile.pipeline`) on the loop.
void applySchedule(mlir::scf::ForOp loop, const ModuloProblem &problem,
                   const ModuloSchedule &schedule);

/// The heuristic schedule: copies into shared memory (and their offset
/// arithmetic) in stage 0, the rest in stage S - 1, in body order; as
/// `tile.stage` / `tile.order` attributes.
void scheduleHeuristically(mlir::scf::ForOp loop);

/// The schedule step's pass options.
struct ScheduleOptions {
  PipelineScheduler scheduler = PipelineScheduler::Heuristic;
  std::string chip = "sm_90a";
  /// 0: the chip's capacity.
  int64_t maxSharedBytes = 0;
  int64_t maxII = 0;
  unsigned rlimit = 10000000;
};

/// Rejects an unknown chip, or a negative bound, at `loc`.
mlir::LogicalResult verifyScheduleOptions(mlir::Location loc,
                                          llvm::StringRef pass,
                                          const ScheduleOptions &options);

/// Schedules one `tile.pipeline` loop with stages >= 2 as the options say.
mlir::LogicalResult scheduleLoop(mlir::scf::ForOp loop,
                                 const ScheduleOptions &options);

} // namespace tessera

#endif // TESSERA_TRANSFORMS_PIPELINEMODEL_H
