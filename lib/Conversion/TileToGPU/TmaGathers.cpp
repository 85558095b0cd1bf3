//===- TmaGathers.cpp - Gathered rows into TMA buffers on sm_90a ----------===//
//
// A gathering tile.copy into a buffer wgmma reads (tile.tma) cannot be a
// TMA box: its rows are anywhere in the view. Each thread moves the
// 16-byte chunks of the copy's coalesced layout (as for any tile.copy, the
// row from its row-index registers) with cp.async, zero-filled past the
// view, to where TMA would have put them (the buffer's 128-, 64- or
// 32-byte swizzle); views whose rows are not 16-byte aligned take masked
// element loads and one 16-byte store per chunk. Such writes are the
// generic proxy's: every wait for copies (tile.async_wait, and a
// synchronous copy's own) is followed by fence.proxy.async, so that after
// the barrier that follows it wgmma (the async proxy) sees the rows. Their
// completion is the commit groups', not an mbarrier's: no fill is recorded
// on the buffer's barriers.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

Value GPULowering::loadMaskedVector(
    Value view, VectorType type,
    function_ref<std::pair<SmallVector<Value>, Value>(int64_t)> element) {
  Value data =
      arith::ConstantOp::create(builder, loc, type, builder.getZeroAttr(type));
  for (int64_t e = 0; e < type.getNumElements(); ++e) {
    auto [indices, inside] = element(e);
    auto load = scf::IfOp::create(builder, loc, TypeRange{type}, inside,
                                  /*withElse=*/true);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(load.thenBlock());
    Value value = memref::LoadOp::create(builder, loc, view, indices);
    scf::YieldOp::create(
        builder, loc,
        vector::InsertOp::create(builder, loc, value, data, e).getResult());
    builder.setInsertionPointToStart(load.elseBlock());
    scf::YieldOp::create(builder, loc, data);
    data = load.getResult(0);
  }
  return data;
}

LogicalResult GPULowering::lowerTmaGather(tile::CopyOp op) {
  const TmaBuffer &buffer = tmaBuffers.at(op.getDest());
  tile::SharedType type = op.getDest().getType();
  SmallVector<int64_t> shape(type.getShape());
  int64_t bytes = buffer.elementBytes, vec = 16 / bytes;
  Type element = getGPUStorageType(type.getElementType());
  Value view = mapping.lookup(op.getSource());
  SmallVector<Value> offsets;
  for (Value offset : op.getOffsets())
    offsets.push_back(mapping.lookup(offset));
  Value slot = op.getSlot() ? mapping.lookup(op.getSlot()) : Value();
  Value alignedRows = rowsAligned(view, bytes);
  Value base = slotAddress(buffer, slot);
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, view);
  Value pointer =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, view);
  auto global = LLVM::LLVMPointerType::get(builder.getContext(), 1);
  auto vectorType = VectorType::get({vec}, element);
  auto i64 = builder.getI64Type();
  LogicalResult moved = forEachCopyChunk(
      op, shape, bytes, view, offsets, SharedBuffer(), slot,
      [&](const CopyChunk &chunk) {
        Value chunkIndex =
            arith::DivUIOp::create(builder, loc, chunk.tileCol, index(vec));
        Value address = arith::AddIOp::create(
            builder, loc, base,
            arith::IndexCastOp::create(
                builder, loc, i64,
                tmaChunkOffset(buffer, chunk.tileRow, chunkIndex)));
        Value dest = sharedPointer(address);
        auto branch = scf::IfOp::create(builder, loc, alignedRows,
                                        /*withElseRegion=*/true);
        OpBuilder::InsertionGuard guard(builder);
        builder.setInsertionPointToStart(branch.thenBlock());
        // The chunk's first element, in bytes from the aligned pointer.
        Value elements = metadata.getOffset();
        for (auto [at, stride] :
             llvm::zip_equal(chunk.source, metadata.getStrides()))
          elements = arith::AddIOp::create(
              builder, loc, elements,
              arith::MulIOp::create(builder, loc, at, stride));
        Value source = arith::AddIOp::create(
            builder, loc, pointer,
            arith::MulIOp::create(builder, loc, elements, index(bytes)));
        Value sourceBytes = arith::IndexCastOp::create(
            builder, loc, builder.getI32Type(),
            arith::MulIOp::create(builder, loc, chunk.count, index(bytes)));
        NVVM::CpAsyncOp::create(
            builder, loc, dest,
            LLVM::IntToPtrOp::create(
                builder, loc, global,
                arith::IndexCastOp::create(builder, loc, i64, source)
                    .getResult()),
            builder.getI32IntegerAttr(16),
            NVVM::LoadCacheModifierKindAttr::get(
                builder.getContext(), NVVM::LoadCacheModifierKind::CG),
            sourceBytes);
        // Unaligned rows: element by element, zeros past the count.
        builder.setInsertionPointToStart(branch.elseBlock());
        Value data = loadMaskedVector(view, vectorType, [&](int64_t e) {
          return chunkElement(chunk, e);
        });
        LLVM::StoreOp::create(builder, loc, data, dest, 16);
      });
  if (failed(moved))
    return failure();
  if (!op.getAsync()) {
    // A synchronous copy is complete, and fenced, before the next barrier.
    NVVM::CpAsyncCommitGroupOp::create(builder, loc);
    NVVM::CpAsyncWaitGroupOp::create(builder, loc, 0);
    fenceForAsyncProxy();
  }
  return success();
}
