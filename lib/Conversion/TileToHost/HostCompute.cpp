//===- HostCompute.cpp - Compute on register tiles on the host --*- C++ -*-===//
//
// Element-wise math, reductions and broadcasts become linalg.generic on
// buffers (lowered to loops that LLVM vectorizes); tile.mma becomes a
// register-blocked vector kernel.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

#include "tessera/Conversion/Fp8.h"

#include "mlir/Dialect/Math/IR/Math.h"

#include <limits>

using namespace mlir;
using namespace tessera;

using utils::IteratorType;

static bool isFp8(Type type) {
  return isa<Float8E4M3FNType>(getElementTypeOrSelf(type));
}

Value HostLowering::realBuffer(Value tile) {
  Value bits = buffer(tile);
  if (!isFp8(tile.getType()))
    return bits;
  auto type = cast<MemRefType>(bits.getType());
  Value real = alloc(MemRefType::get(type.getShape(), builder.getF32Type()));
  MLIRContext *ctx = builder.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  linalg::GenericOp::create(
      builder, loc, ValueRange{bits}, ValueRange{real},
      ArrayRef<AffineMap>{identity, identity},
      SmallVector<IteratorType>(type.getRank(), IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, decodeE4M3(b, l, args[0]));
      });
  return real;
}

void HostLowering::fill(Value buffer, Value value) {
  linalg::FillOp::create(builder, loc, ValueRange{value}, ValueRange{buffer});
}

void HostLowering::copy(Value from, Value to) {
  linalg::CopyOp::create(builder, loc, from, to);
}

Value HostLowering::transposed(Value matrix) {
  auto type = cast<MemRefType>(matrix.getType());
  Value result = alloc(MemRefType::get({type.getDimSize(1), type.getDimSize(0)},
                                       type.getElementType()));
  MLIRContext *ctx = builder.getContext();
  AffineMap swap = AffineMap::getPermutationMap(ArrayRef<unsigned>{1, 0}, ctx);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(2, ctx);
  linalg::GenericOp::create(
      builder, loc, ValueRange{matrix}, ValueRange{result},
      ArrayRef<AffineMap>{swap, identity},
      ArrayRef<IteratorType>{IteratorType::parallel, IteratorType::parallel},
      [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });
  return result;
}

/// An op on tiles applied element by element: the same op on scalars inside
/// a linalg.generic over the result's buffer.
LogicalResult HostLowering::lowerElementwise(Operation *op) {
  if (op->getNumResults() != 1)
    return op->emitOpError("is not supported by convert-tile-to-host");
  Value result = op->getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  bool decodes = isa<arith::ExtFOp>(op) && isFp8(op->getOperand(0).getType());
  if (!decodes && (isFp8(type) || llvm::any_of(op->getOperandTypes(), isFp8)))
    return op->emitOpError("on fp8 tiles is not supported by "
                           "convert-tile-to-host (only arith.extf, "
                           "tile.dequant, tile.quant and tile.mma are)");
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands()) {
    auto operandType = dyn_cast<RankedTensorType>(operand.getType());
    if (!operandType || operandType.getShape() != type.getShape())
      return op->emitOpError(
          "is not supported by convert-tile-to-host (expected an element-wise "
          "op on tiles of one shape)");
    inputs.push_back(buffer(operand));
  }
  Value out = buffer(result);
  MLIRContext *ctx = builder.getContext();
  AffineMap identity = AffineMap::getMultiDimIdentityMap(type.getRank(), ctx);
  SmallVector<AffineMap> maps(inputs.size() + 1, identity);
  SmallVector<IteratorType> iterators(type.getRank(), IteratorType::parallel);
  Type element = type.getElementType();
  linalg::GenericOp::create(
      builder, loc, inputs, ValueRange{out}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value value;
        if (isa<tile::IotaOp>(op)) {
          value = linalg::IndexOp::create(b, l, 0);
          if (!element.isIndex())
            value = arith::IndexCastOp::create(b, l, element, value);
        } else if (isa<tile::SelectOp>(op)) {
          value = arith::SelectOp::create(b, l, args[0], args[1], args[2]);
        } else if (decodes) {
          value = decodeE4M3(b, l, args[0]);
          if (!element.isF32())
            value = arith::TruncFOp::create(b, l, element, value);
        } else if (isa<arith::ExtSIOp>(op) && args[0].getType() == element) {
          // i4 codes are held sign-extended in i8: widening them to i8 is
          // the identity on the host.
          value = args[0];
        } else {
          OperationState state(l, op->getName());
          state.addOperands(args.drop_back());
          state.addTypes(element);
          state.addAttributes(op->getAttrs());
          value = b.create(state)->getResult(0);
        }
        linalg::YieldOp::create(b, l, value);
      });
  return success();
}

static Value toF32(OpBuilder &b, Location loc, Value value) {
  Type element = getElementTypeOrSelf(value.getType());
  Type f32 = b.getF32Type();
  if (auto vector = dyn_cast<VectorType>(value.getType()))
    f32 = VectorType::get(vector.getShape(), f32);
  if (element.isF32())
    return value;
  if (isa<FloatType>(element))
    return arith::ExtFOp::create(b, loc, f32, value);
  return arith::SIToFPOp::create(b, loc, f32, value);
}

/// C[M, N] += A[M, K] · B[K, N] on buffers. With an f32 accumulator and
/// float operands (or an i32 accumulator and integer operands) and
/// M % 4 == 0, N % 16 == 0, each 4x16 block of C stays in eight vector<8x>
/// registers across the whole K loop: per k, two vector loads of B, four
/// broadcasts of A, eight FMAs (multiply-adds).
LogicalResult HostLowering::lowerMma(tile::MmaOp op) {
  Value c;
  if (canReuse(op.getAcc(), op)) {
    c = buffer(op.getAcc());
    buffers[op.getResult()] = c;
  } else {
    c = buffer(op.getResult());
    copy(buffer(op.getAcc()), c);
  }
  // fp8 operands are decoded to f32 once per MMA.
  Value a = realBuffer(op.getA()), b = realBuffer(op.getB());
  if (op.getTransposeA())
    a = transposed(a);
  if (op.getTransposeB())
    b = transposed(b);
  auto aType = cast<MemRefType>(a.getType());
  auto cType = cast<MemRefType>(c.getType());
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1),
          k = aType.getDimSize(1);
  Type accElement = cType.getElementType();
  bool floatOperands = isa<FloatType>(aType.getElementType());

  bool vectorized =
      floatOperands ? accElement.isF32() : accElement.isInteger(32);
  if (vectorized && m % 4 == 0 && n % 16 == 0) {
    auto vec = VectorType::get({8}, accElement);
    // Operands widen to the accumulator's type (integers sign-extend).
    auto widen = [&](OpBuilder &nb, Location l, Value v) -> Value {
      if (floatOperands)
        return toF32(nb, l, v);
      Type wide = accElement;
      if (auto vector = dyn_cast<VectorType>(v.getType()))
        wide = VectorType::get(vector.getShape(), accElement);
      return v.getType() == wide ? v : arith::ExtSIOp::create(nb, l, wide, v);
    };
    auto multiplyAdd = [&](OpBuilder &nb, Location l, Value x, Value y,
                           Value z) -> Value {
      if (floatOperands)
        return vector::FMAOp::create(nb, l, x, y, z);
      return arith::AddIOp::create(nb, l, z,
                                   arith::MulIOp::create(nb, l, x, y));
    };
    auto bVec =
        VectorType::get({8}, cast<MemRefType>(b.getType()).getElementType());
    auto rows = scf::ForOp::create(builder, loc, index(0), index(m), index(4));
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(rows.getBody());
    Value i = rows.getInductionVar();
    auto cols = scf::ForOp::create(builder, loc, index(0), index(n), index(16));
    builder.setInsertionPointToStart(cols.getBody());
    Value j = cols.getInductionVar();
    SmallVector<Value> rowIdx, colIdx;
    for (int r = 0; r < 4; ++r)
      rowIdx.push_back(arith::AddIOp::create(builder, loc, i, index(r)));
    for (int cc = 0; cc < 2; ++cc)
      colIdx.push_back(arith::AddIOp::create(builder, loc, j, index(8 * cc)));
    SmallVector<Value> acc;
    for (int r = 0; r < 4; ++r)
      for (int cc = 0; cc < 2; ++cc)
        acc.push_back(vector::LoadOp::create(
            builder, loc, vec, c, ValueRange{rowIdx[r], colIdx[cc]}));
    auto ks = scf::ForOp::create(
        builder, loc, index(0), index(k), index(1), acc,
        [&](OpBuilder &nb, Location l, Value kk, ValueRange iter) {
          SmallVector<Value> bv;
          for (int cc = 0; cc < 2; ++cc)
            bv.push_back(
                widen(nb, l,
                      vector::LoadOp::create(nb, l, bVec, b,
                                             ValueRange{kk, colIdx[cc]})));
          SmallVector<Value> next;
          for (int r = 0; r < 4; ++r) {
            Value av = widen(
                nb, l,
                memref::LoadOp::create(nb, l, a, ValueRange{rowIdx[r], kk}));
            Value splat = vector::BroadcastOp::create(nb, l, vec, av);
            for (int cc = 0; cc < 2; ++cc)
              next.push_back(
                  multiplyAdd(nb, l, splat, bv[cc], iter[r * 2 + cc]));
          }
          scf::YieldOp::create(nb, l, next);
        });
    for (int r = 0; r < 4; ++r)
      for (int cc = 0; cc < 2; ++cc)
        vector::StoreOp::create(builder, loc, ks.getResult(r * 2 + cc), c,
                                ValueRange{rowIdx[r], colIdx[cc]});
    return success();
  }

  // Any other shape or type: i, k, j loops (j innermost, contiguous).
  loopNest({index(m), index(k), index(n)}, [&](ValueRange ivs) {
    Value x =
        memref::LoadOp::create(builder, loc, a, ValueRange{ivs[0], ivs[1]});
    Value y =
        memref::LoadOp::create(builder, loc, b, ValueRange{ivs[1], ivs[2]});
    Value z =
        memref::LoadOp::create(builder, loc, c, ValueRange{ivs[0], ivs[2]});
    Value sum;
    if (isa<FloatType>(accElement)) {
      auto ext = [&](Value v) -> Value {
        return v.getType() == accElement
                   ? v
                   : arith::ExtFOp::create(builder, loc, accElement, v)
                         .getResult();
      };
      sum = math::FmaOp::create(builder, loc, ext(x), ext(y), z);
    } else {
      Value xe = arith::ExtSIOp::create(builder, loc, accElement, x);
      Value ye = arith::ExtSIOp::create(builder, loc, accElement, y);
      sum = arith::AddIOp::create(builder, loc, z,
                                  arith::MulIOp::create(builder, loc, xe, ye));
    }
    memref::StoreOp::create(builder, loc, sum, c, ValueRange{ivs[0], ivs[2]});
  });
  return success();
}

LogicalResult HostLowering::lowerReduce(tile::ReduceOp op) {
  auto inType = op.getInput().getType();
  Type element = inType.getElementType();
  bool isFloat = isa<FloatType>(element);
  Value out = buffer(op.getResult());
  tile::ReduceKind kind = op.getKind();
  TypedAttr identity;
  if (kind == tile::ReduceKind::sum)
    identity = builder.getZeroAttr(element);
  else if (isFloat)
    identity = builder.getFloatAttr(
        element, APFloat::getInf(cast<FloatType>(element).getFloatSemantics(),
                                 /*Negative=*/kind == tile::ReduceKind::max));
  else
    identity = builder.getIntegerAttr(
        element,
        kind == tile::ReduceKind::max
            ? APInt::getSignedMinValue(element.getIntOrFloatBitWidth())
            : APInt::getSignedMaxValue(element.getIntOrFloatBitWidth()));
  fill(out, arith::ConstantOp::create(builder, loc, identity));

  int64_t dim = op.getDimAttr().getInt(), rank = inType.getRank();
  MLIRContext *ctx = builder.getContext();
  SmallVector<AffineExpr> kept;
  SmallVector<IteratorType> iterators;
  for (int64_t d = 0; d < rank; ++d) {
    iterators.push_back(d == dim ? IteratorType::reduction
                                 : IteratorType::parallel);
    if (d != dim)
      kept.push_back(getAffineDimExpr(d, ctx));
  }
  AffineMap inMap = AffineMap::getMultiDimIdentityMap(rank, ctx);
  AffineMap outMap = AffineMap::get(rank, 0, kept, ctx);
  linalg::GenericOp::create(
      builder, loc, ValueRange{buffer(op.getInput())}, ValueRange{out},
      ArrayRef<AffineMap>{inMap, outMap}, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value x = args[0], acc = args[1], combined;
        switch (kind) {
        case tile::ReduceKind::sum:
          combined = isFloat ? arith::AddFOp::create(b, l, acc, x).getResult()
                             : arith::AddIOp::create(b, l, acc, x).getResult();
          break;
        case tile::ReduceKind::max:
          combined = isFloat
                         ? arith::MaximumFOp::create(b, l, acc, x).getResult()
                         : arith::MaxSIOp::create(b, l, acc, x).getResult();
          break;
        case tile::ReduceKind::min:
          combined = isFloat
                         ? arith::MinimumFOp::create(b, l, acc, x).getResult()
                         : arith::MinSIOp::create(b, l, acc, x).getResult();
          break;
        }
        linalg::YieldOp::create(b, l, combined);
      });
  return success();
}

LogicalResult HostLowering::lowerBroadcast(tile::BroadcastOp op) {
  int64_t rank = op.getType().getRank();
  bool expands = op.getInput().getType().getRank() == rank;
  MLIRContext *ctx = builder.getContext();
  SmallVector<AffineExpr> inputDims;
  for (int64_t d = 0; d < rank; ++d)
    if (!llvm::is_contained(op.getDims(), d))
      inputDims.push_back(getAffineDimExpr(d, ctx));
    else if (expands)
      inputDims.push_back(getAffineConstantExpr(0, ctx));
  AffineMap inMap = AffineMap::get(rank, 0, inputDims, ctx);
  AffineMap outMap = AffineMap::getMultiDimIdentityMap(rank, ctx);
  SmallVector<IteratorType> iterators(rank, IteratorType::parallel);
  linalg::GenericOp::create(builder, loc, ValueRange{buffer(op.getInput())},
                            ValueRange{buffer(op.getResult())},
                            ArrayRef<AffineMap>{inMap, outMap}, iterators,
                            [](OpBuilder &b, Location l, ValueRange args) {
                              linalg::YieldOp::create(b, l, args[0]);
                            });
  return success();
}

/// result[e] = (codes[e] - zeros[g]) * scales[g] with g = e floordiv group.
LogicalResult HostLowering::lowerDequant(tile::DequantOp op) {
  Value codes = realBuffer(op.getCodes()), scales = buffer(op.getScales());
  Value zeros = op.getZeros() ? buffer(op.getZeros()) : Value();
  Value out = buffer(op.getResult());
  auto outType = cast<MemRefType>(out.getType());
  SmallVector<Value> sizes;
  for (int64_t size : outType.getShape())
    sizes.push_back(index(size));
  ArrayRef<int64_t> group = op.getGroup();
  loopNest(sizes, [&](ValueRange ivs) {
    SmallVector<Value> g;
    for (auto [iv, size] : llvm::zip_equal(ivs, group))
      g.push_back(arith::DivUIOp::create(builder, loc, iv, index(size)));
    Value code =
        toF32(builder, loc, memref::LoadOp::create(builder, loc, codes, ivs));
    if (zeros)
      code = arith::SubFOp::create(
          builder, loc, code,
          toF32(builder, loc, memref::LoadOp::create(builder, loc, zeros, g)));
    Value scale =
        toF32(builder, loc, memref::LoadOp::create(builder, loc, scales, g));
    Value value = arith::MulFOp::create(builder, loc, code, scale);
    Type element = outType.getElementType();
    if (!element.isF32())
      value = arith::TruncFOp::create(builder, loc, element, value);
    memref::StoreOp::create(builder, loc, value, out, ivs);
  });
  return success();
}

/// scales[g] = max |input| over group g / the largest code; codes[e] =
/// input[e] / scales[g] rounded to the nearest code (half to even) and
/// saturated (0 where the group is 0).
LogicalResult HostLowering::lowerQuant(tile::QuantOp op) {
  Value input = buffer(op.getInput()), codes = buffer(op.getCodes());
  Value scales = buffer(op.getScales());
  auto codeType = cast<MemRefType>(codes.getType());
  auto scaleType = cast<MemRefType>(scales.getType());
  Type codeElement = op.getCodes().getType().getElementType();
  bool fp8 = isFp8(codeElement);
  float largest = fp8 ? 448.0f : codeElement.isInteger(4) ? 7.0f : 127.0f;
  auto sizesOf = [&](MemRefType type) {
    SmallVector<Value> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(index(size));
    return sizes;
  };
  auto groupOf = [&](ValueRange ivs) {
    SmallVector<Value> g;
    for (auto [iv, size] : llvm::zip_equal(ivs, op.getGroup()))
      g.push_back(arith::DivUIOp::create(builder, loc, iv, index(size)));
    return g;
  };
  auto f32 = [&](float value) -> Value {
    return arith::ConstantOp::create(builder, loc,
                                     builder.getF32FloatAttr(value));
  };
  auto storeScale = [&](Value value, ValueRange at) {
    if (!scaleType.getElementType().isF32())
      value = arith::TruncFOp::create(builder, loc, scaleType.getElementType(),
                                      value);
    memref::StoreOp::create(builder, loc, value, scales, at);
  };
  auto loadScale = [&](ValueRange at) {
    return toF32(builder, loc,
                 memref::LoadOp::create(builder, loc, scales, at));
  };
  // Largest magnitude per group, then the scale.
  loopNest(sizesOf(scaleType),
           [&](ValueRange ivs) { storeScale(f32(0.0f), ivs); });
  loopNest(sizesOf(codeType), [&](ValueRange ivs) {
    SmallVector<Value> g = groupOf(ivs);
    Value x =
        toF32(builder, loc, memref::LoadOp::create(builder, loc, input, ivs));
    Value magnitude = math::AbsFOp::create(builder, loc, x);
    storeScale(arith::MaximumFOp::create(builder, loc, loadScale(g), magnitude),
               g);
  });
  loopNest(sizesOf(scaleType), [&](ValueRange ivs) {
    storeScale(
        arith::DivFOp::create(builder, loc, loadScale(ivs), f32(largest)), ivs);
  });
  loopNest(sizesOf(codeType), [&](ValueRange ivs) {
    Value scale = loadScale(groupOf(ivs));
    Value x =
        toF32(builder, loc, memref::LoadOp::create(builder, loc, input, ivs));
    Value positive = arith::CmpFOp::create(
        builder, loc, arith::CmpFPredicate::OGT, scale, f32(0.0f));
    Value q = arith::SelectOp::create(
        builder, loc, positive, arith::DivFOp::create(builder, loc, x, scale),
        f32(0.0f));
    if (fp8) {
      memref::StoreOp::create(builder, loc, encodeE4M3(builder, loc, q), codes,
                              ivs);
      return;
    }
    q = math::RoundEvenOp::create(builder, loc, q);
    q = arith::MinimumFOp::create(
        builder, loc, arith::MaximumFOp::create(builder, loc, q, f32(-largest)),
        f32(largest));
    Value code =
        arith::FPToSIOp::create(builder, loc, codeType.getElementType(), q);
    memref::StoreOp::create(builder, loc, code, codes, ivs);
  });
  return success();
}
