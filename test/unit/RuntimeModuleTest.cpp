//===- RuntimeModuleTest.cpp - Bundles, modules and launches ----*- C++ -*-===//
//
// Uses the bundle of a tiny kernel compiled by tessera-compile at build time
// (TESSERA_TEST_BUNDLE): scale a vector by a scalar.
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/tessera.hpp"

#include "BundleFile.h"

#include "gtest/gtest.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {
std::string readBundle() {
  std::ifstream file(TESSERA_TEST_BUNDLE, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

class RuntimeModule : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device),
              TESSERA_SUCCESS);
    bundle = readBundle();
    ASSERT_FALSE(bundle.empty());
  }
  void TearDown() override { tesseraDeviceClose(device); }

  tessera_device *device = nullptr;
  std::string bundle;
};

tessera_view vector(float *data, int64_t size) {
  return tessera::view(data, {size});
}

TEST_F(RuntimeModule, ListsKernelsWithTheirSignatures) {
  tessera_module *module;
  ASSERT_EQ(tesseraModuleLoad(device, bundle.data(), bundle.size(), &module),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraModuleKernelCount(module), 1u);
  EXPECT_STREQ(tesseraModuleArch(module), "host");
  tessera_kernel *kernel = nullptr, *first = nullptr;
  ASSERT_EQ(tesseraModuleGetKernel(module, "scale", &kernel), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraModuleGetKernelAt(module, 0, &first), TESSERA_SUCCESS);
  EXPECT_EQ(kernel, first);
  tessera_kernel_info info;
  ASSERT_EQ(tesseraKernelGetInfo(kernel, &info), TESSERA_SUCCESS);
  EXPECT_STREQ(info.name, "scale");
  EXPECT_EQ(info.threads, 64);
  ASSERT_EQ(info.num_args, 3u);
  EXPECT_STREQ(info.args[0], "view:f32:1");
  EXPECT_STREQ(info.args[2], "scalar:f32");
  EXPECT_EQ(tesseraModuleGetKernel(module, "nope", &kernel),
            TESSERA_ERROR_NOT_FOUND);
  EXPECT_EQ(tesseraModuleGetKernelAt(module, 1, &kernel),
            TESSERA_ERROR_NOT_FOUND);
  EXPECT_NE(
      std::string(tesseraGetLastError()).find("no kernel at index 1 of 1"),
      std::string::npos);
  EXPECT_EQ(tesseraLaunch(nullptr, {1, 1, 1}, nullptr, nullptr),
            TESSERA_ERROR_INVALID_ARGUMENT);
  tesseraModuleUnload(module);
}

TEST_F(RuntimeModule, LaunchCoversTheGridOnEveryThreadCount) {
  tessera_module *module;
  ASSERT_EQ(tesseraModuleLoad(device, bundle.data(), bundle.size(), &module),
            TESSERA_SUCCESS);
  for (int threads : {1, 3, 8}) {
    ASSERT_EQ(tesseraHostSetThreads(device, threads), TESSERA_SUCCESS);
    // 1000 elements in blocks of 64: the last block is ragged.
    std::vector<float> x(1000), y(1000, NAN);
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = static_cast<float>(i) - 300.0f;
    tessera_view vx = vector(x.data(), 1000), vy = vector(y.data(), 1000);
    float factor = 2.5f;
    void *args[] = {&vx, &vy, &factor};
    ASSERT_EQ(tessera::test::launchNamed(module, "scale", {16, 1, 1}, args),
              TESSERA_SUCCESS)
        << tesseraGetLastError();
    for (size_t i = 0; i < x.size(); ++i)
      ASSERT_EQ(y[i], 2.5f * x[i]) << "at " << i << " with " << threads;
  }
  tesseraModuleUnload(module);
}

TEST_F(RuntimeModule, TwoModulesOfOneBundleStayApart) {
  // Both come from in-memory images; each must keep its own library.
  tessera_module *first, *second;
  ASSERT_EQ(tesseraModuleLoad(device, bundle.data(), bundle.size(), &first),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraModuleLoad(device, bundle.data(), bundle.size(), &second),
            TESSERA_SUCCESS);
  tesseraModuleUnload(first);
  std::vector<float> x(64, 1.0f), y(64, 0.0f);
  tessera_view vx = vector(x.data(), 64), vy = vector(y.data(), 64);
  float factor = 3.0f;
  void *args[] = {&vx, &vy, &factor};
  ASSERT_EQ(tessera::test::launchNamed(second, "scale", {1, 1, 1}, args),
            TESSERA_SUCCESS);
  EXPECT_EQ(y[63], 3.0f);
  tesseraModuleUnload(second);
}

TEST_F(RuntimeModule, LaunchErrorsAreClear) {
  tessera_module *module;
  ASSERT_EQ(tesseraModuleLoad(device, bundle.data(), bundle.size(), &module),
            TESSERA_SUCCESS);
  std::vector<float> x(8);
  tessera_view vx = vector(x.data(), 8);
  float factor = 1.0f;
  void *args[] = {&vx, &vx, &factor};
  EXPECT_EQ(tessera::test::launchNamed(module, "missing", {1, 1, 1}, args),
            TESSERA_ERROR_NOT_FOUND);
  EXPECT_EQ(tessera::test::launchNamed(module, "scale", {0, 1, 1}, args),
            TESSERA_ERROR_INVALID_ARGUMENT);
  tessera_view matrix = vx;
  matrix.rank = 2;
  void *wrongRank[] = {&matrix, &vx, &factor};
  EXPECT_EQ(tessera::test::launchNamed(module, "scale", {1, 1, 1}, wrongRank),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tesseraGetLastError()).find("must be a view of rank 1"),
            std::string::npos);
  // The limits the tag checker's proofs assume are enforced.
  EXPECT_EQ(tessera::test::launchNamed(module, "scale",
                                       {int64_t(1) << 31, 1, 1}, args),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tessera::test::launchNamed(module, "scale", {1, 65536, 1}, args),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tesseraGetLastError()).find("at most 2^31 - 1"),
            std::string::npos);
  for (int64_t size : {int64_t(-1), int64_t(1) << 48}) {
    tessera_view huge = vx;
    huge.sizes[0] = size;
    void *hugeArgs[] = {&huge, &vx, &factor};
    EXPECT_EQ(tessera::test::launchNamed(module, "scale", {1, 1, 1}, hugeArgs),
              TESSERA_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tesseraGetLastError()).find("outside [0, 2^48)"),
              std::string::npos);
  }
  // Views are strided with a unit innermost stride.
  for (int64_t stride : {int64_t(2), int64_t(-1)}) {
    tessera_view strided = vx;
    strided.strides[0] = stride;
    void *stridedArgs[] = {&strided, &vx, &factor};
    EXPECT_EQ(
        tessera::test::launchNamed(module, "scale", {1, 1, 1}, stridedArgs),
        TESSERA_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(tesseraGetLastError())
                  .find("stride " + std::to_string(stride) +
                        " of dimension 0 must be 1 (the innermost)"),
              std::string::npos);
  }
  void *missing[] = {&vx, nullptr, &factor};
  EXPECT_EQ(tessera::test::launchNamed(module, "scale", {1, 1, 1}, missing),
            TESSERA_ERROR_INVALID_ARGUMENT);
  tesseraModuleUnload(module);
}

TEST_F(RuntimeModule, MalformedBundlesAreRejected) {
  tessera_module *module = nullptr;
  std::string garbage = "not a bundle at all, just some bytes....";
  EXPECT_EQ(tesseraModuleLoad(device, garbage.data(), garbage.size(), &module),
            TESSERA_ERROR_INVALID_BUNDLE);
  EXPECT_EQ(module, nullptr);
  // Every truncation of a valid bundle is an error, never a crash.
  for (size_t size : {size_t(4), size_t(31), size_t(40), bundle.size() / 2,
                      bundle.size() - 1}) {
    EXPECT_NE(tesseraModuleLoad(device, bundle.data(), size, &module),
              TESSERA_SUCCESS)
        << "size " << size;
  }
  // A corrupted image offset points outside the binary.
  std::string corrupt = bundle;
  corrupt[32 + 24] = '\x7f';
  corrupt[32 + 31] = '\x7f';
  EXPECT_EQ(tesseraModuleLoad(device, corrupt.data(), corrupt.size(), &module),
            TESSERA_ERROR_INVALID_BUNDLE);
  EXPECT_EQ(tesseraModuleLoadFile(device, "/nonexistent.bundle", &module),
            TESSERA_ERROR_INVALID_ARGUMENT);
  // Kernel metadata launches would trust: a rank that is not a number or
  // beyond TESSERA_MAX_RANK, an unknown argument kind, a scalar the runtime
  // cannot pass (an integer wider than 64 bits, an unknown type).
  for (std::string bad :
       {"view:f32:x", "view:f32:9", "blob:f32:1", "scalar:i99", "scalar:c32"}) {
    std::string edited = bundle;
    size_t at = edited.find(bad[0] == 's' ? "scalar:f32" : "view:f32:1");
    ASSERT_NE(at, std::string::npos);
    edited.replace(at, 10, bad);
    EXPECT_EQ(tesseraModuleLoad(device, edited.data(), edited.size(), &module),
              TESSERA_ERROR_INVALID_BUNDLE)
        << bad;
    EXPECT_NE(std::string(tesseraGetLastError()).find("malformed kernel"),
              std::string::npos);
  }
  EXPECT_EQ(tesseraDeviceKind(nullptr), TESSERA_DEVICE_HOST);
  // A view of more dimensions than the runtime holds is empty, not a write
  // past its arrays.
  float x = 0;
  EXPECT_EQ(tessera::view(&x, {1, 1, 1, 1, 1}).rank, 0);
}

TEST_F(RuntimeModule, ADeviceWithoutItsImageNamesTheImagesPresent) {
  // The emulator of a chip the bundle was not compiled for.
  tessera_device *emulator = nullptr;
  ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_EMULATOR, 0, &emulator),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraEmulatorSetChip(emulator, "sm_90a"), TESSERA_SUCCESS);
  tessera_module *module = nullptr;
  EXPECT_EQ(tesseraModuleLoad(emulator, bundle.data(), bundle.size(), &module),
            TESSERA_ERROR_INVALID_BUNDLE);
  EXPECT_EQ(module, nullptr);
  std::string message = tesseraGetLastError();
  EXPECT_NE(message.find("the bundle has no image for emu-sm_90a: it needs the "
                         "emu-sm_90a image; compile with --target=sm_90a"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("host"), std::string::npos) << message;
  EXPECT_NE(message.find("sm_80 PTX"), std::string::npos) << message;
  EXPECT_NE(message.find("emu-sm_80"), std::string::npos) << message;
  tesseraDeviceClose(emulator);
}
} // namespace

// int4 nibble-pair views ([.., n, 2], two codes per byte): consecutive pairs
// must be consecutive bytes, which the GPU backends copy as one run.
TEST(RuntimeInt4Pairs, PairsAreConsecutiveBytes) {
  tessera_device *device = nullptr;
  ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device),
            TESSERA_SUCCESS);
  tessera_module *module = nullptr;
  ASSERT_EQ(
      tessera::test::loadBundleFile(device, TESSERA_PAIRS_BUNDLE, &module),
      TESSERA_SUCCESS)
      << tesseraGetLastError();
  // Row r holds the codes r - 2, r - 1, r, r + 1 (as nibbles, low first).
  std::vector<uint8_t> bytes(4 * 4, 0xEE);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      uint8_t nibble = uint8_t(r - 2 + c) & 0xF;
      uint8_t &byte = bytes[r * 4 + c / 2];
      byte = c % 2 ? uint8_t((byte & 0x0F) | (nibble << 4))
                   : uint8_t((byte & 0xF0) | nibble);
    }
  std::vector<int8_t> out(16, 99);
  tessera_view codes = tessera::int4PairView(
      tessera::view(bytes.data(), {4, 4}, TESSERA_DTYPE_I4));
  codes.strides[0] = 4; // rows of 4 bytes, the last 2 unused
  tessera_view y = tessera::view(out.data(), {4, 4}, TESSERA_DTYPE_I8);
  void *args[] = {&codes, &y};
  ASSERT_EQ(tessera::test::launchNamed(module, "unpack_codes", {1, 1, 1}, args),
            TESSERA_SUCCESS)
      << tesseraGetLastError();
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c)
      EXPECT_EQ(out[r * 4 + c], r - 2 + c) << r << ", " << c;
  // Pairs two bytes apart are refused.
  codes.strides[1] = 2;
  EXPECT_EQ(tessera::test::launchNamed(module, "unpack_codes", {1, 1, 1}, args),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tesseraGetLastError())
                .find("the nibble pairs of an int4 view must be consecutive "
                      "bytes (stride 1 along dimension 1), not stride 2"),
            std::string::npos);
  tesseraModuleUnload(module);
  tesseraDeviceClose(device);
}
