//===- RuntimeBackendTest.cpp - Devices, pools, streams, image choice -----===//
//
// The runtime's backend interface through the C API on the devices every
// machine has (the host and the emulator), its thread pool, and the rules
// by which CUDA and HIP devices choose a bundle image.
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"
#include "TaskQueue.h"
#include "ThreadPool.h"

#include "tessera/runtime/tessera.hpp"

#include "gtest/gtest.h"

#include <atomic>
#include <cmath>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

using namespace tessera::runtime;

namespace {
TEST(RuntimeBackend, DevicesByOrdinalWithProperties) {
  int count = -1;
  ASSERT_EQ(tesseraDeviceCount(TESSERA_DEVICE_HOST, &count), TESSERA_SUCCESS);
  EXPECT_EQ(count, 1);
  tessera_device *device = nullptr;
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 1, &device),
            TESSERA_ERROR_NO_DEVICE);
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, -1, &device),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(device, nullptr);

  tessera::Device host = tessera::Device::open(TESSERA_DEVICE_HOST);
  ASSERT_TRUE(host);
  ASSERT_EQ(tesseraHostSetThreads(host.get(), 3), TESSERA_SUCCESS);
  tessera_device_properties props;
  ASSERT_EQ(tesseraDeviceGetProperties(host.get(), &props), TESSERA_SUCCESS);
  EXPECT_STREQ(props.arch, "host");
  EXPECT_EQ(props.multiprocessors, 3);
  EXPECT_GT(props.memory_bytes, 0u);
  EXPECT_EQ(props.shared_bytes_per_block, 0);
  EXPECT_GT(std::string(props.name).size(), 0u);
  EXPECT_EQ(tesseraEmulatorSetChip(host.get(), "sm_80"),
            TESSERA_ERROR_INVALID_ARGUMENT);

  tessera::Device emulator = tessera::Device::open(TESSERA_DEVICE_EMULATOR);
  ASSERT_EQ(tesseraDeviceGetProperties(emulator.get(), &props),
            TESSERA_SUCCESS);
  EXPECT_STREQ(props.arch, "emu");
  ASSERT_EQ(tesseraEmulatorSetChip(emulator.get(), "sm_80"), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraDeviceGetProperties(emulator.get(), &props),
            TESSERA_SUCCESS);
  EXPECT_STREQ(props.arch, "emu-sm_80");
  EXPECT_EQ(props.shared_bytes_per_block, 163 * 1024);
  EXPECT_NE(std::string(props.name).find("emulator of sm_80"),
            std::string::npos);
}

TEST(RuntimeBackend, GpuDeviceCountsNeedTheirDriver) {
  for (auto [kind, library] :
       {std::pair(TESSERA_DEVICE_CUDA, "libcuda.so.1"),
        std::pair(TESSERA_DEVICE_HIP, "libamdhip64.so")}) {
    int count = -1;
    tessera_status status = tesseraDeviceCount(kind, &count);
    if (status == TESSERA_SUCCESS) { // a machine with the driver
      EXPECT_GE(count, 0);
      continue;
    }
    EXPECT_EQ(status, TESSERA_ERROR_NO_DRIVER);
    EXPECT_EQ(count, 0);
    EXPECT_NE(std::string(tesseraGetLastError()).find(library),
              std::string::npos);
  }
}

/// The test bundle's sm_80 emulator image through kernel handles, with and
/// without a stream: y = factor * x over a ragged last block.
TEST(RuntimeBackend, EmulatorRunsKernelsThroughHandles) {
  tessera::Device device = tessera::Device::open(TESSERA_DEVICE_EMULATOR);
  ASSERT_EQ(tesseraEmulatorSetChip(device.get(), "sm_80"), TESSERA_SUCCESS);
  tessera::Module module = tessera::Module::load(device, TESSERA_TEST_BUNDLE);
  ASSERT_TRUE(module) << tessera::error();
  EXPECT_STREQ(tesseraModuleArch(module.get()), "emu-sm_80");
  tessera_kernel *scale = module.kernel("scale");
  ASSERT_NE(scale, nullptr);
  std::vector<float> x(1000), y(1000, NAN), z(1000, NAN);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i) - 500.0f;
  tessera_view vx = tessera::view(x.data(), {1000}),
               vy = tessera::view(y.data(), {1000}),
               vz = tessera::view(z.data(), {1000});
  float factor = 0.5f;
  void *now[] = {&vx, &vy, &factor};
  ASSERT_EQ(tesseraLaunch(scale, {16, 1, 1}, now, nullptr), TESSERA_SUCCESS)
      << tessera::error();
  tessera_stream *stream;
  ASSERT_EQ(tesseraStreamCreate(device.get(), &stream), TESSERA_SUCCESS);
  // Arguments are copied: changing them after the launch is queued does not
  // change the launch.
  void *later[] = {&vy, &vz, &factor};
  ASSERT_EQ(tesseraLaunch(scale, {16, 1, 1}, later, stream), TESSERA_SUCCESS);
  factor = 100.0f;
  vz.data = nullptr;
  ASSERT_EQ(tesseraStreamSynchronize(stream), TESSERA_SUCCESS);
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(y[i], 0.5f * x[i]) << i;
    ASSERT_EQ(z[i], 0.25f * x[i]) << i;
  }
  tesseraStreamDestroy(stream);
}

/// Streams run in order, apart from each other, and the device waits for
/// all of them; asynchronous copies keep their place in a stream.
TEST(RuntimeBackend, StreamsKeepOrderAndTheDeviceWaitsForAll) {
  tessera::Device device = tessera::Device::open(TESSERA_DEVICE_HOST);
  tessera::Module module = tessera::Module::load(device, TESSERA_TEST_BUNDLE);
  ASSERT_TRUE(module) << tessera::error();
  tessera_kernel *scale = module.kernel("scale");
  constexpr int kStreams = 4, kSize = 4096;
  struct Work {
    tessera_stream *stream;
    tessera_buffer *buffer;
    std::vector<float> in, out;
    tessera_view view;
    float factor;
  } work[kStreams];
  for (int s = 0; s < kStreams; ++s) {
    Work &w = work[s];
    ASSERT_EQ(tesseraStreamCreate(device.get(), &w.stream), TESSERA_SUCCESS);
    ASSERT_EQ(
        tesseraBufferCreate(device.get(), kSize * sizeof(float), &w.buffer),
        TESSERA_SUCCESS);
    w.in.resize(kSize);
    w.out.assign(kSize, NAN);
    for (int i = 0; i < kSize; ++i)
      w.in[i] = float(i % 97 + s);
    w.view = tessera::view(tesseraBufferData(w.buffer), {kSize});
    w.factor = float(s + 2);
  }
  for (Work &w : work) {
    void *args[] = {&w.view, &w.view, &w.factor};
    ASSERT_EQ(tesseraBufferWriteAsync(w.buffer, 0, w.in.data(),
                                      kSize * sizeof(float), w.stream),
              TESSERA_SUCCESS);
    for (int round = 0; round < 3; ++round)
      ASSERT_EQ(tesseraLaunch(scale, {kSize / 64, 1, 1}, args, w.stream),
                TESSERA_SUCCESS);
    ASSERT_EQ(tesseraBufferReadAsync(w.buffer, 0, w.out.data(),
                                     kSize * sizeof(float), w.stream),
              TESSERA_SUCCESS);
  }
  ASSERT_EQ(tesseraDeviceSynchronize(device.get()), TESSERA_SUCCESS);
  for (int s = 0; s < kStreams; ++s) {
    Work &w = work[s];
    float cube = w.factor * w.factor * w.factor;
    for (int i = 0; i < kSize; ++i)
      ASSERT_EQ(w.out[i], w.in[i] * cube) << "stream " << s << " at " << i;
    tesseraStreamDestroy(w.stream);
    tesseraBufferDestroy(w.buffer);
  }
}

TEST(RuntimeBackend, PoolRunsEveryItemOnceForConcurrentCallers) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.size(), 4);
  constexpr int kCallers = 4, kItems = 10007;
  std::vector<std::atomic<int>> hits(kCallers * kItems);
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int64_t chunk : {1, 7, 5000, 20000})
        pool.parallelFor(kItems, chunk, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            hits[c * kItems + i].fetch_add(1);
        });
    });
  for (std::thread &caller : callers)
    caller.join();
  for (int i = 0; i < kCallers * kItems; ++i)
    ASSERT_EQ(hits[i].load(), 4) << i;
  // One thread in all: the caller alone.
  ThreadPool single(1);
  int64_t sum = 0;
  single.parallelFor(100, 3, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      sum += i;
  });
  EXPECT_EQ(sum, 4950);
}

/// A host stream's queue: in order; after a failure, what was queued
/// behind it is dropped until synchronize() reports it; then it runs again.
TEST(RuntimeBackend, QueuesReportFailuresAndDropWhatFollows) {
  TaskQueue queue;
  std::vector<int> ran;
  std::mutex mutex;
  auto task = [&](int id, bool failing) {
    return [&, id, failing]() -> tessera_status {
      std::lock_guard<std::mutex> lock(mutex);
      ran.push_back(id);
      if (failing)
        return fail(TESSERA_ERROR_KERNEL, "task " + std::to_string(id));
      return TESSERA_SUCCESS;
    };
  };
  for (int id = 0; id < 100; ++id)
    queue.enqueue(task(id, false));
  EXPECT_EQ(queue.synchronize(), TESSERA_SUCCESS);
  ASSERT_EQ(ran.size(), 100u);
  for (int id = 0; id < 100; ++id)
    ASSERT_EQ(ran[id], id);
  ran.clear();
  queue.enqueue(task(1, false));
  queue.enqueue(task(2, true));
  for (int id = 3; id < 10; ++id)
    queue.enqueue(task(id, false));
  queue.enqueue(task(100, false), /*always=*/true); // an event's mark
  queue.enqueue(task(11, false));
  EXPECT_EQ(queue.synchronize(), TESSERA_ERROR_KERNEL);
  EXPECT_STREQ(tesseraGetLastError(), "task 2");
  EXPECT_EQ(ran, (std::vector<int>{1, 2, 100}));
  // Reported once; the queue runs again.
  EXPECT_EQ(queue.synchronize(), TESSERA_SUCCESS);
  queue.enqueue(task(10, false));
  EXPECT_EQ(queue.synchronize(), TESSERA_SUCCESS);
  EXPECT_EQ(ran.back(), 10);
}

TEST(RuntimeBackend, CudaDevicesChooseTheBestImage) {
  // Cubins: exact ("a" first), then older minors of the same major.
  EXPECT_GT(cudaImageMatch("sm_90", "sm_90a", kImageCubin),
            cudaImageMatch("sm_90", "sm_90", kImageCubin));
  EXPECT_GT(cudaImageMatch("sm_90", "sm_90", kImageCubin),
            cudaImageMatch("sm_90", "sm_90", kImagePtx));
  EXPECT_GT(cudaImageMatch("sm_86", "sm_80", kImageCubin),
            cudaImageMatch("sm_86", "sm_86", kImagePtx));
  EXPECT_EQ(cudaImageMatch("sm_90", "sm_80", kImageCubin), 0);
  EXPECT_EQ(cudaImageMatch("sm_80", "sm_86", kImageCubin), 0);
  EXPECT_EQ(cudaImageMatch("sm_100", "sm_90a", kImageCubin), 0);
  // PTX: compiled by the driver for later devices, except "a" PTX.
  EXPECT_GT(cudaImageMatch("sm_90", "sm_80", kImagePtx), 0);
  EXPECT_GT(cudaImageMatch("sm_90", "sm_90a", kImagePtx),
            cudaImageMatch("sm_90", "sm_80", kImagePtx));
  EXPECT_EQ(cudaImageMatch("sm_100", "sm_90a", kImagePtx), 0);
  EXPECT_EQ(cudaImageMatch("sm_80", "sm_90", kImagePtx), 0);
  // Not CUDA images at all.
  EXPECT_EQ(cudaImageMatch("sm_90", "host", kImageObject), 0);
  EXPECT_EQ(cudaImageMatch("sm_90", "emu-sm_90a", kImageObject), 0);
  EXPECT_EQ(cudaImageMatch("sm_90", "sm_90", kImageObject), 0);
}

TEST(RuntimeBackend, HipDevicesRunTheirOwnCodeObjects) {
  EXPECT_GT(hipImageMatch("gfx942", "gfx942", kImageObject), 0);
  EXPECT_EQ(hipImageMatch("gfx942", "gfx90a", kImageObject), 0);
  EXPECT_EQ(hipImageMatch("gfx942", "gfx942", kImagePtx), 0);
  EXPECT_EQ(hipImageMatch("sm_90", "sm_90", kImageObject), 0);
  // Target features must agree where both name them; agreeing is better.
  EXPECT_EQ(
      hipImageMatch("gfx942:sramecc+:xnack-", "gfx942:xnack+", kImageObject),
      0);
  EXPECT_GT(
      hipImageMatch("gfx942:sramecc+:xnack-", "gfx942:sramecc+", kImageObject),
      hipImageMatch("gfx942:sramecc+:xnack-", "gfx942", kImageObject));
}
} // namespace
