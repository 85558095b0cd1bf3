//===- HostFp8Test.cpp - The host target's fp8 conversions ------*- C++ -*-===//
//
// convert-tile-to-host encodes and decodes f8E4M3FN with integer arithmetic
// of its own; the runtime (tessera::toE4M3 / fromE4M3) packs the weights and
// builds the references. Both must agree on every code, every tie and the
// saturation, or quantized kernels drift from their checks.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/quantize.hpp"
#include "tessera/runtime/tessera.hpp"

#include "BundleFile.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace tessera;

namespace {
constexpr int64_t kRow = 256;

tessera_view matrix(void *data, int64_t rows, tessera_dtype dtype) {
  return tessera::view(data, {rows, kRow}, dtype);
}

class HostFp8 : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device),
              TESSERA_SUCCESS);
    ASSERT_EQ(
        tessera::test::loadBundleFile(device, TESSERA_FP8_BUNDLE, &module),
        TESSERA_SUCCESS)
        << tesseraGetLastError();
  }
  void TearDown() override {
    tesseraModuleUnload(module);
    tesseraDeviceClose(device);
  }
  /// Runs the kernel on `x` (rows of kRow values) and `codes` (as many).
  void run(std::vector<float> &x, std::vector<uint8_t> &codes,
           std::vector<uint8_t> &quantized, std::vector<float> &decoded) {
    int64_t rows = int64_t(x.size()) / kRow;
    quantized.assign(x.size(), 0xAA); // poison
    decoded.assign(x.size(), -12345.0f);
    tessera_view vx = matrix(x.data(), rows, TESSERA_DTYPE_F32),
                 vq = matrix(quantized.data(), rows, TESSERA_DTYPE_F8E4M3FN),
                 vc = matrix(codes.data(), rows, TESSERA_DTYPE_F8E4M3FN),
                 vy = matrix(decoded.data(), rows, TESSERA_DTYPE_F32);
    void *args[] = {&vx, &vq, &vc, &vy};
    ASSERT_EQ(
        tessera::test::launchNamed(module, "fp8_convert", {rows, 1, 1}, args),
        TESSERA_SUCCESS)
        << tesseraGetLastError();
  }

  tessera_device *device = nullptr;
  tessera_module *module = nullptr;
};

TEST_F(HostFp8, DecodesEveryCodeLikeTheRuntime) {
  std::vector<float> x(kRow, 0.0f), decoded;
  std::vector<uint8_t> codes(kRow), quantized;
  for (int bits = 0; bits < kRow; ++bits)
    codes[bits] = uint8_t(bits);
  run(x, codes, quantized, decoded);
  for (int bits = 0; bits < kRow; ++bits) {
    float expected = fromE4M3(uint8_t(bits));
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(decoded[bits])) << "code " << bits;
    else
      EXPECT_EQ(decoded[bits], expected) << "code " << bits;
  }
}

TEST_F(HostFp8, EncodesLikeTheRuntime) {
  // Row 0: every finite code's value; row 1: every midpoint between
  // neighbouring positive codes (ties round to even); rows 2-5: random
  // values across the normal and subnormal ranges. Each of these rows
  // holds 448, so its scale is exactly 1. Row 6: values up to 1000 (scale
  // 1000 / 448).
  std::vector<float> finite;
  for (int bits = 0; bits < kRow; ++bits)
    if ((bits & 0x7F) != 0x7F)
      finite.push_back(fromE4M3(uint8_t(bits)));
  std::vector<float> positive;
  for (int bits = 0; bits < 0x7F; ++bits)
    positive.push_back(fromE4M3(uint8_t(bits)));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> wide(-448.0f, 448.0f);
  std::uniform_real_distribution<float> tiny(-0.02f, 0.02f);
  std::vector<float> x(7 * kRow, 0.0f);
  for (size_t i = 0; i < finite.size(); ++i)
    x[i] = finite[i];
  for (size_t i = 0; i + 1 < positive.size(); ++i)
    x[kRow + i] = 0.5f * (positive[i] + positive[i + 1]);
  for (int64_t i = 2 * kRow; i < 6 * kRow; ++i)
    x[i] = i % 2 ? wide(rng) : tiny(rng);
  for (int64_t i = 6 * kRow; i < 7 * kRow; ++i)
    x[i] = 1000.0f * std::uniform_real_distribution<float>(-1, 1)(rng);
  x[6 * kRow + 3] = -1000.0f;
  for (int64_t row = 1; row < 6; ++row)
    x[row * kRow + kRow - 1] = 448.0f;

  std::vector<uint8_t> codes(x.size(), 0), quantized;
  std::vector<float> decoded;
  run(x, codes, quantized, decoded);
  for (int64_t row = 0; row < 7; ++row) {
    float largest = 0;
    for (int64_t i = 0; i < kRow; ++i)
      largest = std::max(largest, std::fabs(x[row * kRow + i]));
    float scale = largest / 448.0f;
    for (int64_t i = 0; i < kRow; ++i) {
      float value = x[row * kRow + i];
      EXPECT_EQ(quantized[row * kRow + i], toE4M3(value / scale))
          << "row " << row << ": " << value << " / " << scale;
    }
  }
}
} // namespace
