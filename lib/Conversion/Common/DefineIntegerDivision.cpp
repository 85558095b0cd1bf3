//===- DefineIntegerDivision.cpp - Integer division that never traps ------===//
//
// LLVM leaves an integer division by zero (and a signed one of the least
// value by -1) undefined, and x86 traps on both: a kernel dividing by a
// scalar its caller passes as 0 killed the host and emulator images with
// SIGFPE. This pass gives every arith division and remainder whose divisor
// is not a safe constant a defined result first: x / 0 = 0 and x % 0 = x
// (so that x = (x / y) * y + x % y still holds), MIN / -1 = MIN (the
// wrapped quotient) and MIN % -1 = 0, on scalars and vectors alike.
//
//===----------------------------------------------------------------------===//

#include "tessera/Conversion/Passes.h"

#include "mlir/IR/Matchers.h"

namespace tessera {
#define GEN_PASS_DEF_DEFINEINTEGERDIVISION
#include "tessera/Conversion/Passes.h.inc"
} // namespace tessera

using namespace mlir;

namespace {
/// A constant of `type` (an integer, index or vector of them) with every
/// element `value`.
Value splat(OpBuilder &b, Location loc, Type type, const APInt &value) {
  Type element = getElementTypeOrSelf(type);
  unsigned width = element.isIndex() ? 64 : element.getIntOrFloatBitWidth();
  TypedAttr scalar = b.getIntegerAttr(element, value.sextOrTrunc(width));
  if (auto vector = dyn_cast<VectorType>(type))
    return arith::ConstantOp::create(b, loc, vector,
                                     SplatElementsAttr::get(vector, scalar));
  return arith::ConstantOp::create(b, loc, scalar);
}

/// Whether the divisor needs no guard: a constant none of whose elements
/// is 0 (or, for a signed op, -1).
bool safeDivisor(Value divisor, bool isSigned) {
  APInt value;
  if (matchPattern(divisor, m_ConstantInt(&value)))
    return !value.isZero() && !(isSigned && value.isAllOnes());
  DenseIntElementsAttr values;
  if (matchPattern(divisor, m_Constant(&values)))
    return llvm::all_of(values, [&](const APInt &v) {
      return !v.isZero() && !(isSigned && v.isAllOnes());
    });
  return false;
}

void define(Operation *op, bool isSigned, bool isRemainder) {
  Value lhs = op->getOperand(0), rhs = op->getOperand(1);
  if (safeDivisor(rhs, isSigned))
    return;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type type = rhs.getType();
  unsigned width = 64;
  if (Type element = getElementTypeOrSelf(type); !element.isIndex())
    width = element.getIntOrFloatBitWidth();
  Value zero = splat(b, loc, type, APInt(width, 0));
  Value one = splat(b, loc, type, APInt(width, 1));
  Value byZero =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, zero);
  Value unsafe = byZero;
  if (isSigned) {
    Value least = splat(b, loc, type, APInt::getSignedMinValue(width));
    Value minusOne = splat(b, loc, type, APInt::getAllOnes(width));
    Value overflows = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, lhs, least),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, rhs, minusOne));
    unsafe = arith::OrIOp::create(b, loc, byZero, overflows);
  }
  Value divisor = arith::SelectOp::create(b, loc, unsafe, one, rhs);
  Operation *guarded = b.clone(*op);
  guarded->setOperand(1, divisor);
  Value result = arith::SelectOp::create(
      b, loc, byZero, isRemainder ? lhs : zero, guarded->getResult(0));
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

struct DefineIntegerDivisionPass
    : tessera::impl::DefineIntegerDivisionBase<DefineIntegerDivisionPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<arith::DivUIOp, arith::DivSIOp, arith::RemUIOp, arith::RemSIOp,
              arith::CeilDivUIOp, arith::CeilDivSIOp, arith::FloorDivSIOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops)
      define(op,
             isa<arith::DivSIOp, arith::RemSIOp, arith::CeilDivSIOp,
                 arith::FloorDivSIOp>(op),
             isa<arith::RemUIOp, arith::RemSIOp>(op));
  }
};
} // namespace
