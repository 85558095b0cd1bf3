//===- Fp8Test.cpp - fp8 conversions on the host and the GPU targets ------===//
//
// The host and GPU lowerings encode and decode f8E4M3FN with integer
// arithmetic of their own (GPU MMAs read the values of quantized codes
// computed from the reals, without a decoding); the runtime
// (tessera::toE4M3 / fromE4M3) packs the weights and builds the
// references. All must agree on every code, every tie and the saturation,
// or quantized kernels drift from their checks. The GPU images run on the
// emulator.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/quantize.hpp"
#include "tessera/runtime/tessera.hpp"

#include "BundleFile.h"
#include "Devices.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace tessera;

namespace {
constexpr int64_t kRow = 64, kTileRows = 32;

using tessera::test::Where;

class Fp8 : public ::testing::TestWithParam<Where> {
protected:
  void SetUp() override {
    ASSERT_EQ(tesseraDeviceOpen(GetParam().kind, 0, &device), TESSERA_SUCCESS);
    if (GetParam().chip)
      ASSERT_EQ(tesseraEmulatorSetChip(device, GetParam().chip),
                TESSERA_SUCCESS)
          << tesseraGetLastError();
    ASSERT_EQ(
        tessera::test::loadBundleFile(device, TESSERA_FP8_BUNDLE, &module),
        TESSERA_SUCCESS)
        << tesseraGetLastError();
  }
  void TearDown() override {
    if (module)
      tesseraModuleUnload(module);
    if (device)
      tesseraDeviceClose(device);
  }
  /// Runs the kernel on `x` and `codes` (rows of kRow values each, as
  /// many): the codes of `x` quantized per row, `codes` decoded, and the
  /// values of the quantized codes as an MMA with the identity reads them.
  void run(std::vector<float> &x, std::vector<uint8_t> &codes,
           std::vector<uint8_t> &quantized, std::vector<float> &decoded,
           std::vector<float> &values) {
    int64_t rows = int64_t(x.size()) / kRow;
    quantized.assign(x.size(), 0xAA); // poison
    decoded.assign(x.size(), -12345.0f);
    values.assign(x.size(), -12345.0f);
    std::vector<uint8_t> identity(kRow * kRow, 0);
    for (int64_t i = 0; i < kRow; ++i)
      identity[i * kRow + i] = toE4M3(1.0f);
    auto matrix = [](void *data, int64_t rows, tessera_dtype dtype) {
      return tessera::view(data, {rows, kRow}, dtype);
    };
    tessera_view vx = matrix(x.data(), rows, TESSERA_DTYPE_F32),
                 vq = matrix(quantized.data(), rows, TESSERA_DTYPE_F8E4M3FN),
                 vc = matrix(codes.data(), rows, TESSERA_DTYPE_F8E4M3FN),
                 vy = matrix(decoded.data(), rows, TESSERA_DTYPE_F32),
                 vi = matrix(identity.data(), kRow, TESSERA_DTYPE_F8E4M3FN),
                 vv = matrix(values.data(), rows, TESSERA_DTYPE_F32);
    void *args[] = {&vx, &vq, &vc, &vy, &vi, &vv};
    int64_t tiles = (rows + kTileRows - 1) / kTileRows;
    ASSERT_EQ(
        tessera::test::launchNamed(module, "fp8_convert", {tiles, 1, 1}, args),
        TESSERA_SUCCESS)
        << tesseraGetLastError();
  }

  tessera_device *device = nullptr;
  tessera_module *module = nullptr;
};

TEST_P(Fp8, DecodesEveryCodeLikeTheRuntime) {
  std::vector<float> x(256, 0.0f), decoded, values;
  std::vector<uint8_t> codes(256), quantized;
  for (int bits = 0; bits < 256; ++bits)
    codes[bits] = uint8_t(bits);
  run(x, codes, quantized, decoded, values);
  for (int bits = 0; bits < 256; ++bits) {
    float expected = fromE4M3(uint8_t(bits));
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(decoded[bits])) << "code " << bits;
    else
      EXPECT_EQ(decoded[bits], expected) << "code " << bits;
  }
}

TEST_P(Fp8, EncodesLikeTheRuntime) {
  // Every finite code's value, then every midpoint between neighbouring
  // positive codes (ties round to even), then random values across the
  // normal and subnormal ranges, 63 to a row with 448 last (its scale is
  // exactly 1); then rows of values up to 1000 (scale 1000 / 448).
  std::vector<float> exact;
  for (int bits = 0; bits < 256; ++bits)
    if ((bits & 0x7F) != 0x7F)
      exact.push_back(fromE4M3(uint8_t(bits)));
  for (int bits = 0; bits + 1 < 0x7F; ++bits)
    exact.push_back(0.5f *
                    (fromE4M3(uint8_t(bits)) + fromE4M3(uint8_t(bits + 1))));
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> wide(-448.0f, 448.0f);
  std::uniform_real_distribution<float> tiny(-0.02f, 0.02f);
  for (int i = 0; i < 4 * 63; ++i)
    exact.push_back(i % 2 ? wide(rng) : tiny(rng));
  std::vector<float> x;
  for (size_t i = 0; i < exact.size(); i += 63) {
    for (size_t j = i; j < i + 63; ++j)
      x.push_back(j < exact.size() ? exact[j] : 0.0f);
    x.push_back(448.0f);
  }
  int64_t scaledRow = int64_t(x.size()) / kRow;
  for (int64_t i = 0; i < 2 * kRow; ++i)
    x.push_back(1000.0f * std::uniform_real_distribution<float>(-1, 1)(rng));
  x[scaledRow * kRow + 3] = -1000.0f;
  // Then a row holding a NaN whose payload fills its mantissa: the row's
  // scale is NaN, not positive, so its codes are 0 (as for a row of
  // zeros; the NaN stays in the scale).
  int64_t nanRow = int64_t(x.size()) / kRow;
  x.resize(x.size() + kRow, 1.0f);
  uint32_t payload = 0x7FFFFFFF;
  std::memcpy(&x[nanRow * kRow + 5], &payload, sizeof payload);

  std::vector<uint8_t> codes(x.size(), 0), quantized;
  std::vector<float> decoded, values;
  run(x, codes, quantized, decoded, values);
  int64_t rows = int64_t(x.size()) / kRow;
  for (int64_t row = 0; row < rows; ++row) {
    if (row == nanRow) {
      for (int64_t i = 0; i < kRow; ++i) {
        EXPECT_EQ(quantized[row * kRow + i], 0) << "column " << i;
        EXPECT_EQ(values[row * kRow + i], 0.0f) << "column " << i;
      }
      continue;
    }
    float largest = 0;
    for (int64_t i = 0; i < kRow; ++i)
      largest = std::max(largest, std::fabs(x[row * kRow + i]));
    float scale = largest / 448.0f;
    EXPECT_EQ(scale == 1.0f, row < scaledRow) << "row " << row;
    for (int64_t i = 0; i < kRow; ++i) {
      float value = x[row * kRow + i];
      uint8_t code = toE4M3(value / scale);
      EXPECT_EQ(quantized[row * kRow + i], code)
          << "row " << row << ": " << value << " / " << scale;
      EXPECT_EQ(values[row * kRow + i], fromE4M3(code))
          << "row " << row << ": " << value << " / " << scale;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Devices, Fp8,
    ::testing::Values(Where{TESSERA_DEVICE_HOST, nullptr},
                      Where{TESSERA_DEVICE_EMULATOR, "sm_80"},
                      Where{TESSERA_DEVICE_EMULATOR, "sm_90a"},
                      Where{TESSERA_DEVICE_EMULATOR, "gfx942"},
                      Where{TESSERA_DEVICE_EMULATOR, "gfx90a"}),
    tessera::test::deviceName);
} // namespace
