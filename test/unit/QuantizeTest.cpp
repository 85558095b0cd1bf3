//===- QuantizeTest.cpp - Host-side weight quantization ---------*- C++ -*-===//
//
// tessera::quantizeWeights against what the quantized kernels assume: codes
// in range, round-to-nearest error within half a step, the packed nibble
// order, and one scale (and zero) per group and column.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/quantize.hpp"
#include "tessera/runtime/tessera.hpp"

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
                      Scheme{WeightQuantization::Format::Int8, 0, true}),
    [](const ::testing::TestParamInfo<Scheme> &info) {
      const Scheme &p = info.param;
      std::string name =
          p.format == WeightQuantization::Format::Int4 ? "Int4" : "Int8";
      name += p.group ? "Group" + std::to_string(p.group) : "PerChannel";
      return p.zeroPoints ? name + "ZeroPoints" : name;
    });

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

TEST(QuantizeLayout, Int4PairViewSplitsTheLastDimension) {
  // [3, 5] int4 codes in rows of 3 bytes -> [3, 3, 2] nibble pairs over
  // the same bytes.
  std::vector<uint8_t> bytes(9);
  tessera_view codes = tessera::view(bytes.data(), {3, 5}, TESSERA_DTYPE_I4);
  codes.strides[0] = 3;
  tessera_view pairs = tessera::int4PairView(codes);
  EXPECT_EQ(pairs.data, codes.data);
  EXPECT_EQ(pairs.dtype, TESSERA_DTYPE_I4);
  ASSERT_EQ(pairs.rank, 3);
  EXPECT_EQ(pairs.sizes[0], 3);
  EXPECT_EQ(pairs.sizes[1], 3);
  EXPECT_EQ(pairs.sizes[2], 2);
  EXPECT_EQ(pairs.strides[0], 3);
  EXPECT_EQ(pairs.strides[1], 1);
  // No room past the largest rank: unchanged.
  tessera_view full = tessera::view(bytes.data(), {1, 1, 3, 3});
  EXPECT_EQ(tessera::int4PairView(full).rank, TESSERA_MAX_RANK);
}

TEST(QuantizeLayout, TransposedMatchesTheTranspose) {
  // [n, k] with groups along each row quantizes exactly like [k, n] with
  // groups along each column: same codes, scales and zeros, transposed;
  // int4 packs along k.
  const int64_t k = 200, n = 37;
  std::vector<float> w = randomWeights(k, n, 3), wt(n * k);
  for (int64_t r = 0; r < k; ++r)
    for (int64_t c = 0; c < n; ++c)
      wt[c * k + r] = w[r * n + c];
  for (WeightQuantization scheme :
       {WeightQuantization{WeightQuantization::Format::Int4, 64, true},
        WeightQuantization{WeightQuantization::Format::Int8, 0, false},
        WeightQuantization{WeightQuantization::Format::Fp8, 128, false}}) {
    QuantizedWeights plain = quantizeWeights(w.data(), k, n, scheme);
    scheme.transposed = true;
    QuantizedWeights flipped = quantizeWeights(wt.data(), n, k, scheme);
    ASSERT_EQ(flipped.scales.size(), plain.scales.size());
    ASSERT_EQ(flipped.blockScales.size(), plain.blockScales.size());
    if (scheme.format == WeightQuantization::Format::Int4)
      EXPECT_EQ(flipped.codes.size(), size_t(n * ((k + 1) / 2)));
    for (int64_t r = 0; r < k; ++r)
      for (int64_t c = 0; c < n; ++c)
        ASSERT_EQ(flipped.dequantized(c, r), plain.dequantized(r, c))
            << "at k = " << r << ", n = " << c;
  }
}

TEST(F16, EveryFiniteCodeRoundTripsAndTiesGoToEven) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if ((bits & 0x7C00) == 0x7C00)
      continue; // infinities and NaNs
    EXPECT_EQ(toF16(fromF16(uint16_t(bits))), bits) << bits;
  }
  // Halfway between 1 and 1 + 2^-10 rounds to 1; between 1 + 2^-10 and
  // 1 + 2^-9 to the latter (even mantissa).
  EXPECT_EQ(toF16(1.0f + 0x1p-11f), 0x3C00);
  EXPECT_EQ(toF16(1.0f + 0x3p-11f), 0x3C02);
  EXPECT_EQ(toF16(70000.0f), 0x7C00);
  EXPECT_EQ(toF16(-65504.0f), 0xFBFF);
  EXPECT_EQ(toF16(0x1p-25f), 0x0000); // half the smallest subnormal: even
}

TEST(E4M3, EveryCodeRoundTrips) {
  // 0x7F and 0xFF are NaN; every other code decodes to a value that
  // encodes back to itself.
  for (int bits = 0; bits < 256; ++bits) {
    float value = fromE4M3(uint8_t(bits));
    if ((bits & 0x7F) == 0x7F) {
      EXPECT_TRUE(std::isnan(value)) << bits;
      continue;
    }
    EXPECT_EQ(toE4M3(value), bits) << "code " << bits << " = " << value;
  }
  EXPECT_EQ(fromE4M3(0x7E), 448.0f);
  EXPECT_EQ(fromE4M3(0x08), 0.015625f);    // smallest normal, 2^-6
  EXPECT_EQ(fromE4M3(0x01), 0.001953125f); // smallest subnormal, 2^-9
  EXPECT_EQ(fromE4M3(0xC0), -2.0f);
}

TEST(E4M3, RoundsToNearestEvenAndSaturates) {
  // Between 1 (0x38) and 1.125 (0x39): halfway rounds to the even 1.
  EXPECT_EQ(toE4M3(1.0625f), 0x38);
  EXPECT_EQ(toE4M3(1.07f), 0x39);
  // Between 1.125 and 1.25 (0x3A): halfway rounds to the even 1.25.
  EXPECT_EQ(toE4M3(1.1875f), 0x3A);
  // Subnormals: half of 2^-9 rounds to even (0), 1.5 units to 2 units.
  EXPECT_EQ(toE4M3(0.0009765625f), 0x00);
  EXPECT_EQ(toE4M3(0.0029296875f), 0x02);
  // Rounding up from the largest subnormal reaches the smallest normal.
  EXPECT_EQ(toE4M3(0.0155f), 0x08);
  // No infinities: beyond 448 saturates, with the sign.
  EXPECT_EQ(toE4M3(1000.0f), 0x7E);
  EXPECT_EQ(toE4M3(-460.0f), 0xFE);
  EXPECT_EQ(toE4M3(-0.0f), 0x80);
}

TEST(QuantizeFp8, BlocksOf128x128) {
  // 300 x 200: 3 x 2 blocks, the last ones partial. Each block's largest
  // magnitude maps onto 448; every weight is within half an e4m3 step.
  const int64_t rows = 300, cols = 200;
  std::vector<float> w = randomWeights(rows, cols, 11);
  w[5 * cols + 130] = 2.0f; // block (0, 1) gets a larger scale
  QuantizedWeights q = quantizeWeights(
      w.data(), rows, cols, {WeightQuantization::Format::Fp8, 128, false});
  ASSERT_EQ(q.groups(), 3);
  ASSERT_EQ(q.blockColumns(), 2);
  ASSERT_EQ(q.blockScales.size(), 6u);
  ASSERT_EQ(q.codes.size(), size_t(rows * cols));
  EXPECT_TRUE(q.scales.empty());
  EXPECT_FLOAT_EQ(q.blockScales[1], 2.0f / 448.0f);
  EXPECT_EQ(q.codes[5 * cols + 130], 0x7E);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float scale = q.blockScales[(r / 128) * 2 + c / 128];
      float x = w[r * cols + c], y = q.dequantized(r, c);
      EXPECT_EQ(y, fromE4M3(q.codes[r * cols + c]) * scale);
      // 3 mantissa bits: within 2^-4 relative, or half a subnormal step.
      EXPECT_LE(std::fabs(y - x),
                std::max(std::fabs(x) / 16, scale * 0.0009765625f) * 1.0001f)
          << "at (" << r << ", " << c << ")";
    }
}

TEST(QuantizeActivations, OneScalePerTokenOrBlock) {
  // Row 0 peaks at 2.54 (scale 0.02), row 1 is all zero, row 2 peaks at
  // -448 in its first block of 4 and at 3 in its second.
  const int64_t rows = 3, cols = 6;
  std::vector<float> a = {0.1f, -2.54f, 1.0f, 0.0f,    0.3f,  2.0f, //
                          0,    0,      0,    0,       0,     0,    //
                          1.0f, -1.0f,  0.5f, -448.0f, 0.25f, 3.0f};
  QuantizedActivations perToken =
      quantizeActivations(a.data(), rows, cols, ActivationFormat::Int8);
  ASSERT_EQ(perToken.blocks(), 1);
  ASSERT_EQ(perToken.scales.size(), 3u);
  EXPECT_FLOAT_EQ(perToken.scales[0], 2.54f / 127.0f);
  EXPECT_EQ(perToken.scales[1], 0.0f);
  EXPECT_EQ(static_cast<int8_t>(perToken.codes[1]), -127);
  EXPECT_EQ(static_cast<int8_t>(perToken.codes[2]), 50); // 1.0 / 0.02
  for (int64_t c = 0; c < cols; ++c)
    EXPECT_EQ(perToken.dequantized(1, c), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      EXPECT_LE(std::fabs(perToken.dequantized(r, c) - a[r * cols + c]),
                0.5f * perToken.scales[r] * 1.0001f);

  // fp8 per block of 4: each of row 2's blocks maps its own peak onto 448.
  QuantizedActivations blocks =
      quantizeActivations(a.data(), rows, cols, ActivationFormat::Fp8, 4);
  ASSERT_EQ(blocks.blocks(), 2);
  EXPECT_EQ(blocks.scales[2 * 2], 1.0f);
  EXPECT_FLOAT_EQ(blocks.scales[2 * 2 + 1], 3.0f / 448.0f);
  EXPECT_EQ(blocks.codes[2 * cols + 3], 0xFE); // -448
  EXPECT_EQ(blocks.codes[2 * cols + 0], 0x38); // 1.0
  EXPECT_EQ(blocks.codes[2 * cols + 5], 0x7E); // 3 / (3 / 448) = 448
  EXPECT_FLOAT_EQ(blocks.dequantized(2, 5), 3.0f);
}
} // namespace
