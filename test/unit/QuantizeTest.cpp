//===- QuantizeTest.cpp - Host-side weight quantization ---------*- C++ -*-===//
//
// tessera::quantizeWeights against what the quantized kernels assume: codes
// in range, round-to-nearest error within half a step, the packed nibble
// order, and one scale (and zero) per group and column.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/quantize.hpp"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace tessera;

namespace {
std::vector<float> randomWeights(int64_t rows, int64_t cols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.3f, 0.2f);
  std::vector<float> w(rows * cols);
  for (float &x : w)
    x = dist(rng);
  return w;
}

struct Scheme {
  WeightQuantization::Format format;
  int64_t group;
  bool zeroPoints;
};

class QuantizeTest : public ::testing::TestWithParam<Scheme> {};

TEST_P(QuantizeTest, DequantizedWeightsAreWithinAStep) {
  Scheme p = GetParam();
  const int64_t rows = 200, cols = 37; // ragged last group, odd columns
  std::vector<float> w = randomWeights(rows, cols, 7);
  QuantizedWeights q =
      quantizeWeights(w.data(), rows, cols, {p.format, p.group, p.zeroPoints});
  bool int4 = p.format == WeightQuantization::Format::Int4;
  int64_t groups = p.group ? (rows + p.group - 1) / p.group : 1;
  ASSERT_EQ(q.groups(), groups);
  ASSERT_EQ(q.scales.size(), size_t(groups * cols));
  ASSERT_EQ(q.zeros.size(), p.zeroPoints ? size_t(groups * cols) : 0u);
  ASSERT_EQ(q.codes.size(), size_t(rows * (int4 ? (cols + 1) / 2 : cols)));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      int code = q.code(r, c);
      EXPECT_GE(code, int4 ? -8 : -127);
      EXPECT_LE(code, int4 ? 7 : 127);
      int64_t g = p.group ? r / p.group : 0;
      float scale = fromF16(q.scales[g * cols + c]);
      ASSERT_GT(scale, 0);
      // Round to nearest with the f16 scale: off by at most half a step
      // (plus the f16 rounding of the scale over the code range). A zero
      // point is rounded to an integer too, which can clamp the ends of the
      // range by up to another half step.
      float steps = p.zeroPoints ? 1.0f : 0.5f;
      EXPECT_LE(std::fabs(q.dequantized(r, c) - w[r * cols + c]),
                steps * scale * 1.01f)
          << "at (" << r << ", " << c << ")";
    }
}

INSTANTIATE_TEST_SUITE_P(
    Formats, QuantizeTest,
    ::testing::Values(Scheme{WeightQuantization::Format::Int4, 32, false},
                      Scheme{WeightQuantization::Format::Int4, 64, true},
                      Scheme{WeightQuantization::Format::Int4, 128, false},
                      Scheme{WeightQuantization::Format::Int8, 0, false},
                      Scheme{WeightQuantization::Format::Int8, 0, true}));

TEST(QuantizeLayout, Int4PacksLowNibbleFirst) {
  // Row 0: codes -8, 7, 1; row 1: -1, 0, 3 (3 columns pad to 2 bytes).
  const int8_t codes[] = {-8, 7, 1, -1, 0, 3};
  std::vector<uint8_t> packed = packInt4(codes, 2, 3);
  ASSERT_EQ(packed.size(), 4u);
  EXPECT_EQ(packed[0], 0x78); // 7 high, -8 (0x8) low
  EXPECT_EQ(packed[1], 0x01);
  EXPECT_EQ(packed[2], 0x0F); // 0 high, -1 (0xF) low
  EXPECT_EQ(packed[3], 0x03);
}

TEST(QuantizeLayout, GroupsRunAlongK) {
  // Column 0 grows with k: each group of 32 rows gets its own scale, and
  // the largest magnitude of a group maps onto code 7 exactly.
  const int64_t rows = 64, cols = 2;
  std::vector<float> w(rows * cols, 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    w[r * cols] = r < 32 ? 0.07f : 0.7f;
  QuantizedWeights q = quantizeWeights(
      w.data(), rows, cols, {WeightQuantization::Format::Int4, 32, false});
  EXPECT_NEAR(fromF16(q.scales[0]), 0.01f, 1e-5);
  EXPECT_NEAR(fromF16(q.scales[cols]), 0.1f, 1e-4);
  EXPECT_EQ(q.code(0, 0), 7);
  EXPECT_EQ(q.code(40, 0), 7);
  EXPECT_EQ(q.code(40, 1), 0);
}

TEST(QuantizeLayout, ZeroPointsCoverAOneSidedRange) {
  // All weights positive: with zero points the codes use the whole range
  // instead of only the positive half.
  const int64_t rows = 128, cols = 1;
  std::vector<float> w(rows);
  for (int64_t r = 0; r < rows; ++r)
    w[r] = 0.5f + 0.5f * float(r) / float(rows - 1);
  QuantizedWeights symmetric = quantizeWeights(
      w.data(), rows, cols, {WeightQuantization::Format::Int4, 128, false});
  QuantizedWeights shifted = quantizeWeights(
      w.data(), rows, cols, {WeightQuantization::Format::Int4, 128, true});
  double errSym = 0, errZp = 0;
  for (int64_t r = 0; r < rows; ++r) {
    errSym += std::fabs(symmetric.dequantized(r, 0) - w[r]);
    errZp += std::fabs(shifted.dequantized(r, 0) - w[r]);
  }
  EXPECT_EQ(shifted.code(rows - 1, 0), 7);
  EXPECT_LT(errZp, errSym);
}
} // namespace
