//===- ViewStores.cpp - Stores and atomic adds into views -----------------===//
//
// tile.store into a view and tile.atomic_add: each element by one of the
// threads that hold it, what falls outside the view skipped. On NVIDIA a
// plain store of a 2-D tile writes each run of registers along a row (4 to
// 16 bytes) with one vector store where the view's rows are 16-byte
// aligned, the column offset is a multiple of the run and the run lies
// inside the view, element by element otherwise; on AMD it goes through a
// buffer resource (AmdMemory.cpp). Atomic adds and scatters (rows chosen
// by index) add or store element by element.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

bool GPULowering::storeRuns(Value value, const LinearLayout &layout,
                            Value owner, Value view, ArrayRef<Value> offsets) {
  auto type = cast<VectorType>(value.getType());
  std::optional<ViewRuns> runs = viewRuns(view, offsets, layout, type);
  if (!runs)
    return false;
  int64_t run = runs->run, bytes = runs->bytes;
  Value rowsDim = runs->rows, colsDim = runs->cols, direct = runs->direct;
  unsigned rank = cast<MemRefType>(view.getType()).getRank();
  for (int64_t reg = 0; reg < type.getNumElements(); reg += run) {
    // A run that repeats another's elements (a register broadcast bit) is
    // stored by that one.
    if (*layout.findRegister(layout.apply(reg, 0, 0)) != uint64_t(reg))
      continue;
    SmallVector<Value> coord = coordinate(layout, reg);
    Value row =
        arith::AddIOp::create(builder, loc, offsets[rank - 2], coord[0]);
    Value col =
        arith::AddIOp::create(builder, loc, offsets[rank - 1], coord[1]);
    Value count = runInside(row, col, rowsDim, colsDim, run);
    // Elements other threads hold too are stored by one of them.
    if (owner)
      count = arith::SelectOp::create(builder, loc, owner, count, index(0));
    SmallVector<Value> at(offsets.begin(), std::prev(offsets.end(), 2));
    at.push_back(row);
    at.push_back(col);
    Value part = vector::ExtractStridedSliceOp::create(
        builder, loc, value, ArrayRef<int64_t>{reg}, ArrayRef<int64_t>{run},
        ArrayRef<int64_t>{1});
    Value whole = arith::AndIOp::create(
        builder, loc, direct,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, count,
                              index(run)));
    auto split = scf::IfOp::create(builder, loc, whole, /*withElse=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(split.thenBlock());
    vector::StoreOp::create(builder, loc, part, view, at,
                            /*nontemporal=*/false,
                            llvm::MaybeAlign(run * bytes));
    // Rows not aligned, a run across the view's edge or outside it: the
    // elements before the edge one by one.
    builder.setInsertionPointToStart(split.elseBlock());
    for (int64_t e = 0; e < run; ++e) {
      auto [index, inside] = runElement(at, count, e);
      auto one = scf::IfOp::create(builder, loc, inside);
      OpBuilder::InsertionGuard inner(builder);
      builder.setInsertionPointToStart(one.thenBlock());
      memref::StoreOp::create(builder, loc,
                              vector::ExtractOp::create(builder, loc, part, e),
                              view, index);
    }
  }
  return true;
}

LogicalResult GPULowering::storeToView(Operation *op, Value tile, Value dest,
                                       ValueRange indices, Value rows,
                                       bool atomic) {
  auto destType = cast<tile::ViewType>(dest.getType());
  if (destType.getElementType().getIntOrFloatBitWidth() < 8)
    return op->emitOpError("into a view of sub-byte codes is not supported "
                           "by convert-tile-to-gpu yet");
  Type element = destType.getElementType();
  if (atomic && !element.isF32() && !element.isSignlessInteger(32))
    return op->emitOpError("of ")
           << element
           << " is not supported by convert-tile-to-gpu yet (f32 and i32 "
              "are)";
  Value view = mapping.lookup(dest);
  LinearLayout layout = layoutOf(tile);
  LinearLayout rowsLayout = rows ? layoutOf(rows) : LinearLayout();
  Value value = mapping.lookup(tile);
  SmallVector<Value> offsets;
  for (Value offset : indices)
    offsets.push_back(mapping.lookup(offset));
  // Registers that repeat an element another register of this thread holds
  // (register broadcast bits) are stored once, and elements other threads
  // hold too (lane or warp broadcast bits) by one of them: a store that
  // updates what the kernel loaded from the same view must not be seen by
  // a replica that has yet to load it, and an atomic add must add once.
  Value owner = ownsElements(layout);
  auto storeElements = [&]() -> LogicalResult {
    for (int64_t reg = 0; reg < layout.getSize(LinearLayout::Register); ++reg) {
      if (layout.findRegister(layout.apply(reg, 0, 0)) != uint64_t(reg))
        continue;
      Value row = rowIndex(rows, rowsLayout, layout, reg, op);
      if (rows && !row)
        return failure();
      auto [at, inside] =
          viewElement(view, offsets, coordinate(layout, reg), row);
      if (owner)
        inside = arith::AndIOp::create(builder, loc, inside, owner);
      auto branch = scf::IfOp::create(builder, loc, inside);
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(branch.thenBlock());
      Value item = vector::ExtractOp::create(builder, loc, value, reg);
      if (atomic)
        memref::AtomicRMWOp::create(builder, loc,
                                    element.isF32()
                                        ? arith::AtomicRMWKind::addf
                                        : arith::AtomicRMWKind::addi,
                                    item, view, at);
      else
        memref::StoreOp::create(builder, loc, item, view, at);
    }
    return success();
  };
  // NVIDIA: plain stores of 2-D tiles, a vector store per run of a row.
  if (!isAmd() && !atomic && !rows)
    if (storeRuns(value, layout, owner, view, offsets))
      return success();
  // AMD: plain stores of 2-D tiles go through a buffer resource, masked
  // by out-of-range offsets instead of branches.
  if (isAmd() && !atomic && !rows && layout.getRank() == 2) {
    LogicalResult stored = success();
    storeThroughBuffer(value, layout, owner, view, offsets,
                       getGPUStorageType(element),
                       [&] { stored = storeElements(); });
    return stored;
  }
  return storeElements();
}
