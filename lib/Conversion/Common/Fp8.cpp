//===- Fp8.cpp - f8E4M3FN codes as integer arithmetic ---------------------===//

#include "tessera/Conversion/Fp8.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;

Value tessera::decodeE4M3(OpBuilder &b, Location l, Value bits) {
  // The same shape of i32 and f32 as `bits` (a scalar or a vector).
  auto like = [&](Type element) -> Type {
    if (auto vector = dyn_cast<VectorType>(bits.getType()))
      return VectorType::get(vector.getShape(), element);
    return element;
  };
  Type i32 = like(b.getI32Type()), f32 = like(b.getF32Type());
  auto constant = [&](Type type, TypedAttr scalar) -> Value {
    if (auto vector = dyn_cast<VectorType>(type))
      return arith::ConstantOp::create(b, l, vector,
                                       DenseElementsAttr::get(vector, scalar));
    return arith::ConstantOp::create(b, l, scalar);
  };
  auto int32 = [&](int64_t v) { return constant(i32, b.getI32IntegerAttr(v)); };
  auto real = [&](float v) { return constant(f32, b.getF32FloatAttr(v)); };
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
