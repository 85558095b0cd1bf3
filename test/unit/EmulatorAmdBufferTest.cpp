//===- EmulatorAmdBufferTest.cpp - AMD copies from views past 2 GiB ------===//
//
// AMD copies into LDS and stores of tiles go through buffer resources at
// 32-bit offsets from the tile's origin; a tile whose rows span more than
// 2 GiB of its view takes plain loads and stores instead. The staged
// kernels (gfx942, run by the emulator) over views whose rows are 256 MiB
// apart, in sparse mappings of 4 GiB of which only the rows' first bytes
// are touched: rows 8 to 15 lie past 2 GiB from the origin, where a 32-bit
// offset would wrap.
//
//===----------------------------------------------------------------------===//

#include "BundleFile.h"

#include "gtest/gtest.h"

#include <sys/mman.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <random>

namespace {

constexpr int64_t rows = 16, cols = 64, pitch = int64_t(1) << 26;

/// A rows x cols float view whose rows are `pitch` apart, in a sparse
/// mapping of its own (released at the end of the test).
class SparseView {
public:
  SparseView()
      : bytes(size_t((rows - 1) * pitch + cols) * sizeof(float)),
        mapping(mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)) {}
  ~SparseView() {
    if (ok())
      munmap(mapping, bytes);
  }
  bool ok() const { return mapping != MAP_FAILED; }
  float &at(int64_t r, int64_t c) {
    return static_cast<float *>(mapping)[r * pitch + c];
  }
  tessera_view view() {
    return {mapping, 2, {rows, cols}, {pitch, 1}, TESSERA_DTYPE_F32};
  }

private:
  size_t bytes;
  void *mapping;
};

/// The staged kernels' bundle loaded on the emulator as gfx942.
struct Gfx942Emulator {
  tessera_device *device = nullptr;
  tessera_module *module = nullptr;
  ~Gfx942Emulator() {
    if (module)
      tesseraModuleUnload(module);
    if (device)
      tesseraDeviceClose(device);
  }
  tessera_status open() {
    if (tessera_status status =
            tesseraDeviceOpen(TESSERA_DEVICE_EMULATOR, 0, &device))
      return status;
    if (tessera_status status = tesseraEmulatorSetChip(device, "gfx942"))
      return status;
    return tessera::test::loadBundleFile(device, TESSERA_STAGED_BUNDLE,
                                         &module);
  }
};

TEST(EmulatorAmdBuffer, TilesSpanningMoreThan2GiBTakePlainLoads) {
  SparseView x;
  if (!x.ok())
    GTEST_SKIP() << "no 4 GiB sparse mapping here: " << std::strerror(errno);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<double> want(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = value(rng) + float(r);
      x.at(r, c) = v;
      want[size_t(r)] += v;
    }
  std::vector<float> z(rows, NAN);
  Gfx942Emulator emu;
  ASSERT_EQ(emu.open(), TESSERA_SUCCESS) << tesseraGetLastError();
  tessera_view vx = x.view();
  tessera_view vz = {z.data(), 1, {rows}, {1}, TESSERA_DTYPE_F32};
  void *args[] = {&vx, &vz};
  ASSERT_EQ(tessera::test::launchNamed(emu.module, "row_sums_shared", {1, 1, 1},
                                       args),
            TESSERA_SUCCESS)
      << tesseraGetLastError();
  for (int64_t r = 0; r < rows; ++r)
    EXPECT_NEAR(z[size_t(r)], want[size_t(r)], 1e-4 * (1 + std::fabs(want[r])))
        << "row " << r << " starts " << (r * pitch * 4 >> 20)
        << " MiB from the origin";
}

TEST(EmulatorAmdBuffer, StoresSpanningMoreThan2GiBTakePlainStores) {
  // Y = 2 X with both views' rows 256 MiB apart: the copy and the store
  // of rows 8 to 15 would wrap a 32-bit offset.
  SparseView x, y;
  if (!x.ok() || !y.ok())
    GTEST_SKIP() << "no 4 GiB sparse mappings here: " << std::strerror(errno);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      x.at(r, c) = float(r * cols + c) / 8;
      y.at(r, c) = NAN;
    }
  Gfx942Emulator emu;
  ASSERT_EQ(emu.open(), TESSERA_SUCCESS) << tesseraGetLastError();
  tessera_view vx = x.view(), vy = y.view();
  void *args[] = {&vx, &vy};
  ASSERT_EQ(
      tessera::test::launchNamed(emu.module, "double_staged", {1, 1, 1}, args),
      TESSERA_SUCCESS)
      << tesseraGetLastError();
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      ASSERT_EQ(y.at(r, c), 2 * x.at(r, c)) << "at (" << r << ", " << c << ")";
}

} // namespace
