//===- EmulatorMathTest.cpp - The GPUs' float instructions in the emulator ===//
//
// The exactly rounded instructions that libdevice and ocml build their
// functions on (directed roundings, conversions, AMD's frexp, fract and
// class), called through the entries an image's device code calls, against
// values worked out by hand.
//
//===----------------------------------------------------------------------===//

#include "EmulatorEntry.h"

#include "gtest/gtest.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

using namespace tessera;

namespace {

using test::emulatorEntry;

using Binary = float (*)(float, float);
using Ternary = float (*)(float, float, float);
using Unary = float (*)(float);

TEST(EmulatorMath, DirectedAdditionRoundsTheExactSum) {
  auto rz = emulatorEntry<Binary>("llvm.nvvm.add.rz.f");
  auto rm = emulatorEntry<Binary>("llvm.nvvm.add.rm.f");
  auto rp = emulatorEntry<Binary>("llvm.nvvm.add.rp.f");
  // 1 - 2^-60 is below 1: toward zero and down give the float below 1,
  // up gives 1 (a double sum alone rounds it to 1 and would miss it).
  float below = std::nextafter(1.0f, 0.0f);
  EXPECT_EQ(rz(1.0f, -0x1p-60f), below);
  EXPECT_EQ(rm(1.0f, -0x1p-60f), below);
  EXPECT_EQ(rp(1.0f, -0x1p-60f), 1.0f);
  // 1 + 2^-60: up gives the float above 1.
  EXPECT_EQ(rp(1.0f, 0x1p-60f), std::nextafter(1.0f, 2.0f));
  EXPECT_EQ(rz(1.0f, 0x1p-60f), 1.0f);
  // Exact sums stay; toward zero never overflows.
  EXPECT_EQ(rz(1.5f, 0.25f), 1.75f);
  EXPECT_EQ(rz(FLT_MAX, FLT_MAX), FLT_MAX);
  EXPECT_EQ(rp(FLT_MAX, FLT_MAX), std::numeric_limits<float>::infinity());
}

TEST(EmulatorMath, FusedMultiplyAddRoundsOnce) {
  auto rm = emulatorEntry<Ternary>("llvm.nvvm.fma.rm.f");
  auto rp = emulatorEntry<Ternary>("llvm.nvvm.fma.rp.f");
  // (1 + 2^-23)^2 - 1 = 2^-22 + 2^-46: down keeps 2^-22, up the next.
  float a = 1.0f + 0x1p-23f;
  EXPECT_EQ(rm(a, a, -1.0f), 0x1p-22f);
  EXPECT_EQ(rp(a, a, -1.0f), std::nextafter(0x1p-22f, 1.0f));
  // libdevice's expf: the integer part of x log2 e by 1.5 2^23 rounded down.
  EXPECT_EQ(rm(2.7f, 1.442695f, 12582912.0f), 12582915.0f);
}

TEST(EmulatorMath, ConversionsToIntegerRoundAndSaturate) {
  auto rn = emulatorEntry<int32_t (*)(float)>("llvm.nvvm.f2i.rn");
  auto rz = emulatorEntry<int32_t (*)(float)>("llvm.nvvm.f2i.rz");
  EXPECT_EQ(rn(2.5f), 2);
  EXPECT_EQ(rn(3.5f), 4);
  EXPECT_EQ(rz(-2.7f), -2);
  EXPECT_EQ(rn(1e20f), INT32_MAX);
  EXPECT_EQ(rn(std::nanf("")), 0);
}

TEST(EmulatorMath, FlushToZeroFlushesSubnormals) {
  auto ftz = emulatorEntry<Unary>("llvm.nvvm.fabs.ftz.f32");
  auto plain = emulatorEntry<Unary>("llvm.nvvm.fabs.f32");
  EXPECT_EQ(ftz(-0x1p-130f), 0.0f);
  EXPECT_EQ(plain(-0x1p-130f), 0x1p-130f);
  auto ex2 = emulatorEntry<Unary>("llvm.nvvm.ex2.approx.ftz.f32");
  EXPECT_EQ(ex2(-140.0f), 0.0f); // 2^-140 is subnormal
}

TEST(EmulatorMath, AmdFrexpFractAndClass) {
  auto mant = emulatorEntry<Unary>("llvm.amdgcn.frexp.mant.f32");
  auto exp = emulatorEntry<int32_t (*)(float)>("llvm.amdgcn.frexp.exp.i32.f32");
  EXPECT_EQ(mant(12.0f), 0.75f);
  EXPECT_EQ(exp(12.0f), 4);
  EXPECT_EQ(exp(std::numeric_limits<float>::infinity()), 0);
  auto fract = emulatorEntry<Unary>("llvm.amdgcn.fract.f32");
  EXPECT_EQ(fract(-0.25f), 0.75f);
  EXPECT_EQ(fract(-0x1p-30f), 0x1.fffffep-1f); // below 1, not 1
  EXPECT_TRUE(std::isnan(fract(std::numeric_limits<float>::infinity())));
  auto isClass =
      emulatorEntry<bool (*)(float, int32_t)>("llvm.amdgcn.class.f32");
  EXPECT_TRUE(isClass(-0.0f, 1 << 5));
  EXPECT_FALSE(isClass(0.0f, 1 << 5));
  EXPECT_TRUE(isClass(0x1p-130f, 1 << 7));
  EXPECT_TRUE(isClass(-std::numeric_limits<float>::infinity(), 1 << 2));
  EXPECT_TRUE(isClass(std::nanf(""), 1 << 1));
  // v_sin_f32 takes revolutions.
  auto sin = emulatorEntry<Unary>("llvm.amdgcn.sin.f32");
  EXPECT_NEAR(sin(0.25f), 1.0f, 1e-6f);
}

} // namespace
