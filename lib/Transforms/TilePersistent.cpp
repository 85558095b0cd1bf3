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
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
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
  if (isa<tile::AllocSharedOp, tile::AllocMbarrierOp, tag::BindOp,
          tag::AssumeOp>(op))
    return true;
  return isPure(&op) && !isa<tile::ProgramIdOp, tile::NumProgramsOp>(op) &&
         llvm::none_of(op.getResultTypes(),
                       [](Type type) { return isa<ShapedType>(type); });
}

/// Replaces the program's coordinates in `block` by the tile's and the
/// number of programs by the launched grid's size.
static void replaceProgramCoordinates(Block *block, ValueRange coords,
                                      ArrayRef<Value> grid) {
  SmallVector<Operation *> replaced;
  block->walk([&](Operation *op) {
    if (auto id = dyn_cast<tile::ProgramIdOp>(op)) {
      id.replaceAllUsesWith(coords[static_cast<unsigned>(id.getDim())]);
      replaced.push_back(op);
    } else if (auto count = dyn_cast<tile::NumProgramsOp>(op)) {
      count.replaceAllUsesWith(grid[static_cast<unsigned>(count.getDim())]);
      replaced.push_back(op);
    }
  });
  for (Operation *op : replaced)
    op->erase();
}

namespace {
/// The rotation of one role's ring slots in one tile.
struct Rotation {
  Value base;
  /// Per slot count S: S, base mod S and (base div S) mod 2.
  llvm::DenseMap<int64_t, std::array<Value, 3>> shifts;
  /// Per slot (and slot count): the rotated slot and whether it wrapped.
  llvm::DenseMap<std::pair<Value, int64_t>, std::pair<Value, Value>> slots;
};
} // namespace

/// Rewrites `op`'s ring slot (and, for a wait, its parity) from the
/// tile's own count of main-loop iterations n to the role's count over
/// all its tiles, base + n, where `rotation` holds base mod S and (base
/// div S) mod 2: slot (s + base mod S) mod S, and the parity flips with
/// (base div S) mod 2 and with that sum wrapping past S.
static void rotateSlot(OpBuilder &b, Operation *op, OpOperand &slotOperand,
                       int64_t slots, Rotation &rotation) {
  Location loc = op->getLoc();
  std::array<Value, 3> &shift = rotation.shifts[slots];
  if (!shift[0]) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op->getParentOfType<scf::ForOp>());
    shift[0] = arith::ConstantIndexOp::create(b, loc, slots);
    shift[1] = arith::RemUIOp::create(b, loc, rotation.base, shift[0]);
    shift[2] = arith::IndexCastOp::create(
        b, loc, b.getI1Type(),
        arith::DivUIOp::create(b, loc, rotation.base, shift[0]));
  }
  auto [rotated, wraps] = rotation.slots.lookup({slotOperand.get(), slots});
  if (!rotated) {
    b.setInsertionPoint(op);
    Value sum = arith::AddIOp::create(b, loc, slotOperand.get(), shift[1]);
    wraps =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, sum, shift[0]);
    rotated = arith::SelectOp::create(
        b, loc, wraps, arith::SubIOp::create(b, loc, sum, shift[0]), sum);
    rotation.slots[{slotOperand.get(), slots}] = {rotated, wraps};
  }
  slotOperand.set(rotated);
  Value flip = shift[2];
  b.setInsertionPoint(op);
  if (auto wait = dyn_cast<tile::MbarrierWaitOp>(op)) {
    Value parity = arith::XOrIOp::create(b, loc, wait.getParity(), flip);
    wait.getParityMutable().assign(
        arith::XOrIOp::create(b, loc, parity, wraps));
  }
}

/// A warp-specialized kernel: each role loops over the tiles itself (the
/// roles split once), carrying the count of its main loop's iterations
/// from tile to tile, so that the ring slots and barrier phases continue
/// where the last tile left them.
static LogicalResult loopRolesOverTiles(tile::WarpSpecializeOp roles,
                                        tile::PersistentAttr policy,
                                        ArrayRef<Value> grid,
                                        ArrayRef<Operation *> perTile) {
  // Constants stay where they are (tiles among them cross into the roles
  // as the verifier allows); the rest is scalar arithmetic each role
  // recomputes per tile.
  SmallVector<Operation *> moved;
  for (Operation *op : perTile) {
    if (op == roles.getOperation() || op->hasTrait<OpTrait::ConstantLike>())
      continue;
    moved.push_back(op);
    if (!op->isBeforeInBlock(roles) || op->getNumRegions() ||
        !isMemoryEffectFree(op) ||
        llvm::any_of(op->getResultTypes(),
                     [](Type type) { return isa<ShapedType>(type); }))
      return op->emitOpError(
          "depends on the program's coordinates outside the roles of a "
          "warp-specialized kernel; tile-persistent moves only scalar "
          "arithmetic before the tile.warp_specialize into its roles' tile "
          "loops");
  }
  // The programs of a cluster that multicast or release each other's
  // slots walk the tiles together: the cluster takes N neighbouring x
  // tiles at a time (N its programs), each program the one of its rank,
  // so that all run the same number of tiles with the same y and z.
  auto kernel = roles->getParentOfType<tile::KernelOp>();
  int64_t together =
      tile::sharesWithCluster(kernel) ? tile::clusterBlocks(kernel) : 1;
  Location loc = roles.getLoc();
  OpBuilder b(roles);
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value program =
      tile::ProgramIdOp::create(b, loc, b.getIndexType(), tile::Dim::x);
  // The cluster's index and count (the runtime starts whole clusters),
  // the program's rank, and the grid of groups of N x tiles.
  Value worker = program, workers = grid[3], groups = grid[0], rank, n;
  if (together > 1) {
    n = arith::ConstantIndexOp::create(b, loc, together);
    worker = arith::DivUIOp::create(b, loc, program, n);
    workers = arith::DivUIOp::create(b, loc, grid[3], n);
    rank = arith::RemUIOp::create(b, loc, program, n);
    groups = arith::DivUIOp::create(
        b, loc,
        arith::AddIOp::create(
            b, loc, grid[0],
            arith::ConstantIndexOp::create(b, loc, together - 1)),
        n);
  }
  Value tiles = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, groups, grid[1]), grid[2]);

  for (Region *region : {&roles.getProducer(), &roles.getConsumer()}) {
    bool producer = region == &roles.getProducer();
    Block &block = region->front();
    auto mains = block.getOps<scf::ForOp>();
    if (mains.empty() || std::next(mains.begin()) != mains.end())
      return roles.emitOpError()
             << "has " << (mains.empty() ? "no" : "more than one")
             << " scf.for at the top level of its "
             << (producer ? "producer" : "consumer")
             << " role; a role has one main loop, which tile-persistent "
                "runs for each tile";
    scf::ForOp main = *mains.begin();
    // Shared buffers other than rings written in a role: the consumers
    // meet before the next tile's writes; the producer cannot.
    bool writesShared = false;
    WalkResult walk = region->walk([&](Operation *op) {
      Value dest;
      if (auto copy = dyn_cast<tile::CopyOp>(op))
        dest = copy.getDest();
      else if (auto store = dyn_cast<tile::StoreOp>(op))
        dest = store.getDest();
      auto shared = dest ? dyn_cast<tile::SharedType>(dest.getType())
                         : tile::SharedType();
      if (!shared || shared.isRing())
        return WalkResult::advance();
      if (producer) {
        op->emitOpError("writes a shared buffer that is not a ring in the "
                        "producer role, which tile-persistent cannot order "
                        "against the next tile's writes");
        return WalkResult::interrupt();
      }
      writesShared = true;
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    b.setInsertionPointToStart(&block);
    auto outer =
        scf::ForOp::create(b, loc, worker, tiles, workers, ValueRange{zero});
    Block *tileBody = outer.getBody();
    for (Operation &op : llvm::make_early_inc_range(block))
      if (&op != outer.getOperation())
        op.moveBefore(tileBody, tileBody->end());
    b.setInsertionPointToStart(tileBody);
    auto coords = tile::TileCoordsOp::create(
        b, loc, SmallVector<Type>(3, b.getIndexType()), outer.getInductionVar(),
        groups, grid[1], grid[2], policy.getGroup());
    SmallVector<Value, 3> tile(coords.getResults());
    if (together > 1)
      tile[0] = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, tile[0], n), rank);
    // The kernel's per-tile arithmetic, recomputed in the role.
    IRMapping map;
    for (Operation *op : moved) {
      Operation *clone = b.clone(*op, map);
      for (auto [from, to] :
           llvm::zip_equal(op->getResults(), clone->getResults()))
        from.replaceUsesWithIf(to, [&](OpOperand &use) {
          return region->isAncestor(use.getOwner()->getParentRegion());
        });
    }
    replaceProgramCoordinates(tileBody, tile, grid);

    // The main loop counts the role's iterations over all tiles.
    Value base = outer.getRegionIterArgs()[0];
    IRRewriter rewriter(b);
    rewriter.setInsertionPoint(main);
    FailureOr<LoopLikeOpInterface> counted = main.replaceWithAdditionalYields(
        rewriter, ValueRange{base}, /*replaceInitOperandUsesInLoop=*/false,
        [&](OpBuilder &yb, Location at, ArrayRef<BlockArgument> args) {
          return SmallVector<Value>{
              arith::AddIOp::create(yb, at, args.front(), one)};
        });
    if (failed(counted))
      return main.emitOpError("could not carry the role's iteration count");
    main = cast<scf::ForOp>(counted->getOperation());
    Rotation rotation;
    rotation.base = base;
    for (Operation &op :
         llvm::make_early_inc_range(main.getBody()->without_terminator())) {
      if (auto wait = dyn_cast<tile::MbarrierWaitOp>(op))
        rotateSlot(b, &op, wait.getSlotMutable(),
                   wait.getBarrier().getType().getSlots(), rotation);
      else if (auto arrive = dyn_cast<tile::MbarrierArriveOp>(op))
        rotateSlot(b, &op, arrive.getSlotMutable(),
                   arrive.getBarrier().getType().getSlots(), rotation);
      else if (auto copy = dyn_cast<tile::CopyOp>(op);
               copy && copy.getDest().getType().isRing())
        rotateSlot(b, &op, copy.getSlotMutable()[0],
                   copy.getDest().getType().getStages(), rotation);
      else if (auto load = dyn_cast<tile::LoadOp>(op))
        if (auto ring = dyn_cast<tile::SharedType>(load.getSource().getType());
            ring && ring.isRing())
          rotateSlot(b, &op, load.getIndicesMutable()[0], ring.getStages(),
                     rotation);
    }
    b.setInsertionPointToEnd(tileBody);
    if (writesShared)
      tile::BarrierOp::create(b, loc);
    scf::YieldOp::create(b, loc, main.getResults().back());
  }
  for (Operation *op : llvm::reverse(moved)) {
    if (!op->use_empty())
      return op->emitOpError("is used outside the roles after "
                             "tile-persistent moved it into them");
    op->erase();
  }
  return success();
}

static LogicalResult makePersistent(tile::KernelOp kernel,
                                    tile::PersistentAttr policy) {
  if (std::optional<ArrayRef<int32_t>> cluster = kernel.getCluster())
    for (int32_t dim : cluster->drop_front())
      if (dim != 1)
        return kernel.emitOpError("is persistent, so its grid is "
                                  "one-dimensional: its cluster must be "
                                  "cluster(n)");
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

  auto roles = body.getOps<tile::WarpSpecializeOp>();
  if (!roles.empty()) {
    if (policy.getPingpong() && tile::sharesWithCluster(kernel))
      return kernel.emitOpError(
          "asks for the ping-pong schedule in clusters (multicast copies or "
          "cluster mbarrier arrays), which is not supported yet");
    // Two consumer sets: their threads must fit, and each consumer thread
    // gets at most what leaves the register file room for both.
    if (policy.getPingpong()) {
      tile::WarpSpecializeOp split = *roles.begin();
      split.setPingpong(true);
      int64_t room = tile::kRegisterFileSize -
                     split.getProducerRegisters() * tile::kProducerThreads;
      int64_t most =
          room / (split.getConsumerGroups() * kernel.getThreads()) / 8 * 8;
      if (most >= 24 && split.getConsumerRegisters() > most)
        split.setConsumerRegisters(most);
      if (failed(split.verify()))
        return failure();
    }
    return loopRolesOverTiles(*roles.begin(), policy, grid, perTile);
  }
  if (policy.getPingpong())
    return kernel.emitOpError(
        "asks for the ping-pong schedule, which needs a warp-specialized "
        "kernel (tile.warp_specialize; run tile-pipeline{warp-specialize} "
        "first)");

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
  replaceProgramCoordinates(loopBody, coords.getResults(), grid);
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
          helper.setAttr(op, tile::PersistentAttr::get(&getContext(),
                                                       group.getValue(),
                                                       pingpong.getValue()));
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
