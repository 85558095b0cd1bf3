//===- TargetInfo.h - The chips Tessera compiles for -----------*- C++ -*-===//
//
// One registry of the targets: what each chip offers the compiler (warp or
// wave size, shared memory, MMA instructions, asynchronous copies) and its
// scheduling model. The passes read the module's target from the
// `tile.target` attribute that `tessera-compile --target` (or
// `tessera-opt --tile-set-target`) sets, instead of options of their own.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TARGET_TARGETINFO_H
#define TESSERA_TARGET_TARGETINFO_H

#include "tessera/Transforms/PipelineModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace tessera {

enum class Vendor { Host, Nvidia, Amd };

/// How global-to-shared copies run asynchronously.
enum class AsyncCopyKind {
  None,        // the host: copies are plain loops
  CpAsync,     // sm_80: cp.async 4/8/16 bytes per thread, commit groups
  Tma,         // sm_90a: bulk tensor copies onto mbarriers (and cp.async)
  BufferToLds, // CDNA: buffer loads into registers, then LDS stores
};

/// One matrix instruction: D[m x n] += A[m x k] * B[k x n].
struct MmaAtom {
  llvm::StringLiteral name;
  int64_t m, n, k;
  /// Operand and accumulator element kinds: "bf16", "f16", "i8", "e4m3",
  /// accumulators "f32" or "i32".
  llvm::StringLiteral operands, accumulator;
};

struct TargetInfo {
  llvm::StringLiteral chip;
  Vendor vendor;
  /// Threads per warp (wavefront); 1 on the host.
  int64_t warpSize;
  /// Shared memory (LDS) one program instance may use, in bytes.
  int64_t maxSharedBytes;
  AsyncCopyKind asyncCopy;
  llvm::ArrayRef<MmaAtom> mmaAtoms;
  /// The pipelining model; none for chips without one yet.
  std::optional<LatencyModel> latency;
  /// The most program instances a thread-block cluster holds; 0 for chips
  /// without clusters.
  int64_t maxClusterBlocks = 0;

  bool isGpu() const { return vendor != Vendor::Host; }
  /// Whether the lowering runs a `tile.warp_specialize`'s roles on warps of
  /// their own (TMA and mbarriers); elsewhere they run interleaved
  /// (tile-interleave-roles).
  bool runsRoles() const { return asyncCopy == AsyncCopyKind::Tma; }
  /// The first atom for these operand and accumulator kinds (of M = `m`,
  /// where it is not 0), if any.
  const MmaAtom *findMma(llvm::StringRef operands, llvm::StringRef accumulator,
                         int64_t m = 0) const;
  /// The `m` x `m` MFMA (32 or 16) an AMD chip runs an MMA of `operands`
  /// elements into `accumulator` ones on: its int8 atom for i8 into i32,
  /// its fp8 atom (where it has one) for f8E4M3FN into f32, else the 16-bit
  /// atom for bf16, f16 and f8E4M3FN (codes multiplied as bf16) into f32;
  /// null for other types.
  const MmaAtom *findMfma(mlir::Type operands, mlir::Type accumulator,
                          int64_t m = 32) const;
};

/// The chip named `chip`, or null.
const TargetInfo *lookupTarget(llvm::StringRef chip);
/// The names of every known chip, for diagnostics: "host, sm_80, ...".
std::string listTargets();

/// The target `module` is compiled for (its `tile.target`), or null when it
/// names none.
const TargetInfo *getModuleTarget(mlir::ModuleOp module);
/// Sets the module's `tile.target` to `chip` (a name `lookupTarget` knows).
void setModuleTarget(mlir::ModuleOp module, llvm::StringRef chip);

/// The chip a pass works for: its `chip` option when given, else the
/// module's `tile.target` if that is a GPU, else sm_90a (the largest shared
/// memory; the host runs what is scheduled for it).
std::string resolveChip(mlir::ModuleOp module, llvm::StringRef option);

} // namespace tessera

#endif // TESSERA_TARGET_TARGETINFO_H
