//===- OccupancyGoals.h - Asking a backend for more occupancy ---*- C++ -*-===//
//
// Both GPU backends raise occupancy the same way: compile once more with a
// goal per kernel (blocks per SM for ptxas, waves per SIMD for the AMDGPU
// backend), keep the goals the backend met without costing anything, and
// compile again with only those until every goal asked for is met.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TARGET_OCCUPANCYGOALS_H
#define TESSERA_TARGET_OCCUPANCYGOALS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"

#include <optional>

namespace tessera {

/// Compiles with `goals` (kernel name -> goal) until `met` accepts every
/// goal of a compilation, dropping the ones it rejects; that compilation,
/// or none when no goal is left. `compile` and `met` are the backend's.
template <typename Compiled, typename Compile, typename Met>
mlir::FailureOr<std::optional<Compiled>>
compileForGoals(llvm::StringMap<int64_t> goals, Compile compile, Met met) {
  while (!goals.empty()) {
    mlir::FailureOr<Compiled> compiled = compile(goals);
    if (mlir::failed(compiled))
      return mlir::failure();
    llvm::StringMap<int64_t> kept;
    for (const auto &[name, goal] : goals)
      if (met(*compiled, name, goal))
        kept[name] = goal;
    if (kept.size() == goals.size())
      return std::optional<Compiled>(std::move(*compiled));
    goals = std::move(kept);
  }
  return std::optional<Compiled>();
}

} // namespace tessera

#endif // TESSERA_TARGET_OCCUPANCYGOALS_H
