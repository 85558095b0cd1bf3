//===- ConvertLayout.cpp - tile.convert_layout ----------------------------===//
//
// Cheapest first: equal layouts are the same registers; layouts that place
// their lane and warp bits alike are a renaming of each thread's registers
// (a vector shuffle, no instruction once registers are allocated); any
// other pair goes through a scratch buffer of shared memory: one holder of
// each element stores it at its row-major place (runs of elements
// contiguous in registers and in the row as one vector), a barrier, every
// thread loads the elements of its registers under the new layout, a
// barrier (the buffer is reused when the conversion runs again). When the
// source layout's runs are narrower than a 32-bit word, every element
// takes a 32-bit slot instead, so that no two threads store into one word.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Layout/MmaLayouts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace tessera;

LogicalResult GPULowering::lowerConvertLayout(tile::ConvertLayoutOp op) {
  LinearLayout from = layoutOf(op.getSource()), to = layoutOf(op.getResult());
  Value source = mapping.lookup(op.getSource());
  if (from == to) {
    mapping.map(op.getResult(), source);
    return success();
  }
  if (std::optional<SmallVector<int64_t>> permutation =
          registerPermutation(from, to)) {
    mapping.map(
        op.getResult(),
        vector::ShuffleOp::create(builder, loc, source, source, *permutation));
    return success();
  }
  VectorType vectorType = vectorTypeOf(op.getResult());
  Type element = vectorType.getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  ArrayRef<int64_t> shape = op.getType().getShape();
  int64_t elements = from.getNumElements();
  Type i32 = builder.getI32Type();
  bool widened = conversionSlotBits(from, bits) != bits;
  FailureOr<Value> scratch = scratchBuffer(
      op, elements, widened ? i32 : element, "to convert a tile's layout");
  if (failed(scratch))
    return failure();
  Type bitsType = builder.getIntegerType(bits);
  auto widen = [&](Value v) -> Value {
    if (!widened)
      return v;
    if (v.getType() != bitsType)
      v = arith::BitcastOp::create(builder, loc, bitsType, v);
    return arith::ExtUIOp::create(builder, loc, i32, v);
  };
  auto narrow = [&](Value v) -> Value {
    if (!widened)
      return v;
    v = arith::TruncIOp::create(builder, loc, bitsType, v);
    if (element != bitsType)
      v = arith::BitcastOp::create(builder, loc, element, v);
    return v;
  };
  // The element at `coord` is at its row-major index.
  auto place = [&](const SmallVector<Value> &coord) {
    Value flat = coord.front();
    for (unsigned d = 1; d < coord.size(); ++d)
      flat = arith::AddIOp::create(
          builder, loc,
          arith::MulIOp::create(builder, loc, flat, index(shape[d])), coord[d]);
    return flat;
  };
  auto storeAll = [&] {
    int64_t run = widened ? 1 : conversionRun(from, bits);
    for (int64_t reg = 0; reg < from.getSize(LinearLayout::Register);
         reg += run) {
      Value at = place(coordinate(from, reg));
      if (run == 1) {
        memref::StoreOp::create(
            builder, loc,
            widen(vector::ExtractOp::create(builder, loc, source, reg)),
            *scratch, at);
        continue;
      }
      Value part = vector::ExtractStridedSliceOp::create(
          builder, loc, source, ArrayRef<int64_t>{reg}, ArrayRef<int64_t>{run},
          ArrayRef<int64_t>{1});
      vector::StoreOp::create(builder, loc, part, *scratch, at);
    }
  };
  if (Value owner = ownsElements(from)) {
    auto guard = scf::IfOp::create(builder, loc, owner);
    OpBuilder::InsertionGuard insertion(builder);
    builder.setInsertionPointToStart(guard.thenBlock());
    storeAll();
  } else {
    storeAll();
  }
  syncThreads();
  int64_t run = widened ? 1 : conversionRun(to, bits);
  Value result = arith::ConstantOp::create(builder, loc, vectorType,
                                           builder.getZeroAttr(vectorType));
  for (int64_t reg = 0; reg < to.getSize(LinearLayout::Register); reg += run) {
    Value at = place(coordinate(to, reg));
    if (run == 1) {
      result = vector::InsertOp::create(
          builder, loc,
          narrow(memref::LoadOp::create(builder, loc, *scratch, at)), result,
          reg);
      continue;
    }
    Value part = vector::LoadOp::create(
        builder, loc, VectorType::get({run}, element), *scratch, at);
    result = vector::InsertStridedSliceOp::create(builder, loc, part, result,
                                                  ArrayRef<int64_t>{reg},
                                                  ArrayRef<int64_t>{1});
  }
  syncThreads();
  mapping.map(op.getResult(), result);
  return success();
}
