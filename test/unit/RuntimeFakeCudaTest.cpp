//===- RuntimeFakeCudaTest.cpp - The CUDA backend on the fake driver
//-------===//
//
// Streams, asynchronous copies, events, kernel handles and properties of a
// CUDA device, on test/fakecuda's stand-in libcuda.so.1 (ctest runs these
// with it first in LD_LIBRARY_PATH; elsewhere they are skipped).
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/shipped_kernels.hpp"
#include "tessera/runtime/tessera.hpp"

#include "gtest/gtest.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
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
/// A stream of the caller's (as PyTorch's current stream is) wrapped: the
/// launch queues on it, and destroying the wrapper leaves it to its owner.
TEST_F(RuntimeFakeCuda, WrappedStreamsStayTheCallers) {
  void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  ASSERT_NE(driver, nullptr);
  using Create = int (*)(void **, unsigned);
  using Destroy = int (*)(void *);
  auto create = reinterpret_cast<Create>(dlsym(driver, "cuStreamCreate"));
  auto destroy = reinterpret_cast<Destroy>(dlsym(driver, "cuStreamDestroy_v2"));
  ASSERT_TRUE(create && destroy);
  void *native = nullptr;
  ASSERT_EQ(create(&native, 0), 0);

  tessera::Module module = tessera::Module::load(device, TESSERA_TEST_BUNDLE);
  ASSERT_TRUE(module) << tessera::error();
  constexpr int64_t kSize = 100;
  std::vector<float> x(kSize), y(kSize, NAN);
  for (int64_t i = 0; i < kSize; ++i)
    x[i] = float(i);
  tessera_buffer *bx, *by;
  ASSERT_EQ(tesseraBufferCreate(device.get(), kSize * 4, &bx), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferCreate(device.get(), kSize * 4, &by), TESSERA_SUCCESS);
  tessera_stream *wrapped = nullptr;
  ASSERT_EQ(tesseraStreamWrap(device.get(), native, &wrapped), TESSERA_SUCCESS)
      << tessera::error();
  tessera_view vx = tessera::view(tesseraBufferData(bx), {kSize});
  tessera_view vy = tessera::view(tesseraBufferData(by), {kSize});
  float factor = 4.0f;
  void *args[] = {&vx, &vy, &factor};
  ASSERT_EQ(tesseraBufferWriteAsync(bx, 0, x.data(), kSize * 4, wrapped),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraLaunch(module.kernel("scale"), {2, 1, 1}, args, wrapped),
            TESSERA_SUCCESS)
      << tessera::error();
  ASSERT_EQ(tesseraBufferReadAsync(by, 0, y.data(), kSize * 4, wrapped),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraStreamSynchronize(wrapped), TESSERA_SUCCESS);
  for (int64_t i = 0; i < kSize; ++i)
    ASSERT_EQ(y[i], 4.0f * x[i]) << i;
  tesseraStreamDestroy(wrapped);
  // The driver's stream is still the caller's to destroy (the fake
  // driver's double destroy would be a double free).
  EXPECT_EQ(destroy(native), 0);
  tesseraBufferDestroy(bx);
  tesseraBufferDestroy(by);

  // Host and emulator devices have no driver streams.
  tessera::Device host = tessera::Device::open(TESSERA_DEVICE_HOST);
  EXPECT_EQ(tesseraStreamWrap(host.get(), native, &wrapped),
            TESSERA_ERROR_UNSUPPORTED);
  EXPECT_EQ(wrapped, nullptr);
}

TEST_F(RuntimeFakeCuda, MoeAlignsOnTheHostAndLaunchesOnTheDevice) {
  // tessera::moe on a GPU: the top-k ids are read back from device memory,
  // aligned on the host, the output rows are zeroed and the alignment and
  // H placed in device memory, then the gate/up kernel is launched over
  // one program per 64-row block. (The fake driver runs no MoE kernel: the
  // launch reaches it and fails as an unknown kernel.)
  tessera::KernelLibrary library;
  // Every shipped bundle has sm_90a images, which an sm_90 device takes.
  ASSERT_EQ(tessera::addShippedKernels(library, device), 7) << tessera::error();
  const int64_t tokens = 3, experts = 4, topk = 2, hidden = 64, inter = 64;
  std::vector<int32_t> ids = {0, 1, 1, 3, 0, 3}; // expert 2 gets nothing
  std::vector<float> weights(tokens * topk, 0.5f), nans(tokens * hidden, NAN);
  auto buffer = [&](size_t bytes, const void *init) {
    tessera_buffer *b = nullptr;
    EXPECT_EQ(tesseraBufferCreate(device.get(), bytes, &b), TESSERA_SUCCESS);
    if (init)
      EXPECT_EQ(tesseraBufferWrite(b, 0, init, bytes), TESSERA_SUCCESS);
    return b;
  };
  tessera_buffer *x = buffer(tokens * hidden * 2, nullptr);
  tessera_buffer *w13 = buffer(experts * 2 * inter * hidden * 2, nullptr);
  tessera_buffer *w2 = buffer(experts * hidden * inter * 2, nullptr);
  tessera_buffer *idb = buffer(ids.size() * 4, ids.data());
  tessera_buffer *wb = buffer(weights.size() * 4, weights.data());
  tessera_buffer *out = buffer(nans.size() * 4, nans.data());
  std::string log = ::testing::TempDir() + "fake-cuda-moe.log";
  std::remove(log.c_str());
  setenv("FAKE_CUDA_LOG", log.c_str(), 1);
  tessera_status status = tessera::moe(
      library, device,
      tessera::view(tesseraBufferData(x), {tokens, hidden}, TESSERA_DTYPE_BF16),
      tessera::view(tesseraBufferData(w13), {experts, 2 * inter, hidden},
                    TESSERA_DTYPE_BF16),
      tessera::view(tesseraBufferData(w2), {experts, hidden, inter},
                    TESSERA_DTYPE_BF16),
      tessera::view(tesseraBufferData(idb), {tokens, topk}, TESSERA_DTYPE_I32),
      tessera::view(tesseraBufferData(wb), {tokens, topk}, TESSERA_DTYPE_F32),
      tessera::view(tesseraBufferData(out), {tokens, hidden},
                    TESSERA_DTYPE_F32));
  unsetenv("FAKE_CUDA_LOG");
  EXPECT_EQ(status, TESSERA_ERROR_KERNEL);
  EXPECT_NE(tessera::error().find("moe_gate_up_swiglu"), std::string::npos)
      << tessera::error();
  // Experts 0, 1 and 3 each own one padded block of 64 rows.
  std::ifstream file(log);
  std::stringstream text;
  text << file.rdbuf();
  EXPECT_NE(text.str().find("launch moe_gate_up_swiglu grid 3 1 1 block 128"),
            std::string::npos)
      << text.str();
  std::vector<float> zeroed(nans.size(), NAN);
  ASSERT_EQ(tesseraBufferRead(out, 0, zeroed.data(), zeroed.size() * 4),
            TESSERA_SUCCESS);
  for (float v : zeroed)
    ASSERT_EQ(v, 0.0f);
  for (tessera_buffer *b : {x, w13, w2, idb, wb, out})
    tesseraBufferDestroy(b);
}

} // namespace
