//===- Quantized.cpp - Packed int4 codes and dequantization on GPUs ------===//
//
// int4 codes are stored two per byte, low nibble first: a view or shared
// buffer of [.., n, 2] nibble pairs is a byte array [.., n] here (the pair
// dimension dropped), and a register holding a code holds it sign-extended
// in an i8. A shared load reads the code's byte and shifts its nibble out;
// tile.unpack is then a renaming of registers (tile-assign-layouts gives
// the packed tile the unpacked tile's layout with the dimension split), and
// tile.dequant scales each register by the scale register of the same index
// (the scales' layout is the codes' layout divided by the groups). fp8
// (e4m3) codes are held as their bits in i8 and decoded with integer and
// f32 arithmetic (no fp8 instruction is needed).
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Conversion/Fp8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace tessera;

Type tessera::getGPUStorageType(Type element) {
  return element.isInteger(4) || isa<Float8E4M3FNType>(element)
             ? IntegerType::get(element.getContext(), 8)
             : element;
}

Value GPULowering::pairBytes(Value view) {
  if (Value known = bytes.lookup(view))
    return known;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(&*prologueEnd);
  // The same bytes without the nibble dimension (whose stride is 1 and
  // whose two entries share a byte).
  auto type = cast<MemRefType>(view.getType());
  unsigned rank = type.getRank() - 1;
  auto metadata = memref::ExtractStridedMetadataOp::create(builder, loc, view);
  SmallVector<OpFoldResult> sizes, strides;
  for (unsigned d = 0; d < rank; ++d) {
    sizes.push_back(metadata.getSizes()[d]);
    strides.push_back(metadata.getStrides()[d]);
  }
  // The runtime launches int4 pair views only with consecutive pairs.
  strides.back() = builder.getIndexAttr(1);
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  SmallVector<int64_t> dynamicStrides(dynamic);
  dynamicStrides.back() = 1;
  auto result = MemRefType::get(dynamic, type.getElementType(),
                                StridedLayoutAttr::get(builder.getContext(),
                                                       ShapedType::kDynamic,
                                                       dynamicStrides));
  Value reinterpreted = memref::ReinterpretCastOp::create(
      builder, loc, result, metadata.getBaseBuffer(), metadata.getOffset(),
      sizes, strides);
  bytes[view] = reinterpreted;
  return reinterpreted;
}

Value tessera::nibble(OpBuilder &b, Location loc, Value byte, Value which) {
  // (byte << (4 - 4 * which)) >>s 4: the low nibble for 0, the high for 1,
  // sign-extended.
  Type i8 = b.getI8Type();
  Value times = arith::MulIOp::create(
      b, loc, which, arith::ConstantIndexOp::create(b, loc, 4));
  Value shift = arith::IndexCastOp::create(b, loc, i8, times);
  Value four = arith::ConstantIntOp::create(b, loc, i8, 4);
  Value up = arith::ShLIOp::create(b, loc, byte,
                                   arith::SubIOp::create(b, loc, four, shift));
  return arith::ShRSIOp::create(b, loc, up, four);
}

LogicalResult GPULowering::lowerUnpack(tile::UnpackOp op) {
  if (!op.hasNaturalOrder())
    return op.emitOpError("with a permuted order is not supported by "
                          "convert-tile-to-gpu yet");
  // The registers of the packed tile hold the unpacked elements in the
  // same order only if its layout is the split one.
  LinearLayout unpacked = layoutOf(op.getResult());
  if (layoutOf(op.getInput()) !=
      unpacked.splitDim(op.getDim(), int64_t(op.getOrder().size())))
    return op.emitOpError("needs its input in the layout of its result with "
                          "dimension ")
           << op.getDim() << " split (" << unpacked.str() << "), not "
           << layoutOf(op.getInput()).str();
  mapping.map(op.getResult(), mapping.lookup(op.getInput()));
  return success();
}

LogicalResult GPULowering::lowerDequant(tile::DequantOp op) {
  auto codes = cast<RankedTensorType>(op.getCodes().getType());
  bool fp8 = isa<Float8E4M3FNType>(codes.getElementType());
  if (!isa<IntegerType>(codes.getElementType()) && !fp8)
    return op.emitOpError("of ")
           << codes.getElementType()
           << " codes is not supported by convert-tile-to-gpu yet (int4, "
              "int8 and f8E4M3FN are)";
  LinearLayout layout = layoutOf(op.getResult());
  if (layoutOf(op.getCodes()) != layout)
    return op.emitOpError("needs its codes in its result's layout");
  SmallVector<Value> groups = {op.getScales()};
  if (op.getZeros())
    groups.push_back(op.getZeros());
  for (Value group : groups) {
    auto type = cast<RankedTensorType>(group.getType());
    LinearLayout expected = layout.grouped(op.getGroup(), type.getShape());
    if (layoutOf(group) != expected)
      return op.emitOpError("needs its scales and zero points laid out as "
                            "its codes divided by the groups (")
             << expected.str() << "), not " << layoutOf(group).str();
  }
  // Register r of the scales is the scale of register r's code.
  VectorType result = vectorTypeOf(op.getResult());
  auto wide = VectorType::get(result.getShape(), builder.getF32Type());
  auto widen = [&](Value tile) -> Value {
    if (cast<VectorType>(tile.getType()).getElementType().isF32())
      return tile;
    return arith::ExtFOp::create(builder, loc, wide, tile);
  };
  // fp8 codes are held as their bits (i8).
  Value value = fp8 ? decodeE4M3(builder, loc, mapping.lookup(op.getCodes()))
                    : arith::SIToFPOp::create(builder, loc, wide,
                                              mapping.lookup(op.getCodes()))
                          .getResult();
  if (op.getZeros())
    value = arith::SubFOp::create(builder, loc, value,
                                  widen(mapping.lookup(op.getZeros())));
  value = arith::MulFOp::create(builder, loc, value,
                                widen(mapping.lookup(op.getScales())));
  if (!result.getElementType().isF32())
    value = arith::TruncFOp::create(builder, loc, result, value);
  mapping.map(op.getResult(), value);
  return success();
}
