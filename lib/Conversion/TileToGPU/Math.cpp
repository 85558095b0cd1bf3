//===- Math.cpp - math ops on register tiles ------------------------------===//
//
// Each element of a tile goes through the vendor's math library: the op is
// emitted on scalars, which upstream's NVVM lowering turns into libdevice
// calls (__nv_tanhf, ...) and its ROCDL lowering into ocml calls
// (__ocml_tanh_f32, ...); the serializers link the libraries into the
// device module, so the emulator (whose cut point is the optimized module)
// runs the library code the GPU runs. f16 and bf16 elements are computed
// in f32 and rounded back.
//
// Where the op's fastmath flags include `afn` (approximate functions), the
// hardware's approximations are used instead: ex2.approx / v_exp_f32 for
// exp2 and exp (x log2 e), lg2.approx / v_log_f32 for log2 and log,
// rsqrt.approx / v_rsq_f32, sqrt.approx / v_sqrt_f32, sin.approx and
// cos.approx / v_sin_f32 and v_cos_f32 (which take revolutions), and
// tanh.approx on NVIDIA, 1 - 2 / (e^(2x) + 1) from v_exp_f32 and v_rcp_f32
// on AMD. absf clears the sign bit. On integer tiles absi,
// ctlz, cttz and ctpop become LLVM's intrinsics.
//
//===----------------------------------------------------------------------===//

#include "GPULowering.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace tessera;

namespace {
/// The hardware's approximation of one function on f32, as an intrinsic.
struct Approximation {
  StringRef nvidia; // llvm.nvvm.* (empty: none)
  StringRef amd;    // llvm.amdgcn.* (empty: none)
  double scale = 1; // multiplies the argument first (0: radians to the
                    // vendor's unit)
  double post = 1;  // multiplies the result
};
} // namespace

/// The approximation `afn` allows for `op`, if any.
static std::optional<Approximation> approximationOf(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<Approximation>>(op)
      .Case([](math::Exp2Op) {
        return Approximation{"llvm.nvvm.ex2.approx.ftz.f32",
                             "llvm.amdgcn.exp2"};
      })
      .Case([](math::ExpOp) {
        return Approximation{"llvm.nvvm.ex2.approx.ftz.f32", "llvm.amdgcn.exp2",
                             M_LOG2E};
      })
      .Case([](math::Log2Op) {
        return Approximation{"llvm.nvvm.lg2.approx.ftz.f", "llvm.amdgcn.log"};
      })
      .Case([](math::LogOp) {
        return Approximation{"llvm.nvvm.lg2.approx.ftz.f", "llvm.amdgcn.log", 1,
                             M_LN2};
      })
      .Case([](math::RsqrtOp) {
        return Approximation{"llvm.nvvm.rsqrt.approx.ftz.f", "llvm.amdgcn.rsq"};
      })
      .Case([](math::SqrtOp) {
        return Approximation{"llvm.nvvm.sqrt.approx.ftz.f", "llvm.amdgcn.sqrt"};
      })
      .Case([](math::SinOp) {
        return Approximation{"llvm.nvvm.sin.approx.ftz.f", "llvm.amdgcn.sin", 0,
                             1};
      })
      .Case([](math::CosOp) {
        return Approximation{"llvm.nvvm.cos.approx.ftz.f", "llvm.amdgcn.cos", 0,
                             1};
      })
      .Case([](math::TanhOp) {
        // No NVVM intrinsic: inline PTX (sm_75 and later); AMD's is
        // amdFastTanh.
        return Approximation{"tanh.approx.f32", ""};
      })
      .Default([](Operation *) -> std::optional<Approximation> {
        return std::nullopt;
      });
}

/// Whether the op's fastmath flags allow approximate functions.
static bool allowsApproximation(Operation *op) {
  auto fastmath = dyn_cast<arith::ArithFastMathInterface>(op);
  return fastmath &&
         arith::bitEnumContainsAll(fastmath.getFastMathFlagsAttr().getValue(),
                                   arith::FastMathFlags::afn);
}

/// One f32 `x` through the intrinsic `name` (an instruction, as inline
/// PTX, where its name does not start with "llvm.").
static Value callIntrinsic(OpBuilder &b, Location loc, StringRef name, Value x,
                           bool amd) {
  Type f32 = b.getF32Type();
  if (!name.starts_with("llvm."))
    return LLVM::InlineAsmOp::create(
               b, loc, f32, ValueRange{x}, (name + " $0, $1;").str(), "=f,f",
               /*has_side_effects=*/false, /*is_align_stack=*/false,
               LLVM::tailcallkind::TailCallKind::None,
               LLVM::AsmDialectAttr::get(b.getContext(),
                                         LLVM::AsmDialect::AD_ATT),
               /*operand_attrs=*/ArrayAttr())
        .getResult(0);
  if (amd) {
    // ROCDL's ops for the intrinsics it has; the rest by name.
    if (name == "llvm.amdgcn.exp2")
      return ROCDL::ROCDLExp2::create(b, loc, f32, x);
    if (name == "llvm.amdgcn.log")
      return ROCDL::ROCDLLog::create(b, loc, f32, x);
  }
  return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name),
                                       ValueRange{x})
      .getResult(0);
}

/// tanh(x) from AMD's approximate 2^x and 1/x (what `afn` allows where the
/// hardware has no tanh): 1 - 2 / (e^(2x) + 1), which saturates to +-1
/// and propagates NaN; below |x| = 1/16, where that form loses relative
/// accuracy to cancellation, x (1 - x^2 / 3 + 2 x^4 / 15).
static Value amdFastTanh(OpBuilder &b, Location loc, Value x) {
  Type f32 = b.getF32Type();
  auto c = [&](double v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  Value x2 = arith::MulFOp::create(b, loc, x, x);
  Value inner = math::FmaOp::create(b, loc, x2, c(2.0 / 15), c(-1.0 / 3));
  Value series = arith::MulFOp::create(
      b, loc, x, math::FmaOp::create(b, loc, x2, inner, c(1)));
  Value e = ROCDL::ROCDLExp2::create(
      b, loc, f32, arith::MulFOp::create(b, loc, x, c(2 * M_LOG2E)));
  Value r = LLVM::CallIntrinsicOp::create(
                b, loc, f32, b.getStringAttr("llvm.amdgcn.rcp.f32"),
                ValueRange{arith::AddFOp::create(b, loc, e, c(1))})
                .getResult(0);
  Value saturating = math::FmaOp::create(b, loc, r, c(-2), c(1));
  Value small =
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT,
                            math::AbsFOp::create(b, loc, x), c(1.0 / 16));
  return arith::SelectOp::create(b, loc, small, series, saturating);
}

/// `op` (a math op on tiles) on the scalars `xs`, its result of `type`.
static Value onScalars(OpBuilder &b, Location loc, Operation *op, ValueRange xs,
                       Type type) {
  OperationState state(loc, op->getName());
  state.addOperands(xs);
  state.addTypes(type);
  state.addAttributes(op->getAttrs());
  return b.create(state)->getResult(0);
}

/// Each element of `vector` through `scalar`.
static Value perElement(OpBuilder &b, Location loc, VectorType type,
                        ValueRange vectors,
                        function_ref<Value(ValueRange)> scalar) {
  Value result = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
  for (int64_t i = 0; i < type.getNumElements(); ++i) {
    SmallVector<Value> elements;
    for (Value vector : vectors)
      elements.push_back(vector::ExtractOp::create(b, loc, vector, i));
    result = vector::InsertOp::create(b, loc, scalar(elements), result, i);
  }
  return result;
}

Value tessera::lowerMathOp(OpBuilder &b, Location loc, Operation *op,
                           ValueRange operands, VectorType type, bool amd) {
  Type element = type.getElementType();
  if (llvm::any_of(operands, [&](Value v) {
        return getElementTypeOrSelf(v.getType()) != element;
      }))
    return nullptr;
  // Bit counts and |x| of integers: LLVM's intrinsics, element by element.
  if (isa<IntegerType>(element)) {
    if (!isa<math::AbsIOp, math::CountLeadingZerosOp,
             math::CountTrailingZerosOp, math::CtPopOp>(op))
      return nullptr;
    return perElement(b, loc, type, operands, [&](ValueRange xs) {
      return onScalars(b, loc, op, xs, element);
    });
  }
  if (!isa<FloatType>(element))
    return nullptr;
  Type f32 = b.getF32Type();
  if (isa<math::AbsFOp>(op) && element.isF32()) {
    auto bits = VectorType::get(type.getShape(), b.getI32Type());
    Value word = arith::BitcastOp::create(b, loc, bits, operands[0]);
    Value mask = arith::ConstantOp::create(
        b, loc, bits,
        DenseElementsAttr::get(bits, b.getI32IntegerAttr(0x7fffffff)));
    return arith::BitcastOp::create(b, loc, type,
                                    arith::AndIOp::create(b, loc, word, mask));
  }
  // f16 and bf16 in f32; f32 and f64 as they are.
  bool widen = element.getIntOrFloatBitWidth() < 32;
  auto toCompute = [&](Value x) -> Value {
    return widen ? arith::ExtFOp::create(b, loc, f32, x).getResult() : x;
  };
  auto fromCompute = [&](Value x) -> Value {
    return widen ? arith::TruncFOp::create(b, loc, element, x).getResult() : x;
  };
  std::optional<Approximation> fast;
  if (allowsApproximation(op) && !element.isF64())
    fast = approximationOf(op);
  if (fast && amd && isa<math::TanhOp>(op))
    return perElement(b, loc, type, operands, [&](ValueRange xs) {
      return fromCompute(amdFastTanh(b, loc, toCompute(xs[0])));
    });
  StringRef intrinsic = fast ? (amd ? fast->amd : fast->nvidia) : "";
  if (!intrinsic.empty()) {
    // sin and cos: NVIDIA's take radians, AMD's revolutions.
    double scale = fast->scale;
    if (scale == 0)
      scale = amd ? 1 / (2 * M_PI) : 1;
    return perElement(b, loc, type, operands, [&](ValueRange xs) {
      Value x = toCompute(xs[0]);
      if (scale != 1)
        x = arith::MulFOp::create(
            b, loc, x,
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(scale)));
      Value y = callIntrinsic(b, loc, intrinsic, x, amd);
      if (fast->post != 1)
        y = arith::MulFOp::create(
            b, loc, y,
            arith::ConstantOp::create(b, loc, b.getF32FloatAttr(fast->post)));
      return fromCompute(y);
    });
  }
  // The library's function, one element at a time (the upstream lowerings
  // match scalar math ops).
  return perElement(b, loc, type, operands, [&](ValueRange xs) {
    SmallVector<Value> computed;
    for (Value x : xs)
      computed.push_back(toCompute(x));
    return fromCompute(onScalars(b, loc, op, computed, widen ? f32 : element));
  });
}
