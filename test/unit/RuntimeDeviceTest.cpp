//===- RuntimeDeviceTest.cpp - Runtime devices and errors -------*- C++ -*-===//

#include "tessera/runtime/tessera_runtime.h"

#include "gtest/gtest.h"

#include <dlfcn.h>
#include <string>

namespace {
TEST(RuntimeDevice, HostAlwaysOpens) {
  tessera_device *device = nullptr;
  ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device),
            TESSERA_SUCCESS);
  ASSERT_NE(device, nullptr);
  EXPECT_EQ(tesseraDeviceKind(device), TESSERA_DEVICE_HOST);
  tesseraDeviceClose(device);
}

/// Without the driver library a GPU device is a clear error, not a crash.
void expectGpuDeviceOrClearError(tessera_device_kind kind,
                                 const char *library) {
  bool haveDriver = false;
  if (void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL)) {
    haveDriver = true;
    dlclose(handle);
  }
  tessera_device *device = nullptr;
  tessera_status status = tesseraDeviceOpen(kind, 0, &device);
  if (haveDriver) {
    EXPECT_EQ(status, TESSERA_SUCCESS);
    tesseraDeviceClose(device);
    return;
  }
  EXPECT_EQ(status, TESSERA_ERROR_NO_DRIVER);
  EXPECT_EQ(device, nullptr);
  EXPECT_NE(std::string(tesseraGetLastError()).find(library),
            std::string::npos);
  EXPECT_STREQ(tesseraStatusName(status), "no driver");
}

TEST(RuntimeDevice, CudaWithoutDriverIsAClearError) {
  expectGpuDeviceOrClearError(TESSERA_DEVICE_CUDA, "libcuda.so.1");
}

TEST(RuntimeDevice, HipWithoutDriverIsAClearError) {
  expectGpuDeviceOrClearError(TESSERA_DEVICE_HIP, "libamdhip64.so");
}

TEST(RuntimeDevice, EmulatorIsAHostMemoryDevice) {
  // The emulator opens without a driver, keeps buffers on the host and
  // takes worker threads like the host.
  tessera_device *device = nullptr;
  ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_EMULATOR, 0, &device),
            TESSERA_SUCCESS);
  EXPECT_EQ(tesseraDeviceKind(device), TESSERA_DEVICE_EMULATOR);
  EXPECT_EQ(tesseraHostSetThreads(device, 2), TESSERA_SUCCESS);
  tessera_buffer *buffer = nullptr;
  EXPECT_EQ(tesseraBufferCreate(device, 64, &buffer), TESSERA_SUCCESS);
  tesseraBufferDestroy(buffer);
  tesseraDeviceClose(device);
}

TEST(RuntimeDevice, ParsesDeviceNames) {
  tessera_device_kind kind;
  EXPECT_EQ(tesseraParseDeviceKind("cuda", &kind), TESSERA_SUCCESS);
  EXPECT_EQ(kind, TESSERA_DEVICE_CUDA);
  EXPECT_EQ(tesseraParseDeviceKind("emu", &kind), TESSERA_SUCCESS);
  EXPECT_EQ(kind, TESSERA_DEVICE_EMULATOR);
  EXPECT_EQ(tesseraParseDeviceKind("tpu", &kind),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(std::string(tesseraGetLastError()).find("unknown device 'tpu'"),
            std::string::npos);
}
} // namespace
