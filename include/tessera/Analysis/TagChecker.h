//===- TagChecker.h - Propagates tags and proves assertions ----*- C++ -*-===//
//
// The checker of TAGS.md: it propagates per-element tags through a tile
// kernel (copies, loads, stores, rings, gathers, MMAs, element-wise ops,
// loops by induction), tracks shared-memory hazards, and proves every tag
// assertion with the terms' structure or with Z3, reporting a concrete
// counterexample when one fails.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_TAGCHECKER_H
#define TESSERA_ANALYSIS_TAGCHECKER_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include "llvm/Support/raw_ostream.h"

#include <cstdint>

namespace tessera::analysis {

struct TagCheckOptions {
  /// Z3 resource limit per query (deterministic, unlike a timeout).
  unsigned rlimit = 4000000;
  /// Shared memory a program instance may use, in bytes.
  int64_t maxSharedBytes = 232448;
  /// When set, every query is also written here as SMT-LIB 2.
  llvm::raw_ostream *smtOutput = nullptr;
};

struct TagCheckStats {
  unsigned provedStructurally = 0;
  unsigned provedBySolver = 0;
  unsigned failed = 0;
  unsigned assumptions = 0;
};

/// Checks one kernel; diagnostics go to the context's handler. Fails when
/// an assertion, a hazard rule or a resource limit is violated.
mlir::LogicalResult checkKernel(tile::KernelOp kernel,
                                const TagCheckOptions &options,
                                TagCheckStats &stats);

/// The shared-memory capacity of a target chip, or -1 if unknown.
int64_t getMaxSharedBytes(llvm::StringRef chip);

} // namespace tessera::analysis

#endif // TESSERA_ANALYSIS_TAGCHECKER_H
