//===- TileExpandPowers.cpp - Integer powers as square-and-multiply -------===//
//
// `math.ipowi` and `math.fpowi` have no instruction and no LLVM intrinsic
// every target lowers, so they become square-and-multiply over the
// exponent's bits, written with tile-level ops that every lowering has:
// the host, the emulators and the GPUs then compute the same bits.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

namespace tessera {
#define GEN_PASS_DEF_TILEEXPANDPOWERS
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

namespace {
/// Builds the expansion at the rewriter's insertion point.
class PowerBuilder {
public:
  PowerBuilder(RewriterBase &b, Location loc) : b(b), loc(loc) {}

  /// A constant of `type` (a scalar or a splat tile) holding `value`.
  Value constant(Type type, double value) {
    Type element = getElementTypeOrSelf(type);
    TypedAttr scalar =
        isa<FloatType>(element)
            ? TypedAttr(b.getFloatAttr(element, value))
            : TypedAttr(b.getIntegerAttr(element, int64_t(value)));
    if (auto tile = dyn_cast<RankedTensorType>(type))
      return arith::ConstantOp::create(
          b, loc, DenseElementsAttr::get(tile, ArrayRef<Attribute>(scalar)));
    return arith::ConstantOp::create(b, loc, scalar);
  }
  Value select(Value cond, Value a, Value c) {
    if (isa<RankedTensorType>(a.getType()))
      return tile::SelectOp::create(b, loc, a.getType(), cond, a, c);
    return arith::SelectOp::create(b, loc, cond, a, c);
  }
  Value cmp(arith::CmpIPredicate pred, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, pred, x, y);
  }
  Value mul(Value x, Value y) {
    if (isa<FloatType>(getElementTypeOrSelf(x.getType())))
      return arith::MulFOp::create(b, loc, x, y);
    return arith::MulIOp::create(b, loc, x, y);
  }

  /// base^|exponent| by square-and-multiply over the exponent's bits (the
  /// magnitude as unsigned bits: |INT_MIN| too), wrapping for integers;
  /// also whether the exponent is negative.
  std::pair<Value, Value> magnitudePower(Value base, Value exponent) {
    Type et = exponent.getType();
    unsigned bits = getElementTypeOrSelf(et).getIntOrFloatBitWidth();
    Value zero = constant(et, 0), one = constant(et, 1);
    Value negative = cmp(arith::CmpIPredicate::slt, exponent, zero);
    APInt known;
    if (matchPattern(exponent, m_ConstantInt(&known)))
      return {constantMagnitudePower(base, known.abs()), negative};
    Value magnitude = select(
        negative, arith::SubIOp::create(b, loc, zero, exponent), exponent);
    Value lo = arith::ConstantIndexOp::create(b, loc, 0);
    Value hi = arith::ConstantIndexOp::create(b, loc, bits);
    Value step = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(
        b, loc, lo, hi, step,
        ValueRange{constant(base.getType(), 1), base, magnitude},
        [&](OpBuilder &, Location, Value, ValueRange args) {
          Value bit = cmp(arith::CmpIPredicate::ne,
                          arith::AndIOp::create(b, loc, args[2], one), zero);
          Value result = select(bit, mul(args[0], args[1]), args[0]);
          Value square = mul(args[1], args[1]);
          Value rest = arith::ShRUIOp::create(b, loc, args[2], one);
          scf::YieldOp::create(b, loc, ValueRange{result, square, rest});
        });
    return {loop.getResult(0), negative};
  }

  /// base^magnitude (unsigned bits) for a constant exponent: the loop's
  /// multiplications, in its order (so the same bits, but that a
  /// signalling NaN base stays signalling: the loop's 1 * x quiets it),
  /// unrolled up to the magnitude's highest set bit.
  Value constantMagnitudePower(Value base, const APInt &magnitude) {
    Value result, square = base;
    for (unsigned bit = 0; bit < magnitude.getActiveBits(); ++bit) {
      if (bit)
        square = mul(square, square);
      if (magnitude[bit])
        result = result ? mul(result, square) : square;
    }
    return result ? result : constant(base.getType(), 1);
  }

private:
  RewriterBase &b;
  Location loc;
};
} // namespace

/// x^n = x^|n|, or 1 / x^|n| for n < 0.
static void expand(RewriterBase &rewriter, math::FPowIOp op) {
  PowerBuilder p(rewriter, op.getLoc());
  auto [power, negative] = p.magnitudePower(op.getLhs(), op.getRhs());
  Value inverse = arith::DivFOp::create(rewriter, op.getLoc(),
                                        p.constant(power.getType(), 1), power);
  rewriter.replaceOp(op, p.select(negative, inverse, power));
}

/// x^n wrapping for n >= 0; for n < 0 the integer part of 1 / x^|n|: 1 for
/// x = 1, +-1 for x = -1 (by n's parity), and 0 otherwise, 0 for x = 0
/// included (defined rather than a division by zero).
static void expand(RewriterBase &rewriter, math::IPowIOp op) {
  PowerBuilder p(rewriter, op.getLoc());
  Value x = op.getLhs(), n = op.getRhs();
  auto [power, negative] = p.magnitudePower(x, n);
  Type type = x.getType();
  Value one = p.constant(type, 1), minusOne = p.constant(type, -1),
        zero = p.constant(type, 0);
  Value odd = p.cmp(arith::CmpIPredicate::ne,
                    arith::AndIOp::create(rewriter, op.getLoc(), n, one), zero);
  Value unit = p.select(p.cmp(arith::CmpIPredicate::eq, x, one), one,
                        p.select(p.cmp(arith::CmpIPredicate::eq, x, minusOne),
                                 p.select(odd, minusOne, one), zero));
  rewriter.replaceOp(op, p.select(negative, unit, power));
}

namespace {
struct TileExpandPowersPass
    : tessera::impl::TileExpandPowersBase<TileExpandPowersPass> {
  void runOnOperation() override {
    SmallVector<Operation *> powers;
    getOperation().walk([&](Operation *op) {
      if (isa<math::FPowIOp, math::IPowIOp>(op) &&
          op->getParentOfType<tile::KernelOp>())
        powers.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (Operation *op : powers) {
      rewriter.setInsertionPoint(op);
      if (auto f = dyn_cast<math::FPowIOp>(op))
        expand(rewriter, f);
      else
        expand(rewriter, cast<math::IPowIOp>(op));
    }
  }
};
} // namespace
