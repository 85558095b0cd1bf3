//===- Fp8.cpp - f8E4M3FN codes as integer arithmetic ---------------------===//

#include "tessera/Conversion/Fp8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;

namespace {
/// Constants and types of the shape of a scalar or vector value.
struct Shaped {
  OpBuilder &b;
  Location l;
  Value like;

  Type of(Type element) const {
    if (auto vector = dyn_cast<VectorType>(like.getType()))
      return VectorType::get(vector.getShape(), element);
    return element;
  }
  Value constant(Type element, TypedAttr scalar) const {
    if (auto vector = dyn_cast<VectorType>(of(element)))
      return arith::ConstantOp::create(b, l, vector,
                                       DenseElementsAttr::get(vector, scalar));
    return arith::ConstantOp::create(b, l, scalar);
  }
  Value int32(int64_t v) const {
    return constant(b.getI32Type(), b.getI32IntegerAttr(v));
  }
  Value real(float v) const {
    return constant(b.getF32Type(), b.getF32FloatAttr(v));
  }
};
} // namespace

Value tessera::decodeE4M3(OpBuilder &b, Location l, Value bits) {
  Shaped s{b, l, bits};
  Type i32 = s.of(b.getI32Type()), f32 = s.of(b.getF32Type());
  auto int32 = [&](int64_t v) { return s.int32(v); };
  auto real = [&](float v) { return s.real(v); };
  auto eq = [&](Value x, Value y) {
    return arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, x, y);
  };
  Value u = arith::ExtUIOp::create(b, l, i32, bits);
  Value sign = arith::ShLIOp::create(
      b, l, arith::AndIOp::create(b, l, u, int32(0x80)), int32(24));
  Value magnitude = arith::AndIOp::create(b, l, u, int32(0x7F));
  // Normal: exponent bias 7 -> 127 and the 3 mantissa bits on top of f32's.
  Value normal = arith::BitcastOp::create(
      b, l, f32,
      arith::AddIOp::create(b, l,
                            arith::ShLIOp::create(b, l, magnitude, int32(20)),
                            int32(120 << 23)));
  // Subnormal: mantissa * 2^-9.
  Value subnormal = arith::MulFOp::create(
      b, l,
      arith::UIToFPOp::create(b, l, f32,
                              arith::AndIOp::create(b, l, u, int32(7))),
      real(1.0f / 512));
  Value isSubnormal =
      eq(arith::ShRUIOp::create(b, l, magnitude, int32(3)), int32(0));
  Value value = arith::SelectOp::create(b, l, isSubnormal, subnormal, normal);
  value = arith::SelectOp::create(b, l, eq(magnitude, int32(0x7F)),
                                  real(std::numeric_limits<float>::quiet_NaN()),
                                  value);
  return arith::BitcastOp::create(
      b, l, f32,
      arith::OrIOp::create(b, l, arith::BitcastOp::create(b, l, i32, value),
                           sign));
}

Value tessera::encodeE4M3(OpBuilder &b, Location l, Value value) {
  // The code of the value roundToE4M3 rounds to: its exponent rebiased
  // from 127 to 7 above its 3 mantissa bits, or below 2^-6 the multiple of
  // 2^-9 it is; NaN is 0x7F.
  Shaped s{b, l, value};
  Type i32 = s.of(b.getI32Type()), f32 = s.of(b.getF32Type());
  auto int32 = [&](int64_t v) { return s.int32(v); };
  auto real = [&](float v) { return s.real(v); };
  Value bits = arith::BitcastOp::create(b, l, i32, roundToE4M3(b, l, value));
  Value sign = arith::AndIOp::create(
      b, l, arith::ShRUIOp::create(b, l, bits, int32(24)), int32(0x80));
  Value m = arith::AndIOp::create(b, l, bits, int32(0x7FFFFFFF));
  Value magnitude = arith::BitcastOp::create(b, l, f32, m);
  Value normal = arith::SubIOp::create(
      b, l, arith::ShRUIOp::create(b, l, m, int32(20)), int32(120 << 3));
  Value subnormal = arith::FPToSIOp::create(
      b, l, i32, arith::MulFOp::create(b, l, magnitude, real(512.0f)));
  Value small = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                      magnitude, real(1.0f / 64));
  Value isNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO,
                                      magnitude, magnitude);
  Value code = arith::SelectOp::create(b, l, small, subnormal, normal);
  code = arith::SelectOp::create(b, l, isNaN, int32(0x7F), code);
  code = arith::OrIOp::create(b, l, code, sign);
  return arith::TruncIOp::create(b, l, s.of(b.getI8Type()), code);
}

Value tessera::roundToE4M3(OpBuilder &b, Location l, Value value) {
  Shaped s{b, l, value};
  Type i32 = s.of(b.getI32Type()), f32 = s.of(b.getF32Type());
  auto int32 = [&](int64_t v) { return s.int32(v); };
  auto real = [&](float v) { return s.real(v); };
  Value bits = arith::BitcastOp::create(b, l, i32, value);
  Value sign = arith::AndIOp::create(b, l, bits, int32(0x80000000));
  Value magnitude = arith::MinimumFOp::create(
      b, l,
      arith::BitcastOp::create(
          b, l, f32, arith::AndIOp::create(b, l, bits, int32(0x7FFFFFFF))),
      real(448.0f));
  // Normal: f32's mantissa rounded to 3 bits, to nearest even.
  Value m = arith::BitcastOp::create(b, l, i32, magnitude);
  Value odd = arith::AndIOp::create(
      b, l, arith::ShRUIOp::create(b, l, m, int32(20)), int32(1));
  Value normal = arith::BitcastOp::create(
      b, l, f32,
      arith::AndIOp::create(
          b, l,
          arith::AddIOp::create(
              b, l, m, arith::AddIOp::create(b, l, odd, int32(0x7FFFF))),
          int32(0xFFF00000)));
  // Below 2^-6: the nearest multiple of 2^-9 (ties to even), as encodeE4M3
  // rounds it.
  Value magic = real(12582912.0f);
  Value subnormal = arith::MulFOp::create(
      b, l,
      arith::SubFOp::create(
          b, l,
          arith::AddFOp::create(
              b, l, arith::MulFOp::create(b, l, magnitude, real(512.0f)),
              magic),
          magic),
      real(1.0f / 512));
  Value small = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OLT,
                                      magnitude, real(1.0f / 64));
  Value rounded = arith::SelectOp::create(b, l, small, subnormal, normal);
  // NaN (whose payload the rounding could carry into the sign) stays NaN.
  Value isNaN = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO,
                                      magnitude, magnitude);
  rounded = arith::SelectOp::create(
      b, l, isNaN, real(std::numeric_limits<float>::quiet_NaN()), rounded);
  return arith::BitcastOp::create(
      b, l, f32,
      arith::OrIOp::create(b, l, arith::BitcastOp::create(b, l, i32, rounded),
                           sign));
}
