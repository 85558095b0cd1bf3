//===- Math.cpp - The GPUs' floating-point instructions -------------------===//
//
// The float intrinsics that kernels and the vendors' math libraries
// (libdevice's __nv_* and ocml's __ocml_* functions, linked into the device
// code before the emulator's cut point) call, from the PTX ISA and AMD's
// CDNA3 ISA. Exactly rounded operations (.rn, .rz, .rm, .rp; AMD's
// v_frexp, v_fract, v_class) are computed exactly; the hardware's
// approximations (ex2.approx, lg2.approx, rsqrt.approx, rcp.approx,
// sin/cos.approx, tanh.approx; v_exp, v_log, v_rcp, v_rsq, v_sqrt, v_sin,
// v_cos) are modelled by the exact function rounded to f32, whose result
// is within their stated error of the hardware's. .ftz flushes subnormal
// inputs and results to zero of the same sign.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include <cfenv>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace tessera;
using namespace tessera::emu::detail;

namespace {

float flush(float x) {
  return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
}

/// An instruction of one f32 operand, with and without .ftz.
template <float (*F)(float)> float plain(float x) { return F(x); }
template <float (*F)(float)> float ftz(float x) { return flush(F(flush(x))); }
template <float (*F)(float, float)> float plain2(float x, float y) {
  return F(x, y);
}
template <float (*F)(float, float)> float ftz2(float x, float y) {
  return flush(F(flush(x), flush(y)));
}

float fAbs(float x) { return std::fabs(x); }
float fExp2(float x) { return std::exp2(x); }
float fLog2(float x) { return std::log2(x); }
float fRsqrt(float x) { return float(1.0 / std::sqrt(double(x))); }
float fSqrt(float x) { return std::sqrt(x); }
float fRcp(float x) { return 1.0f / x; }
float fSin(float x) { return std::sin(x); }
float fCos(float x) { return std::cos(x); }
float fTanh(float x) { return std::tanh(x); }
float fRound(float x) { return std::round(x); }
float fFloor(float x) { return std::floor(x); }
float fCeil(float x) { return std::ceil(x); }
float fTrunc(float x) { return std::trunc(x); }
float fSaturate(float x) {
  return std::isnan(x) ? 0.0f : std::fmin(std::fmax(x, 0.0f), 1.0f);
}
float fDiv(float x, float y) { return x / y; }
float fMul(float x, float y) { return x * y; }
float fAdd(float x, float y) { return x + y; }
/// min and max as PTX states them: a NaN operand gives the other one.
float fMin(float x, float y) { return std::fmin(x, y); }
float fMax(float x, float y) { return std::fmax(x, y); }
float fFma(float x, float y, float z) { return std::fma(x, y, z); }
float fmaFtz(float x, float y, float z) {
  return flush(std::fma(flush(x), flush(y), flush(z)));
}

/// `value`, computed exactly and rounded to nearest even in `rounded`,
/// moved one step toward zero (.rz), -inf (.rm) or +inf (.rp) where the
/// rounding went the other way. `error` is the exact value minus
/// `rounded`.
float directed(float rounded, double error, int mode) {
  if (error == 0 || std::isnan(rounded))
    return rounded;
  float limit = mode == FE_DOWNWARD ? -std::numeric_limits<float>::infinity()
                : mode == FE_UPWARD ? std::numeric_limits<float>::infinity()
                                    : 0.0f;
  bool wentUp = error < 0; // rounded is above the exact value
  bool keep = mode == FE_TOWARDZERO ? (rounded > 0) != wentUp
                                    : (mode == FE_UPWARD) == wentUp;
  return keep ? rounded : std::nextafter(rounded, limit);
}

/// x + y - rounded, whose sign is exact: the double sum and its exact error
/// (Knuth's two-sum) are a pair that holds x + y exactly, and `rounded`, an
/// f32 rounding of x + y, is within a factor 2 of the sum.
double errorAgainst(float rounded, double x, double y) {
  double sum = x + y;
  double yv = sum - x;
  double error = (x - (sum - yv)) + (y - yv);
  return (sum - double(rounded)) + error;
}

/// a + b rounded toward zero, -inf or +inf (rounded to nearest even for
/// FE_TONEAREST): the double sum and its exact error (Knuth's two-sum) give
/// the sign of the f32 rounding's error.
template <int Mode> float addDirected(float a, float b) {
  float rounded = a + b;
  if (!std::isfinite(rounded)) {
    if (std::isnan(rounded) || !std::isfinite(a) || !std::isfinite(b))
      return rounded;
    // Overflow: .rz gives the largest finite value of the sign.
    bool keep = Mode == FE_UPWARD     ? rounded > 0
                : Mode == FE_DOWNWARD ? rounded < 0
                                      : false;
    return keep ? rounded : std::copysign(FLT_MAX, rounded);
  }
  return directed(rounded, errorAgainst(rounded, double(a), double(b)), Mode);
}
/// a * b of two floats is exact in double.
template <int Mode> float mulDirected(float a, float b) {
  double exact = double(a) * double(b);
  float rounded = a * b;
  return directed(rounded, exact - double(rounded), Mode);
}

/// a * b + c rounded once: a * b is exact in double, the two-sum of it and
/// c exact as a pair.
template <int Mode> float fmaDirected(float a, float b, float c) {
  float rounded = std::fma(a, b, c);
  if (!std::isfinite(rounded))
    return rounded;
  return directed(
      rounded, errorAgainst(rounded, double(a) * double(b), double(c)), Mode);
}

/// cvt.rni/rzi/rmi/rpi.s32.f32: saturating, NaN to 0.
template <int Mode> int32_t toInt(float x) {
  if (std::isnan(x))
    return 0;
  double r = Mode == FE_TOWARDZERO ? std::trunc(double(x))
             : Mode == FE_DOWNWARD ? std::floor(double(x))
             : Mode == FE_UPWARD   ? std::ceil(double(x))
                                   : std::nearbyint(double(x));
  r = std::fmin(std::fmax(r, double(INT32_MIN)), double(INT32_MAX));
  return int32_t(r);
}

// AMD.

/// v_fract_f32: x - floor(x), below 1; NaN for infinities.
float amdFract(float x) {
  if (std::isinf(x))
    return std::numeric_limits<float>::quiet_NaN();
  return std::fmin(x - std::floor(x), 0x1.fffffep-1f);
}
/// v_frexp_mant_f32: the mantissa in [0.5, 1); infinities and NaN as
/// they are.
float amdFrexpMant(float x) {
  if (!std::isfinite(x))
    return x;
  int e;
  return std::frexp(x, &e);
}
/// v_frexp_exp_i32_f32: the exponent of frexp; 0 for infinities and NaN.
int32_t amdFrexpExp(float x) {
  if (!std::isfinite(x))
    return 0;
  int e;
  std::frexp(x, &e);
  return e;
}
/// v_cmp_class_f32: whether x is of a class whose bit is set in `mask`
/// (signalling NaN, quiet NaN, -inf, -normal, -subnormal, -0, +0,
/// +subnormal, +normal, +inf).
bool amdClass(float x, int32_t mask) {
  int bit;
  bool negative = std::signbit(x);
  switch (std::fpclassify(x)) {
  case FP_NAN: {
    uint32_t bits;
    std::memcpy(&bits, &x, 4);
    bit = (bits & 0x400000) ? 1 : 0;
    break;
  }
  case FP_INFINITE:
    bit = negative ? 2 : 9;
    break;
  case FP_NORMAL:
    bit = negative ? 3 : 8;
    break;
  case FP_SUBNORMAL:
    bit = negative ? 4 : 7;
    break;
  default:
    bit = negative ? 5 : 6;
    break;
  }
  return (mask >> bit) & 1;
}
/// v_sin_f32 and v_cos_f32 take revolutions: sin(2 pi x).
float amdSin(float x) { return float(std::sin(2 * M_PI * double(x))); }
float amdCos(float x) { return float(std::cos(2 * M_PI * double(x))); }
/// v_fmed3_f32: the median of three.
float amdFmed3(float a, float b, float c) {
  return std::fmax(std::fmin(a, b), std::fmin(std::fmax(a, b), c));
}

template <typename F> void *entry(F f) { return reinterpret_cast<void *>(f); }

} // namespace

void tessera::emu::detail::addMathEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.nvvm.fabs.f32", entry(plain<fAbs>)},
      {"llvm.nvvm.fabs.ftz.f32", entry(ftz<fAbs>)},
      {"llvm.nvvm.ex2.approx.f32", entry(plain<fExp2>)},
      {"llvm.nvvm.ex2.approx.f", entry(plain<fExp2>)},
      {"llvm.nvvm.ex2.approx.ftz.f32", entry(ftz<fExp2>)},
      {"llvm.nvvm.ex2.approx.ftz.f", entry(ftz<fExp2>)},
      {"llvm.nvvm.lg2.approx.f", entry(plain<fLog2>)},
      {"llvm.nvvm.lg2.approx.ftz.f", entry(ftz<fLog2>)},
      {"llvm.nvvm.rsqrt.approx.f", entry(plain<fRsqrt>)},
      {"llvm.nvvm.rsqrt.approx.ftz.f", entry(ftz<fRsqrt>)},
      {"llvm.nvvm.sqrt.approx.f", entry(plain<fSqrt>)},
      {"llvm.nvvm.sqrt.approx.ftz.f", entry(ftz<fSqrt>)},
      {"llvm.nvvm.sqrt.rn.f", entry(plain<fSqrt>)},
      {"llvm.nvvm.sqrt.rn.ftz.f", entry(ftz<fSqrt>)},
      {"llvm.nvvm.sqrt.f", entry(plain<fSqrt>)},
      {"llvm.nvvm.rcp.rn.f", entry(plain<fRcp>)},
      {"llvm.nvvm.rcp.rn.ftz.f", entry(ftz<fRcp>)},
      {"llvm.nvvm.rcp.approx.ftz.f", entry(ftz<fRcp>)},
      {"llvm.nvvm.sin.approx.f", entry(plain<fSin>)},
      {"llvm.nvvm.sin.approx.ftz.f", entry(ftz<fSin>)},
      {"llvm.nvvm.cos.approx.f", entry(plain<fCos>)},
      {"llvm.nvvm.cos.approx.ftz.f", entry(ftz<fCos>)},
      {"llvm.nvvm.tanh.approx.f32", entry(plain<fTanh>)},
      {"llvm.nvvm.round.f", entry(plain<fRound>)},
      {"llvm.nvvm.round.ftz.f", entry(ftz<fRound>)},
      {"llvm.nvvm.floor.f", entry(plain<fFloor>)},
      {"llvm.nvvm.floor.ftz.f", entry(ftz<fFloor>)},
      {"llvm.nvvm.ceil.f", entry(plain<fCeil>)},
      {"llvm.nvvm.ceil.ftz.f", entry(ftz<fCeil>)},
      {"llvm.nvvm.trunc.f", entry(plain<fTrunc>)},
      {"llvm.nvvm.trunc.ftz.f", entry(ftz<fTrunc>)},
      {"llvm.nvvm.saturate.f", entry(plain<fSaturate>)},
      {"llvm.nvvm.saturate.ftz.f", entry(ftz<fSaturate>)},
      {"llvm.nvvm.div.rn.f", entry(plain2<fDiv>)},
      {"llvm.nvvm.div.rn.ftz.f", entry(ftz2<fDiv>)},
      {"llvm.nvvm.div.approx.f", entry(plain2<fDiv>)},
      {"llvm.nvvm.div.approx.ftz.f", entry(ftz2<fDiv>)},
      {"llvm.nvvm.div.full", entry(plain2<fDiv>)},
      {"llvm.nvvm.div.full.ftz", entry(ftz2<fDiv>)},
      {"llvm.nvvm.mul.rn.f", entry(plain2<fMul>)},
      {"llvm.nvvm.mul.rn.ftz.f", entry(ftz2<fMul>)},
      {"llvm.nvvm.mul.rz.f", entry(mulDirected<FE_TOWARDZERO>)},
      {"llvm.nvvm.mul.rm.f", entry(mulDirected<FE_DOWNWARD>)},
      {"llvm.nvvm.mul.rp.f", entry(mulDirected<FE_UPWARD>)},
      {"llvm.nvvm.add.rn.f", entry(plain2<fAdd>)},
      {"llvm.nvvm.add.rn.ftz.f", entry(ftz2<fAdd>)},
      {"llvm.nvvm.add.rz.f", entry(addDirected<FE_TOWARDZERO>)},
      {"llvm.nvvm.add.rm.f", entry(addDirected<FE_DOWNWARD>)},
      {"llvm.nvvm.add.rp.f", entry(addDirected<FE_UPWARD>)},
      {"llvm.nvvm.fmin.f", entry(plain2<fMin>)},
      {"llvm.nvvm.fmin.ftz.f", entry(ftz2<fMin>)},
      {"llvm.nvvm.fmax.f", entry(plain2<fMax>)},
      {"llvm.nvvm.fmax.ftz.f", entry(ftz2<fMax>)},
      {"llvm.nvvm.fma.rn.f", entry(fFma)},
      {"llvm.nvvm.fma.rn.ftz.f", entry(fmaFtz)},
      {"llvm.nvvm.fma.rz.f", entry(fmaDirected<FE_TOWARDZERO>)},
      {"llvm.nvvm.fma.rm.f", entry(fmaDirected<FE_DOWNWARD>)},
      {"llvm.nvvm.fma.rp.f", entry(fmaDirected<FE_UPWARD>)},
      {"llvm.nvvm.f2i.rn", entry(toInt<FE_TONEAREST>)},
      {"llvm.nvvm.f2i.rz", entry(toInt<FE_TOWARDZERO>)},
      {"llvm.nvvm.f2i.rm", entry(toInt<FE_DOWNWARD>)},
      {"llvm.nvvm.f2i.rp", entry(toInt<FE_UPWARD>)},
      // v_exp_f32, v_log_f32 (base 2), v_rcp_f32, v_rsq_f32, v_sqrt_f32.
      {"llvm.amdgcn.exp2.f32", entry(ftz<fExp2>)},
      {"llvm.amdgcn.log.f32", entry(plain<fLog2>)},
      {"llvm.amdgcn.rcp.f32", entry(plain<fRcp>)},
      {"llvm.amdgcn.rsq.f32", entry(plain<fRsqrt>)},
      {"llvm.amdgcn.sqrt.f32", entry(plain<fSqrt>)},
      {"llvm.amdgcn.fract.f32", entry(amdFract)},
      {"llvm.amdgcn.frexp.mant.f32", entry(amdFrexpMant)},
      {"llvm.amdgcn.frexp.exp.i32.f32", entry(amdFrexpExp)},
      {"llvm.amdgcn.class.f32", entry(amdClass)},
      {"llvm.amdgcn.sin.f32", entry(amdSin)},
      {"llvm.amdgcn.cos.f32", entry(amdCos)},
      {"llvm.amdgcn.fmed3.f32", entry(amdFmed3)},
  });
}
