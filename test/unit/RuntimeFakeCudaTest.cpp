//===- RuntimeFakeCudaTest.cpp - The CUDA backend on the fake driver
//-------===//
//
// Streams, asynchronous copies, events, kernel handles and properties of a
// CUDA device, on test/fakecuda's stand-in libcuda.so.1 (ctest runs these
// with it first in LD_LIBRARY_PATH; elsewhere they are skipped).
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/tessera.hpp"

#include "gtest/gtest.h"

#include <cmath>
#include <string>
#include <vector>

namespace {
class RuntimeFakeCuda : public ::testing::Test {
protected:
  void SetUp() override {
    device = tessera::Device::open(TESSERA_DEVICE_CUDA);
    tessera_device_properties props;
    if (!device || tesseraDeviceGetProperties(device.get(), &props) ||
        std::string(props.name) != "Tessera fake CUDA device")
      GTEST_SKIP() << "needs test/fakecuda's libcuda.so.1 first in "
                      "LD_LIBRARY_PATH";
  }
  tessera::Device device;
};

TEST_F(RuntimeFakeCuda, PropertiesComeFromTheDriver) {
  tessera_device_properties props;
  ASSERT_EQ(tesseraDeviceGetProperties(device.get(), &props), TESSERA_SUCCESS);
  EXPECT_STREQ(props.arch, "sm_90");
  EXPECT_EQ(props.multiprocessors, 132);
  EXPECT_EQ(props.shared_bytes_per_block, 232448);
  EXPECT_EQ(props.memory_bytes, uint64_t(1) << 34);
  EXPECT_EQ(tesseraHostGetThreads(device.get()), 0);
  EXPECT_EQ(tesseraHostSetThreads(device.get(), 2),
            TESSERA_ERROR_INVALID_ARGUMENT);
  int count = 0;
  ASSERT_EQ(tesseraDeviceCount(TESSERA_DEVICE_CUDA, &count), TESSERA_SUCCESS);
  EXPECT_EQ(count, 1);
  tessera_device *second = nullptr;
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_CUDA, 1, &second),
            TESSERA_ERROR_NO_DEVICE);
}

/// Device buffers written and read on a stream around a launch of the
/// sm_80 PTX (which an sm_90 device takes), timed by events.
TEST_F(RuntimeFakeCuda, StreamsCopyLaunchAndTime) {
  tessera::Module module = tessera::Module::load(device, TESSERA_TEST_BUNDLE);
  ASSERT_TRUE(module) << tessera::error();
  EXPECT_STREQ(tesseraModuleArch(module.get()), "sm_80");
  constexpr int64_t kSize = 300;
  std::vector<float> x(kSize), y(kSize, NAN);
  for (int64_t i = 0; i < kSize; ++i)
    x[i] = float(i) - 7.0f;
  tessera_buffer *bx, *by;
  ASSERT_EQ(tesseraBufferCreate(device.get(), kSize * 4, &bx), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferCreate(device.get(), kSize * 4, &by), TESSERA_SUCCESS);
  tessera::Stream stream = tessera::Stream::create(device);
  tessera::Event start = tessera::Event::create(device);
  tessera::Event end = tessera::Event::create(device);
  ASSERT_TRUE(stream && start && end) << tessera::error();
  tessera_view vx = tessera::view(tesseraBufferData(bx), {kSize});
  tessera_view vy = tessera::view(tesseraBufferData(by), {kSize});
  float factor = -3.0f;
  void *args[] = {&vx, &vy, &factor};
  ASSERT_EQ(tesseraBufferWriteAsync(bx, 0, x.data(), kSize * 4, stream.get()),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraEventRecord(start.get(), stream.get()), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraLaunch(module.kernel("scale"), {(kSize + 63) / 64, 1, 1},
                          args, stream.get()),
            TESSERA_SUCCESS)
      << tessera::error();
  ASSERT_EQ(tesseraEventRecord(end.get(), stream.get()), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferReadAsync(by, 0, y.data(), kSize * 4, stream.get()),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraStreamSynchronize(stream.get()), TESSERA_SUCCESS);
  for (int64_t i = 0; i < kSize; ++i)
    ASSERT_EQ(y[i], -3.0f * x[i]) << i;
  double ms = -1;
  ASSERT_EQ(tesseraEventElapsedMs(start.get(), end.get(), &ms),
            TESSERA_SUCCESS);
  EXPECT_GE(ms, 0.0);
  // Launch checks happen before the driver is called.
  vx.strides[0] = 2;
  EXPECT_EQ(tesseraLaunch(module.kernel("scale"), {1, 1, 1}, args, nullptr),
            TESSERA_ERROR_INVALID_ARGUMENT);
  // Synchronous copies and a synchronous launch.
  vx.strides[0] = 1;
  factor = 0.5f;
  ASSERT_EQ(tesseraLaunch(module.kernel("scale"), {(kSize + 63) / 64, 1, 1},
                          args, nullptr),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferRead(by, 0, y.data(), kSize * 4), TESSERA_SUCCESS);
  EXPECT_EQ(y[kSize - 1], 0.5f * x[kSize - 1]);
  EXPECT_EQ(tesseraDeviceSynchronize(device.get()), TESSERA_SUCCESS);
  tesseraBufferDestroy(bx);
  tesseraBufferDestroy(by);
}
} // namespace
