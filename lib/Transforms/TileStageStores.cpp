//===- TileStageStores.cpp - Output stores through shared memory ----------===//
//
// tile-stage-stores: a kernel's per-program stores of register tiles into
// its output views become stores into shared buffers and asynchronous
// copies out (tile.copy_out), which sm_90a runs as TMA stores. Each copy is
// waited for just before its buffer is written again, so that in a
// persistent kernel it overlaps the next tile's work.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessera {
#define GEN_PASS_DEF_TILESTAGESTORES
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

/// Whether `store` runs once per program: in the kernel's body or its
/// consumer role's, into a 2-D or 3-D argument of the kernel, of a 2-D tile.
static bool isEpilogueStore(tile::KernelOp kernel, tile::StoreOp store) {
  auto view = dyn_cast<tile::ViewType>(store.getDest().getType());
  auto arg = dyn_cast<BlockArgument>(store.getDest());
  if (!view || !arg || arg.getOwner() != &kernel.getBody().front() ||
      view.getRank() < 2 || view.getRank() > 3 ||
      store.getValue().getType().getRank() != 2)
    return false;
  Operation *parent = store->getParentOp();
  if (parent == kernel)
    return true;
  auto roles = dyn_cast<tile::WarpSpecializeOp>(parent);
  return roles && store->getParentRegion() == &roles.getConsumer() &&
         roles->getParentOp() == kernel;
}

static void stageStores(tile::KernelOp kernel) {
  SmallVector<tile::StoreOp> stores;
  kernel.walk([&](tile::StoreOp store) {
    if (isEpilogueStore(kernel, store))
      stores.push_back(store);
  });
  MLIRContext *ctx = kernel.getContext();
  for (tile::StoreOp store : stores) {
    Location loc = store.getLoc();
    RankedTensorType type = store.getValue().getType();
    OpBuilder builder(ctx);
    // Buffers live for the whole kernel: allocated at its start.
    builder.setInsertionPointToStart(&kernel.getBody().front());
    Value buffer = tile::AllocSharedOp::create(
        builder, loc,
        tile::SharedType::get(ctx, type.getShape(), type.getElementType(), 0));
    builder.setInsertionPoint(store);
    tile::AsyncWaitOp::create(builder, loc, 0);
    tile::BarrierOp::create(builder, loc);
    tile::StoreOp::create(builder, loc, store.getValue(), buffer, ValueRange{});
    tile::BarrierOp::create(builder, loc);
    tile::CopyOutOp::create(builder, loc, buffer, Value(), store.getDest(),
                            store.getIndices(), /*async=*/true);
    tile::AsyncCommitOp::create(builder, loc);
    store.erase();
  }
}

namespace {
struct TileStageStoresPass
    : tessera::impl::TileStageStoresBase<TileStageStoresPass> {
  using TileStageStoresBase::TileStageStoresBase;

  void runOnOperation() override {
    bool named = kernel.empty();
    for (auto op : getOperation().getOps<tile::KernelOp>()) {
      if (!kernel.empty() && op.getSymName() != kernel)
        continue;
      named = true;
      stageStores(op);
    }
    if (!named) {
      getOperation().emitError()
          << "tile-stage-stores: no kernel named '" << kernel << "'";
      signalPassFailure();
    }
  }
};
} // namespace
