//===- EmulatorAmdBufferTest.cpp - AMD copies from views past 2 GiB ------===//
//
// AMD copies into LDS read through buffer resources at 32-bit offsets from
// the tile's origin; a tile whose rows span more than 2 GiB of its view
// takes plain loads instead. The staged row sums (gfx942, run by the
// emulator) over a view whose rows are 256 MiB apart, in a sparse mapping
// of 4 GiB of which only the rows' first bytes are touched: rows 8 to 15
// lie past 2 GiB from the origin, where a 32-bit offset would wrap.
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

TEST(EmulatorAmdBuffer, TilesSpanningMoreThan2GiBTakePlainLoads) {
  constexpr int64_t rows = 16, cols = 64, pitch = int64_t(1) << 26;
  size_t bytes = size_t((rows - 1) * pitch + cols) * sizeof(float);
  void *mapping = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED)
    GTEST_SKIP() << "no 4 GiB sparse mapping here: " << std::strerror(errno);
  auto *x = static_cast<float *>(mapping);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  std::vector<double> want(rows, 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      float v = value(rng) + float(r);
      x[r * pitch + c] = v;
      want[size_t(r)] += v;
    }
  std::vector<float> z(rows, NAN);

  tessera_device *device = nullptr;
  ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_EMULATOR, 0, &device),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraEmulatorSetChip(device, "gfx942"), TESSERA_SUCCESS)
      << tesseraGetLastError();
  tessera_module *module = nullptr;
  ASSERT_EQ(
      tessera::test::loadBundleFile(device, TESSERA_STAGED_BUNDLE, &module),
      TESSERA_SUCCESS)
      << tesseraGetLastError();
  tessera_view vx = {x, 2, {rows, cols}, {pitch, 1}, TESSERA_DTYPE_F32};
  tessera_view vz = {z.data(), 1, {rows}, {1}, TESSERA_DTYPE_F32};
  void *args[] = {&vx, &vz};
  ASSERT_EQ(
      tessera::test::launchNamed(module, "row_sums_shared", {1, 1, 1}, args),
      TESSERA_SUCCESS)
      << tesseraGetLastError();
  for (int64_t r = 0; r < rows; ++r)
    EXPECT_NEAR(z[size_t(r)], want[size_t(r)], 1e-4 * (1 + std::fabs(want[r])))
        << "row " << r << " starts " << (r * pitch * 4 >> 20)
        << " MiB from the origin";
  tesseraModuleUnload(module);
  tesseraDeviceClose(device);
  munmap(mapping, bytes);
}

} // namespace
