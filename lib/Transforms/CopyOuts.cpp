//===- CopyOuts.cpp - TMA stores, or copies out by the threads ------------===//
//
// tile.copy_out runs as TMA stores where the chip has them and the buffer
// can be laid out as TMA reads it; elsewhere the threads store the tile: the
// tile that one earlier tile.store alone put in the buffer goes to the view
// directly (a staged epilogue needs no round trip), any other buffer is
// read with a tile.load and stored masked into the view, laid out like any
// other tile (coalesced).
//
//===----------------------------------------------------------------------===//

#include "CopyOuts.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace tessera;

/// Whether TMA can store `alloc`'s buffer: see planCopyOuts.
static bool isTmaStoreBuffer(tile::KernelOp kernel, tile::AllocSharedOp alloc) {
  tile::SharedType type = alloc.getType();
  if (tile::isNibblePairs(type.getElementType(), type.getShape()) ||
      !tile::tmaSwizzleSpan(type))
    return false;
  bool copiedOut = false;
  for (Operation *user : alloc->getUsers()) {
    if (auto store = dyn_cast<tile::StoreOp>(user);
        store && store.getDest() == alloc.getResult())
      continue;
    auto out = dyn_cast<tile::CopyOutOp>(user);
    if (!out)
      return false;
    auto arg = dyn_cast<BlockArgument>(out.getDest());
    int64_t rank = out.getDest().getType().getRank();
    if (!arg || arg.getOwner()->getParentOp() != kernel || rank < 2 || rank > 3)
      return false;
    copiedOut = true;
  }
  return copiedOut;
}

/// The tile.store that alone writes `out`'s buffer (not a ring), earlier in
/// the same block, if there is one.
static tile::StoreOp soleStoreBefore(tile::CopyOutOp out) {
  if (out.getSlot() || !out.getSource().getDefiningOp<tile::AllocSharedOp>())
    return {};
  tile::StoreOp only;
  for (Operation *user : out.getSource().getUsers()) {
    auto store = dyn_cast<tile::StoreOp>(user);
    if (!store)
      continue;
    if (only)
      return {};
    only = store;
  }
  if (!only || only->getBlock() != out->getBlock() ||
      !only->isBeforeInBlock(out))
    return {};
  return only;
}

void tessera::planCopyOuts(tile::KernelOp kernel, const TargetInfo &target) {
  MLIRContext *ctx = kernel.getContext();
  auto tma = tile::TileDialect::TmaAttrHelper(ctx);
  if (target.asyncCopy == AsyncCopyKind::Tma)
    for (auto alloc : kernel.getBody().getOps<tile::AllocSharedOp>())
      if (isTmaStoreBuffer(kernel, alloc))
        tma.setAttr(alloc, UnitAttr::get(ctx));
  SmallVector<tile::CopyOutOp> copies;
  kernel.walk([&](tile::CopyOutOp out) {
    if (auto alloc = out.getSource().getDefiningOp<tile::AllocSharedOp>();
        !alloc || !tma.isAttrPresent(alloc))
      copies.push_back(out);
  });
  auto indexBits = tile::TileDialect::IndexBitsAttrHelper(ctx);
  for (tile::CopyOutOp out : copies) {
    OpBuilder builder(out);
    // A buffer only one earlier store in the same block writes (a staged
    // epilogue, tile-stage-stores): that tile goes to the view directly.
    if (auto store = soleStoreBefore(out)) {
      auto direct =
          tile::StoreOp::create(builder, out.getLoc(), store.getValue(),
                                out.getDest(), out.getOffsets());
      if (auto bits = indexBits.getAttr(out))
        indexBits.setAttr(direct, bits);
      Value buffer = out.getSource();
      out.erase();
      if (buffer.hasOneUse()) {
        store.erase();
        buffer.getDefiningOp()->erase();
      }
      continue;
    }
    tile::SharedType type = out.getSource().getType();
    auto tileType =
        RankedTensorType::get(type.getShape(), type.getElementType());
    SmallVector<Value> slot;
    if (out.getSlot())
      slot.push_back(out.getSlot());
    Value value = tile::LoadOp::create(builder, out.getLoc(), tileType,
                                       out.getSource(), slot, TypedAttr());
    auto store = tile::StoreOp::create(builder, out.getLoc(), value,
                                       out.getDest(), out.getOffsets());
    if (auto bits = indexBits.getAttr(out))
      indexBits.setAttr(store, bits);
    out.erase();
  }
}
