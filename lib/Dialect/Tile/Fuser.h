//===- Fuser.h - The roles of a tile.warp_specialize as one loop -*- C++
//-*-===//
//
// Private to the Tile dialect library: the analysis of a
// `tile.warp_specialize`'s protocol and the builders of its interleaved
// forms, shared by FuseRoles.cpp (the protocol, the plain and checked
// forms) and InterleaveRoles.cpp (the synchronized pipeline form).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_DIALECT_TILE_FUSER_H
#define TESSERA_LIB_DIALECT_TILE_FUSER_H

#include "tessera/Dialect/Tile/WarpSpecialize.h"

#include "llvm/ADT/MapVector.h"

namespace tessera::tile::fusion {
using namespace mlir;

enum RoleKind { Producer = 0, Consumer = 1 };

const char *roleName(RoleKind role);

/// How one mbarrier array is used in the roles' loops.
struct BarrierUse {
  SmallVector<MbarrierArriveOp> arrives[2];
  SmallVector<MbarrierWaitOp> waits[2];
};

/// A ring slot access inside a role's loop and the barriers around it:
/// those waited on before it in the loop body, and those arrived on after
/// it (for a fill, the first only: its copies complete on that one).
struct RingAccess {
  Operation *op;
  SmallVector<Value> before, after;
};

class Fuser {
public:
  Fuser(WarpSpecializeOp op) : op(op) {}

  /// Finds each role's loop and checks the protocol's structure.
  LogicalResult analyze();
  /// Builds the interleaved code before `op` and erases `op`.
  LogicalResult fuse(RewriterBase &rewriter, FuseMode mode, IRMapping &map);

private:
  LogicalResult findLoop(RoleKind role);
  /// Checks a tile loop's count of the main loop's iterations.
  LogicalResult checkCounting(RoleKind role);
  /// Whether `a` (the producer's) and `b` (the consumers') compute the same
  /// value in their roles' tile iterations.
  bool equivalent(Value a, Value b, int depth = 16);
  /// Builds the interleaved main loop at the rewriter's insertion point.
  LogicalResult fuseMain(RewriterBase &rewriter, FuseMode mode, IRMapping &map);
  /// How many iterations the producer's fills may run ahead of the
  /// consumers' reads in the synchronized form: a slot less than the
  /// smallest ring has, or 0 where the producer's loop carries values other
  /// than its count of iterations or does more than fill rings, or the
  /// consumers' loop copies asynchronously itself (its commit groups would
  /// interleave).
  int64_t lookahead();
  /// The synchronized main loop with the producer's fills `ahead`
  /// iterations ahead of the consumers' reads, after a prologue of
  /// `ahead` fills: tile-pipeline's multistage loop, run by all threads.
  void fuseMainAhead(RewriterBase &rewriter, IRMapping &map);
  /// Clones the consumers' ops in [from, to), reusing a producer's clone
  /// among `shared` wherever one computes the same pure value.
  void cloneConsumerPrologue(RewriterBase &rewriter, Operation *from,
                             Operation *to, ArrayRef<Operation *> shared,
                             IRMapping &map);
  LogicalResult collectBarriers(RoleKind role);
  LogicalResult collectRings(RoleKind role);
  LogicalResult checkBarriers();
  LogicalResult checkRings();
  /// Adds the checked form's assertions for `op` (a clone in the fused
  /// loop, of role `role`) before it; `n` is the iteration number.
  void addObligations(OpBuilder &b, Operation *clone, Operation *original,
                      RoleKind role, Value n);

  WarpSpecializeOp op;
  /// Each role's main loop and, in a persistent kernel, the tile loop
  /// around it, with the count of main-loop iterations the tile loop
  /// carries (`base`) and the main loop continues (`counter`).
  scf::ForOp loops[2], tileLoops[2];
  BlockArgument bases[2], counters[2];
  /// The lookahead of the form being built (`lookahead()` in the
  /// synchronized form, else 0).
  int64_t ahead = 0;
  /// Whether the roles multicast copies or arrive on cluster barriers.
  bool usesCluster = false;
  /// The interleaved tile loop's induction variable (persistent kernels).
  Value fusedTile;
  /// Induction variables the same in every program of a cluster at one
  /// iteration: `main`'s and the interleaved tile loop's.
  SmallVector<Value, 2> uniformIVs(Value main) {
    SmallVector<Value, 2> ivs = {main};
    if (fusedTile)
      ivs.push_back(fusedTile);
    return ivs;
  }
  llvm::MapVector<Value, BarrierUse> barriers;
  llvm::MapVector<Value, SmallVector<RingAccess>> rings[2];
};

/// A loop over `c`'s range carrying `p`'s and then `c`'s iteration
/// arguments, both loops' induction variables and arguments mapped to its
/// own (which keep their source names, for the checker's
/// counterexamples); the rewriter is left at the start of its empty body.
scf::ForOp createFusedLoop(RewriterBase &rewriter, scf::ForOp p, scf::ForOp c,
                           IRMapping &map);
/// Maps `p`'s and then `c`'s results to `fused`'s (createFusedLoop's).
void mapFusedResults(scf::ForOp p, scf::ForOp c, scf::ForOp fused,
                     IRMapping &map);

} // namespace tessera::tile::fusion

#endif // TESSERA_LIB_DIALECT_TILE_FUSER_H
