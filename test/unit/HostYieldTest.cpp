//===- HostYieldTest.cpp - Loop-carried tiles that trade places -----------===//
//
// The host lowering keeps each loop-carried tile in a buffer and copies the
// yielded tiles into them at the end of an iteration. Swapped, rotated and
// duplicated yields must behave as if the copies happened at once (a swap
// used to overwrite one buffer before reading it).
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/tessera.hpp"

#include "BundleFile.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

namespace {

class HostYield : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device),
              TESSERA_SUCCESS);
    ASSERT_EQ(
        tessera::test::loadBundleFile(device, TESSERA_YIELDS_BUNDLE, &module),
        TESSERA_SUCCESS)
        << tesseraGetLastError();
  }
  void TearDown() override {
    tesseraModuleUnload(module);
    tesseraDeviceClose(device);
  }

  /// Runs `kernel` for `n` iterations on tiles 0, 1, 2 whose elements are
  /// 100 t + i; returns Y (poisoned first).
  std::vector<float> run(const char *kernel, int64_t n, int64_t tiles) {
    std::vector<float> x(24), y(size_t(8 * tiles), -777.0f);
    for (int t = 0; t < 3; ++t)
      for (int i = 0; i < 8; ++i)
        x[size_t(8 * t + i)] = float(100 * t + i);
    tessera_view vx = tessera::view(x.data(), {24}, TESSERA_DTYPE_F32);
    tessera_view vy = tessera::view(y.data(), {8 * tiles}, TESSERA_DTYPE_F32);
    void *args[] = {&vx, &vy, &n};
    EXPECT_EQ(tessera::test::launchNamed(module, kernel, {1, 1, 1}, args),
              TESSERA_SUCCESS)
        << tesseraGetLastError();
    return y;
  }

  tessera_device *device = nullptr;
  tessera_module *module = nullptr;
};

TEST_F(HostYield, SwapTradesTheTiles) {
  for (int64_t n : {0, 1, 2, 3}) {
    std::vector<float> y = run("yield_swap", n, 2);
    for (int i = 0; i < 8; ++i) {
      EXPECT_EQ(y[size_t(i)], float((n % 2 ? 100 : 0) + i)) << "n " << n;
      EXPECT_EQ(y[size_t(8 + i)], float((n % 2 ? 0 : 100) + i)) << "n " << n;
    }
  }
}

TEST_F(HostYield, RotationMovesEveryTile) {
  // Reference: the same rotation on scalars.
  for (int64_t n : {0, 1, 2, 3, 4, 7}) {
    std::vector<float> y = run("yield_rotate", n, 3);
    for (int i = 0; i < 8; ++i) {
      float a = float(i), b = float(100 + i), d = float(200 + i);
      for (int64_t k = 0; k < n; ++k) {
        float b1 = b + 1;
        b = a;
        a = d;
        d = b1;
      }
      EXPECT_EQ(y[size_t(i)], a) << "n " << n;
      EXPECT_EQ(y[size_t(8 + i)], b) << "n " << n;
      EXPECT_EQ(y[size_t(16 + i)], d) << "n " << n;
    }
  }
}

TEST_F(HostYield, DuplicatedYieldsFillBothTiles) {
  for (int64_t n : {0, 1, 2, 5}) {
    std::vector<float> y = run("yield_duplicate", n, 2);
    for (int i = 0; i < 8; ++i) {
      float a = float(i), b = float(100 + i);
      for (int64_t k = 0; k < n; ++k)
        a = b = a + b;
      // The second loop yields (b, b) once.
      EXPECT_EQ(y[size_t(i)], b) << "n " << n;
      EXPECT_EQ(y[size_t(8 + i)], b) << "n " << n;
    }
  }
}

} // namespace
