//===- TileInterleaveRoles.cpp - Roles as one loop on targets without ----===//
//
// Only the sm_90a lowering runs a `tile.warp_specialize`'s roles on warps
// of their own (TMA fills completing on mbarriers, setmaxnreg). Elsewhere
// the roles run interleaved, iteration by iteration, with all the kernel's
// threads, the hand-over synchronized as tag-check models it (a fill is an
// asynchronous copy its arrival commits, a wait retires it and is a
// barrier, a release is a barrier): the form whose races and data flow
// tag-check proved, so a kernel specialized for Hopper still runs on sm_80,
// gfx942 and gfx90a.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/WarpSpecialize.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"

namespace tessera {
#define GEN_PASS_DEF_TILEINTERLEAVEROLES
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

namespace {
struct TileInterleaveRolesPass
    : tessera::impl::TileInterleaveRolesBase<TileInterleaveRolesPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const TargetInfo *target = getModuleTarget(module);
    if (!all && (!target || target->runsRoles()))
      return;
    for (auto kernel : module.getOps<tile::KernelOp>())
      if (failed(tile::interleaveRoles(kernel, tile::FuseMode::Synchronized)))
        return signalPassFailure();
  }
};
} // namespace
