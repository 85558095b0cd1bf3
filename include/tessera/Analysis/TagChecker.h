//===- TagChecker.h - Propagates tags and proves assertions ----*- C++ -*-===//
//
// The tag checker (docs/invariants.md): it propagates per-element tags
// through a tile kernel (copies, loads, stores, rings, gathers, MMAs,
// element-wise ops, loops by induction), tracks shared-memory hazards, and
// proves every tag assertion with the terms' structure or with Z3, reporting a
// concrete counterexample when one fails.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_ANALYSIS_TAGCHECKER_H
#define TESSERA_ANALYSIS_TAGCHECKER_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

#include <cstdint>

namespace tessera::analysis {

struct TagCheckOptions {
  /// Z3 resource limit per query (deterministic, unlike a timeout).
  unsigned rlimit = 4000000;
  /// Wall-clock backstop per query in seconds (0: none), for queries whose
  /// work Z3 does not count against the rlimit.
  unsigned timeoutSeconds = 60;
  /// Shared memory a program instance may use, in bytes.
  int64_t maxSharedBytes = 232448;
  /// The transfer work a kernel may take, in steps: each visit of an op
  /// counts 1 plus the loops around it (the facts it is checked under).
  /// Past it the checker stops with an error naming the op: its
  /// obligations are unknown (a deep loop nest, not a hang).
  uint64_t workBudget = 100000000;
  /// When set, every query is also written here as SMT-LIB 2.
  llvm::raw_ostream *smtOutput = nullptr;
};

struct TagCheckStats {
  unsigned provedStructurally = 0;
  unsigned provedBySolver = 0;
  unsigned failed = 0;
  unsigned assumptions = 0;
  /// For each access to a view: the offset width its lowering needs, 32 when
  /// every element offset is proved to be below 2^31, else 64.
  llvm::SmallVector<std::pair<mlir::Operation *, unsigned>> offsetBits;
};

/// One per compilation: the terms and the Z3 context that all kernels share.
class TagCheckSession {
public:
  TagCheckSession(mlir::MLIRContext *context, const TagCheckOptions &options);
  ~TagCheckSession();

  /// Checks one kernel; diagnostics go to the context's handler. Fails when
  /// an assertion, a hazard rule or a resource limit is violated.
  mlir::LogicalResult checkKernel(tile::KernelOp kernel, TagCheckStats &stats);

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// The shared-memory capacity of a target chip, or -1 if unknown.
int64_t getMaxSharedBytes(llvm::StringRef chip);

} // namespace tessera::analysis

#endif // TESSERA_ANALYSIS_TAGCHECKER_H
