//===- TilePersistent.cpp - Persistent kernels over rasterized tiles ------===//
//
// A kernel written for one program instance of a grid becomes one whose
// (fewer) instances loop over the grid's tiles in grouped raster order
// (tile.tile_coords). The launched grid's size and the number of instances
// arrive in four appended index arguments the runtime fills; what does not
// depend on the tile moves before the loop.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

namespace tessera {
#define GEN_PASS_DEF_TILEPERSISTENT
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

/// Whether `op` (none of whose operands is computed per tile) can run once
/// before the tile loop: shared buffers, tag bindings and assumptions, and
/// pure scalar code other than the program's coordinates (constants, view
/// sizes). Tiles stay in the loop: hoisted, their registers would be live
/// across it.
static bool runsOnce(Operation &op) {
  if (op.getNumRegions())
    return false;
  if (isa<tile::AllocSharedOp, tag::BindOp, tag::AssumeOp>(op))
    return true;
  return isPure(&op) && !isa<tile::ProgramIdOp, tile::NumProgramsOp>(op) &&
         llvm::none_of(op.getResultTypes(),
                       [](Type type) { return isa<ShapedType>(type); });
}

static LogicalResult makePersistent(tile::KernelOp kernel,
                                    tile::PersistentAttr policy) {
  if (std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster())
    for (int32_t dim : cluster->drop_front())
      if (dim != 1)
        return kernel.emitOpError("is persistent, so its grid is "
                                  "one-dimensional: its cluster must be "
                                  "cluster(n)");
  if (!kernel.getBody().front().getOps<tile::WarpSpecializeOp>().empty())
    return kernel.emitOpError("is warp-specialized; tile-persistent does not "
                              "loop its roles over tiles yet");
  OpBuilder b(kernel.getContext());
  Location loc = kernel.getLoc();
  Block &body = kernel.getBody().front();
  // The grid's x, y, z, then the programs started (not the GPU's grid
  // size, which AMD code reads through device libraries).
  SmallVector<Value, 4> grid;
  for (int64_t d = 0; d < tile::kPersistentArguments; ++d) {
    NamedAttribute marker(tile::TileDialect::GridAttrHelper::getNameStr(),
                          b.getI64IntegerAttr(d));
    if (failed(kernel.insertArgument(kernel.getNumArguments(), b.getIndexType(),
                                     b.getDictionaryAttr(marker), loc)))
      return failure();
    grid.push_back(body.getArguments().back());
  }

  // What depends on the tile, in order; the rest stays before the loop.
  SmallVector<Operation *> perTile;
  llvm::DenseSet<Operation *> isPerTile;
  bool hasShared = false;
  kernel.walk([&](tile::AllocSharedOp) { hasShared = true; });
  for (Operation &op : body.without_terminator()) {
    bool dependent = llvm::any_of(op.getOperands(), [&](Value v) {
      return isPerTile.contains(v.getDefiningOp());
    });
    if (dependent || !runsOnce(op)) {
      perTile.push_back(&op);
      isPerTile.insert(&op);
    }
  }

  b.setInsertionPoint(body.getTerminator());
  Value worker =
      tile::ProgramIdOp::create(b, loc, b.getIndexType(), tile::Dim::x);
  Value tiles = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, grid[0], grid[1]), grid[2]);
  auto loop = scf::ForOp::create(b, loc, worker, tiles, grid[3]);
  Block *loopBody = loop.getBody();
  for (Operation *op : perTile)
    op->moveBefore(loopBody->getTerminator());

  b.setInsertionPointToStart(loopBody);
  auto coords = tile::TileCoordsOp::create(
      b, loc, SmallVector<Type>(3, b.getIndexType()), loop.getInductionVar(),
      grid[0], grid[1], grid[2], policy.getGroup());
  SmallVector<Operation *> replaced;
  loopBody->walk([&](Operation *op) {
    if (auto id = dyn_cast<tile::ProgramIdOp>(op)) {
      id.replaceAllUsesWith(
          coords->getResult(static_cast<unsigned>(id.getDim())));
      replaced.push_back(op);
    } else if (auto count = dyn_cast<tile::NumProgramsOp>(op)) {
      count.replaceAllUsesWith(grid[static_cast<unsigned>(count.getDim())]);
      replaced.push_back(op);
    }
  });
  for (Operation *op : replaced)
    op->erase();
  // The next tile's copies may refill buffers this tile still reads.
  if (hasShared) {
    b.setInsertionPoint(loopBody->getTerminator());
    tile::BarrierOp::create(b, loc);
  }
  return success();
}

namespace {
struct TilePersistentPass
    : tessera::impl::TilePersistentBase<TilePersistentPass> {
  using TilePersistentBase::TilePersistentBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    tile::TileDialect::PersistentAttrHelper helper(&getContext());
    bool named = kernel.empty();
    for (auto op : module.getOps<tile::KernelOp>()) {
      if (op.getSymName() == kernel) {
        named = true;
        if (group < 1 || group > tile::kMaxPersistentGroup) {
          op.emitOpError("cannot be made persistent with group = ")
              << group.getValue() << "; use 1 to " << tile::kMaxPersistentGroup;
          return signalPassFailure();
        }
        if (!helper.isAttrPresent(op))
          helper.setAttr(
              op, tile::PersistentAttr::get(&getContext(), group.getValue()));
      }
      if (!helper.isAttrPresent(op) || tile::isPersistentKernel(op))
        continue;
      if (failed(makePersistent(op, helper.getAttr(op))))
        return signalPassFailure();
    }
    if (!named) {
      module.emitError() << "tile-persistent: no kernel named '" << kernel
                         << "'";
      signalPassFailure();
    }
  }
};
} // namespace
