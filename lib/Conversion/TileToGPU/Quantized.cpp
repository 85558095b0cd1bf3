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
// f32 arithmetic (no fp8 instruction is needed); MMAs of fp8 codes
// multiply them decoded to bf16 (on gfx942, its fp8 MFMA takes them as
// FNUZ codes). tile.quant makes int8 or fp8 codes and
// their scales in registers: the scales' layout is the input's
// divided by the groups, so a group's elements lie in one thread's
// registers, the lanes whose bits move within the group and (through
// shared memory) the warps whose bits do.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "tessera/Conversion/Fp8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <map>

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

Value GPULowering::mmaOperand(Value operand, Type &element) {
  Value registers = mapping.lookup(operand);
  element = cast<RankedTensorType>(operand.getType()).getElementType();
  if (!isa<Float8E4M3FNType>(element))
    return registers;
  element = builder.getBF16Type();
  if (Value known = bf16Codes.lookup(operand))
    return known;
  return exactBf16(decodeE4M3(builder, loc, registers));
}

Value GPULowering::exactBf16(Value real) {
  // The f32's upper half: exact for a value bf16 holds (no rounding to
  // emit, which sm_80 and gfx942 would expand).
  auto shape = cast<VectorType>(real.getType()).getShape();
  auto i32 = VectorType::get(shape, builder.getI32Type());
  Value bits = arith::BitcastOp::create(builder, loc, i32, real);
  Value sixteen = arith::ConstantOp::create(
      builder, loc, i32,
      DenseElementsAttr::get(i32, builder.getI32IntegerAttr(16)));
  Value upper = arith::TruncIOp::create(
      builder, loc, VectorType::get(shape, builder.getI16Type()),
      arith::ShRUIOp::create(builder, loc, bits, sixteen));
  return arith::BitcastOp::create(
      builder, loc, VectorType::get(shape, builder.getBF16Type()), upper);
}

Value GPULowering::fnuzCodes(Value codes) {
  auto type = cast<VectorType>(codes.getType());
  auto byte = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        builder, loc, type,
        DenseElementsAttr::get(
            type, builder.getIntegerAttr(type.getElementType(), v)));
  };
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, x, y);
  };
  Value negativeZero = eq(codes, byte(0x80));
  Value nan =
      eq(arith::AndIOp::create(builder, loc, codes, byte(0x7F)), byte(0x7F));
  Value fnuz =
      arith::SelectOp::create(builder, loc, negativeZero, byte(0), codes);
  return arith::SelectOp::create(builder, loc, nan, byte(0x80), fnuz);
}

LogicalResult GPULowering::lowerQuant(tile::QuantOp op) {
  RankedTensorType codesType = op.getCodes().getType();
  bool fp8 = isa<Float8E4M3FNType>(codesType.getElementType());
  if (!codesType.getElementType().isInteger(8) && !fp8)
    return op.emitOpError("to ")
           << codesType.getElementType()
           << " is not supported by convert-tile-to-gpu yet (i8 and "
              "f8E4M3FN are)";
  LinearLayout in = layoutOf(op.getInput());
  if (layoutOf(op.getCodes()) != in)
    return op.emitOpError("needs its codes in its input's layout");
  ArrayRef<int64_t> group = op.getGroup();
  LinearLayout groups = in.grouped(group, op.getScales().getType().getShape());
  // A basis moves within its group (where the group's extent exceeds it)
  // or to another group, not both.
  auto within = [&](const Coord &basis) {
    bool inside = false, across = false;
    for (auto [d, v] : llvm::enumerate(basis)) {
      inside |= v % group[d] != 0;
      across |= v / group[d] != 0;
    }
    return std::make_pair(inside, across);
  };
  // Lanes whose bits move within a group combine by shuffles, warps
  // through shared memory.
  SmallVector<unsigned> shuffleBits, warpBits;
  if (failed(combinedBits(op, in, within,
                          "within a group and across groups at once",
                          shuffleBits, warpBits)))
    return failure();

  // Each thread's largest |x| per group it holds (keyed by the group's
  // coordinate in thread 0: register parts; the lane and warp parts are
  // the same for all registers of a thread), then across lanes.
  Type f32 = builder.getF32Type();
  VectorType inType = vectorTypeOf(op.getInput());
  // Magnitudes compare as their bits without the sign (NaN above every
  // number, as maximumf propagates it): the input stays in its own type
  // until its codes are computed, which keeps bf16 tiles packed.
  Type real = inType.getElementType();
  Type bits = builder.getIntegerType(real.getIntOrFloatBitWidth());
  Value raw = mapping.lookup(op.getInput());
  Value noSign = arith::ConstantOp::create(
      builder, loc,
      builder.getIntegerAttr(
          bits, APInt::getSignedMaxValue(bits.getIntOrFloatBitWidth())));
  std::map<Coord, Value> largest;
  for (int64_t reg = 0; reg < inType.getNumElements(); ++reg) {
    Value element = arith::BitcastOp::create(
        builder, loc, bits, vector::ExtractOp::create(builder, loc, raw, reg));
    Value magnitude = arith::AndIOp::create(builder, loc, element, noSign);
    Value &slot = largest[groups.apply(reg, 0, 0)];
    slot =
        slot ? arith::MaxUIOp::create(builder, loc, slot, magnitude).getResult()
             : magnitude;
  }
  for (auto &[coord, value] : largest) {
    value = arith::BitcastOp::create(builder, loc, real, value);
    if (!real.isF32())
      value = arith::ExtFOp::create(builder, loc, f32, value);
  }
  Value maxCode = arith::ConstantOp::create(
      builder, loc, builder.getF32FloatAttr(fp8 ? 448.0f : 127.0f));
  // Then across the lanes, and the warps, that share each group.
  SmallVector<Value> groupMax;
  for (auto &[coord, value] : largest)
    groupMax.push_back(butterfly(value, shuffleBits, tile::ReduceKind::max));
  if (failed(acrossWarps(op, groupMax, warpBits, tile::ReduceKind::max)))
    return failure();
  std::map<Coord, Value> scaleOf;
  for (auto [entry, value] : llvm::zip_equal(largest, groupMax))
    scaleOf[entry.first] = arith::DivFOp::create(builder, loc, value, maxCode);

  // The scales in their own layout: register s holds, in every thread, the
  // group some register of the input holds there.
  LinearLayout scalesLayout = layoutOf(op.getScales());
  VectorType scalesType = vectorTypeOf(op.getScales());
  Value scales = arith::ConstantOp::create(builder, loc, scalesType,
                                           builder.getZeroAttr(scalesType));
  SmallVector<unsigned> none;
  for (int64_t reg = 0; reg < scalesType.getNumElements(); ++reg) {
    std::optional<uint64_t> source =
        heldRegister(groups, scalesLayout, reg, none);
    if (!source)
      return op.emitOpError("scales layout holds groups the thread does not "
                            "hold elements of");
    Value scale = scaleOf.at(groups.apply(*source, 0, 0));
    if (!scalesType.getElementType().isF32())
      scale = arith::TruncFOp::create(builder, loc, scalesType.getElementType(),
                                      scale);
    scales = vector::InsertOp::create(builder, loc, scale, scales, reg);
  }

  // codes = round-half-even(x / scale) saturated to [-127, 127]; 0 where
  // the group is all zeros (as the host computes them).
  auto wide = VectorType::get(inType.getShape(), f32);
  Value x = raw;
  if (!real.isF32())
    x = arith::ExtFOp::create(builder, loc, wide, x);
  Value perElement =
      arith::ConstantOp::create(builder, loc, wide, builder.getZeroAttr(wide));
  for (int64_t reg = 0; reg < inType.getNumElements(); ++reg)
    perElement = vector::InsertOp::create(
        builder, loc, scaleOf.at(groups.apply(reg, 0, 0)), perElement, reg);
  auto splat = [&](float value) -> Value {
    return arith::ConstantOp::create(
        builder, loc, wide,
        DenseElementsAttr::get(wide, builder.getF32FloatAttr(value)));
  };
  Value positive = arith::CmpFOp::create(
      builder, loc, arith::CmpFPredicate::OGT, perElement, splat(0.0f));
  Value q = arith::SelectOp::create(
      builder, loc, positive,
      arith::DivFOp::create(builder, loc, x, perElement), splat(0.0f));
  if (fp8) {
    // Saturated and rounded to nearest even by the encoding (as the host
    // encodes them), held as their bits.
    mapping.map(op.getCodes(), encodeE4M3(builder, loc, q));
    bf16Codes[op.getCodes()] = exactBf16(roundToE4M3(builder, loc, q));
    mapping.map(op.getScales(), scales);
    return success();
  }
  // Saturated first, then rounded half to even by adding and subtracting
  // 1.5 * 2^23: in [2^23, 2^24) floats are the integers, and the addition
  // rounds to nearest even (the same as rounding, then saturating; no
  // libdevice or intrinsic is needed).
  q = arith::MinimumFOp::create(
      builder, loc, arith::MaximumFOp::create(builder, loc, q, splat(-127.0f)),
      splat(127.0f));
  Value magic = splat(12582912.0f);
  q = arith::SubFOp::create(
      builder, loc, arith::AddFOp::create(builder, loc, q, magic), magic);
  Value codes =
      arith::FPToSIOp::create(builder, loc, vectorTypeOf(op.getCodes()), q);
  mapping.map(op.getCodes(), codes);
  mapping.map(op.getScales(), scales);
  return success();
}
