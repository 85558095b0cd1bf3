//===- AmdMemory.cpp - Copies and stores through buffer resources --------===//
//
// On AMD chips a tile.copy reads through a buffer resource (a V#: base,
// stride 0, num_records) made once per copy, whose base is the tile's
// origin in the view and whose num_records is the view's extent from there
// in bytes, so the hardware returns zeros past the view's end. Each thread
// moves its 16-byte chunks with buffer_load_dwordx4 at a 32-bit offset
// (the base stays in scalar registers, the per-thread part is one VGPR);
// a chunk wholly outside the view, in a row past the last or a column past
// the last, loads from offset 2^31, out of range, and gets zeros without a
// branch. Chunks that straddle the view's last column, views whose rows are
// not 16-byte aligned and, since offsets are 32-bit, tiles whose rows span
// more than 2 GiB of their view take masked element-wise loads instead.
// A gathering copy's chunks load at their chosen rows through the same
// resource (its extent runs to the view's last row).
// Plain stores of 2-D register tiles go through a resource of the same
// kind: each element with a raw buffer store, at the out-of-range offset
// (dropped) when it lies outside the view or another thread stores it.
// Loads of 2-D register tiles from a view (padded with zeros) whose
// registers run 8 or 16 bytes along a row read each run with one
// buffer_load_dwordx2/x4 the same way, partial runs element by element.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

namespace {
/// Offsets at or past this are out of every resource made here: its
/// num_records never exceeds it.
constexpr int64_t kOutOfRange = int64_t(1) << 31;
/// Word 3 of a gfx9 buffer resource: DATA_FORMAT 32, NUM_FORMAT float
/// (what the raw buffer instructions of CDNA expect; no swizzle, no
/// index, no thread-id addition).
constexpr int32_t kGfx9ResourceFlags = (7 << 12) | (4 << 15);
} // namespace

GPULowering::BufferWindow GPULowering::bufferWindow(Value view,
                                                    ArrayRef<Value> offsets,
                                                    ArrayRef<int64_t> shape,
                                                    int64_t bytes) {
  unsigned rank = cast<MemRefType>(view.getType()).getRank();
  auto add = [&](Value a, Value b) {
    return arith::AddIOp::create(builder, loc, a, b).getResult();
  };
  auto mul = [&](Value a, Value b) {
    return arith::MulIOp::create(builder, loc, a, b).getResult();
  };
  auto cmp = [&](arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, predicate, a, b).getResult();
  };
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, view);
  ValueRange strides = metadata.getStrides(), sizes = metadata.getSizes();
  BufferWindow window;
  window.pitch = strides[rank - 2];
  Value row0 = offsets[rank - 2], col0 = offsets[rank - 1];

  // The tile's origin, in elements from the aligned pointer.
  Value origin = add(metadata.getOffset(), col0);
  for (unsigned d = 0; d + 1 < rank; ++d)
    origin = add(origin, mul(offsets[d], strides[d]));
  Value address =
      add(memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, view),
          mul(origin, index(bytes)));
  Value base = LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()),
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), address),
      LLVM::DereferenceableAttr());

  // num_records: the bytes from the origin to the view's last element, none
  // when the origin is past the last row or column.
  Value zero = index(0);
  Value rowsLeft = arith::SubIOp::create(builder, loc, sizes[rank - 2], row0);
  Value colsLeft = arith::SubIOp::create(builder, loc, sizes[rank - 1], col0);
  Value extent =
      mul(add(mul(arith::SubIOp::create(builder, loc, rowsLeft, index(1)),
                  window.pitch),
              colsLeft),
          index(bytes));
  extent = arith::MinSIOp::create(builder, loc, extent, index(kOutOfRange));
  Value inView = arith::AndIOp::create(
      builder, loc, cmp(arith::CmpIPredicate::sgt, rowsLeft, zero),
      cmp(arith::CmpIPredicate::sgt, colsLeft, zero));
  Value records = arith::IndexCastOp::create(
      builder, loc, builder.getI64Type(),
      arith::SelectOp::create(builder, loc, inView, extent, zero));
  Type i32 = builder.getI32Type();
  window.resource = ROCDL::MakeBufferRsrcOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext(), 8), base,
      arith::ConstantIntOp::create(builder, loc, builder.getI16Type(), 0),
      records,
      arith::ConstantIntOp::create(builder, loc, i32, kGfx9ResourceFlags));

  // Every offset the tile reaches fits in 31 bits.
  Value span = add(mul(index(shape[0] - 1), window.pitch), index(shape[1]));
  window.fits =
      cmp(arith::CmpIPredicate::ule, span, index(kOutOfRange / bytes));
  return window;
}

Value GPULowering::bufferOffset(const BufferWindow &window, Value row,
                                Value col, int64_t bytes) {
  Value elements = arith::AddIOp::create(
      builder, loc, arith::MulIOp::create(builder, loc, row, window.pitch),
      col);
  return arith::IndexCastOp::create(
      builder, loc, builder.getI32Type(),
      arith::MulIOp::create(builder, loc, elements, index(bytes)));
}

Value GPULowering::outOfRange() {
  return arith::ConstantIntOp::create(builder, loc, builder.getI32Type(),
                                      kOutOfRange);
}

Value GPULowering::wholeRun(Value direct, Value count, int64_t run,
                            Value &none) {
  auto cmp = [&](arith::CmpIPredicate predicate, Value a, Value b) {
    return arith::CmpIOp::create(builder, loc, predicate, a, b).getResult();
  };
  none = cmp(arith::CmpIPredicate::eq, count, index(0));
  return arith::AndIOp::create(
      builder, loc, direct,
      arith::OrIOp::create(builder, loc, none,
                           cmp(arith::CmpIPredicate::eq, count, index(run))));
}

Value GPULowering::loadBufferRun(const BufferWindow &window, Value none,
                                 Value tileRow, Value tileCol, int64_t bytes,
                                 VectorType type) {
  Type i32 = builder.getI32Type();
  Value offset =
      arith::SelectOp::create(builder, loc, none, outOfRange(),
                              bufferOffset(window, tileRow, tileCol, bytes));
  Value soffset = arith::ConstantIntOp::create(builder, loc, i32, 0);
  int64_t words = type.getNumElements() * bytes / 4;
  Value loaded = ROCDL::RawPtrBufferLoadOp::create(
      builder, loc, VectorType::get({words}, i32), window.resource, offset,
      soffset, soffset, nullptr, nullptr, nullptr);
  return vector::BitCastOp::create(builder, loc, type, loaded);
}

LogicalResult GPULowering::lowerBufferCopy(tile::CopyOp op, Value view,
                                           ArrayRef<Value> offsets,
                                           ArrayRef<int64_t> shape,
                                           Type element,
                                           const SharedBuffer &buffer,
                                           Value slot) {
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t vec = 16 / bytes;
  BufferWindow window = bufferWindow(view, offsets, shape, bytes);
  unsigned rank = offsets.size();
  if (op.getRows()) {
    // Gathered rows lie anywhere from the origin's row to the view's last.
    Value rowsLeft = arith::SubIOp::create(
        builder, loc, memref::DimOp::create(builder, loc, view, rank - 2),
        offsets[rank - 2]);
    window.fits = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ule,
        arith::MulIOp::create(builder, loc, rowsLeft, window.pitch),
        index(kOutOfRange / bytes));
  }
  // Whole chunks (all of it inside the view or none of it) of 16-byte
  // aligned rows take one buffer_load_dwordx4, from offset 2^31 (out of
  // range: zeros) when none is inside; the rest element by element.
  Value direct = arith::AndIOp::create(builder, loc, window.fits,
                                       rowsAligned(view, bytes));
  return forEachCopyChunk(
      op, shape, bytes, view, offsets, buffer, slot,
      [&](const CopyChunk &chunk) {
        Value none;
        Value whole = wholeRun(direct, chunk.count, vec, none);
        auto split =
            scf::IfOp::create(builder, loc, whole, /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(split.thenBlock());
        // The chunk's row from the window's origin (its tile row unless
        // gathered).
        Value row = op.getRows()
                        ? arith::SubIOp::create(builder, loc, chunk.row,
                                                offsets[rank - 2])
                              .getResult()
                        : chunk.tileRow;
        vector::StoreOp::create(builder, loc,
                                loadBufferRun(window, none, row, chunk.tileCol,
                                              bytes,
                                              VectorType::get({vec}, element)),
                                buffer.memref, chunk.dest,
                                /*nontemporal=*/false, llvm::MaybeAlign(16));
        builder.setInsertionPointToStart(split.elseBlock());
        copyElements(chunk, view, buffer, element, vec);
      });
}

void GPULowering::storeThroughBuffer(Value value, const LinearLayout &layout,
                                     Value owner, Value view,
                                     ArrayRef<Value> offsets, Type element,
                                     function_ref<void()> storeElements) {
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  SmallVector<int64_t> shape(layout.getShape().begin(),
                             layout.getShape().end());
  BufferWindow window = bufferWindow(view, offsets, shape, bytes);
  auto branch =
      scf::IfOp::create(builder, loc, window.fits, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(branch.thenBlock());
  // As storeElements does: each element once, by one of the threads that
  // hold it (`owner`, when several do); the others, and elements outside
  // the view, store out of range.
  Type word = builder.getIntegerType(8 * bytes);
  Value soffset =
      arith::ConstantIntOp::create(builder, loc, builder.getI32Type(), 0);
  for (int64_t reg = 0; reg < layout.getSize(LinearLayout::Register); ++reg) {
    if (layout.findRegister(layout.apply(reg, 0, 0)) != uint64_t(reg))
      continue;
    SmallVector<Value> coord = coordinate(layout, reg);
    Value inside = viewElement(view, offsets, coord).second;
    if (owner)
      inside = arith::AndIOp::create(builder, loc, inside, owner);
    Value offset = arith::SelectOp::create(
        builder, loc, inside, bufferOffset(window, coord[0], coord[1], bytes),
        outOfRange());
    Value item = vector::ExtractOp::create(builder, loc, value, reg);
    if (item.getType() != word)
      item = arith::BitcastOp::create(builder, loc, word, item);
    ROCDL::RawPtrBufferStoreOp::create(builder, loc, item, window.resource,
                                       offset, soffset, soffset, nullptr,
                                       nullptr, nullptr);
  }
  builder.setInsertionPointToStart(branch.elseBlock());
  storeElements();
}

Value GPULowering::loadThroughBuffer(Value view, ArrayRef<Value> offsets,
                                     const LinearLayout &layout,
                                     VectorType type) {
  Type element = type.getElementType();
  int64_t bytes = element.getIntOrFloatBitWidth() / 8;
  int64_t run = contiguousRowRun(layout, Swizzle{}, 8 * bytes);
  if (run * bytes != 8 && run * bytes != 16)
    return {};
  unsigned rank = cast<MemRefType>(view.getType()).getRank();
  SmallVector<int64_t> shape(layout.getShape().begin(),
                             layout.getShape().end());
  BufferWindow window = bufferWindow(view, offsets, shape, bytes);
  Value direct = arith::AndIOp::create(builder, loc, window.fits,
                                       rowsAligned(view, bytes));
  Value rows = memref::DimOp::create(builder, loc, view, rank - 2);
  Value cols = memref::DimOp::create(builder, loc, view, rank - 1);
  Value padding = arith::ConstantOp::create(builder, loc, element,
                                            builder.getZeroAttr(element));
  auto runType = VectorType::get({run}, element);
  FailureOr<Value> result = buildRuns(
      layout, type, run,
      [&](int64_t reg, ArrayRef<Value> coord) -> FailureOr<Value> {
        Value row =
            arith::AddIOp::create(builder, loc, offsets[rank - 2], coord[0]);
        Value col =
            arith::AddIOp::create(builder, loc, offsets[rank - 1], coord[1]);
        Value count = runInside(row, col, rows, cols, run);
        Value none;
        Value whole = wholeRun(direct, count, run, none);
        auto split = scf::IfOp::create(builder, loc, TypeRange{runType}, whole,
                                       /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(split.thenBlock());
        scf::YieldOp::create(
            builder, loc,
            loadBufferRun(window, none, coord[0], coord[1], bytes, runType));
        // The run straddles the view's last column, or the view's rows are
        // not aligned: element by element, zeros past the count.
        builder.setInsertionPointToStart(split.elseBlock());
        SmallVector<Value> at(offsets.begin(), std::prev(offsets.end(), 2));
        at.push_back(row);
        at.push_back(col);
        scf::YieldOp::create(builder, loc,
                             loadRunElements(view, at, count, run, padding));
        return split.getResult(0);
      });
  return *result; // the loads above cannot fail
}
