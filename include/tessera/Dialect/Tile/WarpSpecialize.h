//===- WarpSpecialize.h - Warp-specialized roles as one loop ----*- C++ -*-===//
//
// A `tile.warp_specialize` runs a producer and a consumer role concurrently,
// handing ring slots over through mbarriers. Where the protocol is the one
// the roles' loops state (every iteration n: the producer waits for slot
// n mod S to be released, fills it and arrives on its full barrier; the
// consumers wait for the fill, read the slot and release it), running both
// loops interleaved, iteration by iteration, is one execution the
// concurrent one is equivalent to. `fuseWarpSpecialize` builds that loop:
// the host runs it, tag-check checks it together with the protocol's
// obligations (`docs/invariants.md`), and GPUs whose lowering does not run
// roles (sm_80, AMD) run it synchronized as tag-check models it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TILE_WARPSPECIALIZE_H
#define TESSERA_DIALECT_TILE_WARPSPECIALIZE_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace tessera::tile {

/// What `fuseWarpSpecialize` adds to the interleaved loop.
enum class FuseMode {
  /// The ops as they are (the host drops the mbarrier ops afterwards).
  Plain,
  /// The protocol's obligations as `tag.assert`s at the mbarrier ops, and
  /// the hand-over as the synchronisation tag-check models: a fill's
  /// arrival commits its copies, a wait retires them and is a barrier, a
  /// consumer's arrival is a barrier, the producer's waits are dropped.
  Checked,
  /// The hand-over as in `Checked`, without the obligations: the form a
  /// target runs with all its threads in one role.
  Synchronized,
};

/// Replaces `op` by its roles' code interleaved: the producer's and the
/// consumers' code before their loops, one loop running an iteration of
/// the producer's and then of the consumers' body, and their code after
/// (in a persistent kernel, all of it in one loop over the roles' tiles).
/// Fails with an error at the offending op where the roles do not have
/// that structure (one `scf.for` each, over the same range) or use their
/// barriers and rings otherwise than the protocol allows. `clones`, if
/// given, maps each op of the roles to its copy.
mlir::LogicalResult fuseWarpSpecialize(WarpSpecializeOp op,
                                       mlir::RewriterBase &rewriter,
                                       FuseMode mode,
                                       mlir::IRMapping *clones = nullptr);

/// Fuses every `tile.warp_specialize` of `kernel` in `mode` (Plain or
/// Synchronized), then drops what only roles running concurrently need:
/// the mbarriers with their arrivals and waits, and `multicast` on copies
/// (every program of a cluster copies the whole window it reads).
mlir::LogicalResult interleaveRoles(KernelOp kernel, FuseMode mode);

/// Asserts (tag.assert at `loc`, in a loop over the programs of this
/// program's cluster, built at `b`'s insertion point) that each value is
/// the same when recomputed with another program's ids; `what` names it.
/// Fails with an error where a value depends on the program otherwise
/// than through pure arithmetic on its ids. The block arguments in
/// `uniform` (induction variables of loops whose bounds are proved the
/// same), like the kernel's arguments, are the same in every program.
mlir::LogicalResult assertClusterUniform(
    mlir::OpBuilder &b, mlir::Location loc, KernelOp kernel,
    llvm::ArrayRef<mlir::Value> uniform,
    llvm::ArrayRef<std::pair<mlir::Value, std::string>> values);

/// The ring slot `n mod slots` and the mbarrier parity `(n div slots +
/// shift) mod 2` (an i1) of iteration `n`: what the protocol's waits use
/// (shift 0 for a fill's waiter, 1 for the waiter of a release S
/// iterations back).
std::pair<mlir::Value, mlir::Value>
ringSlotAndParity(mlir::OpBuilder &b, mlir::Location loc, mlir::Value n,
                  int64_t slots, int64_t shift);

} // namespace tessera::tile

#endif // TESSERA_DIALECT_TILE_WARPSPECIALIZE_H
