//===- RuntimeRobustnessTest.cpp - The C API under bad input ----*- C++ -*-===//
//
// Every C entry point checks its arguments and returns a status: null
// handles, ordinals out of range, sizes that overflow, metadata the
// launches would trust, objects released in any order, and C++ exceptions
// (memory, threads) turned into statuses. Bundles with hand-made metadata
// are written with the compiler's bundle writer around real images of
// TESSERA_TEST_BUNDLE.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "TaskQueue.h"
#include "tessera/Target/Bundle.h"
#include "tessera/runtime/kernel_abi.h"
#include "tessera/runtime/tessera.hpp"

#include "gtest/gtest.h"

#include <cstdint>
#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

using namespace tessera::runtime;

namespace {
std::string fileBytes(const char *path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

std::string lastError() { return tesseraGetLastError(); }

/// The scale kernel's metadata, as tessera-compile writes it.
tessera::KernelInfo scaleInfo() {
  tessera::KernelInfo info;
  info.name = "scale";
  info.threads = 64;
  info.args = {"view:f32:1", "view:f32:1", "scalar:f32"};
  return info;
}

/// A bundle of TESSERA_TEST_BUNDLE's image for `arch` ("host",
/// "emu-sm_80") with `kernel` as its metadata.
std::string rewrap(const std::string &arch, const tessera::KernelInfo &kernel) {
  static const std::string original = fileBytes(TESSERA_TEST_BUNDLE);
  std::vector<BundleImage> images;
  EXPECT_EQ(readBundle(original, images), TESSERA_SUCCESS);
  for (const BundleImage &image : images)
    if (image.arch == arch) {
      tessera::TargetImage target;
      target.arch = arch;
      target.triple = image.triple;
      target.image = std::string(image.image);
      return tessera::writeBundle({kernel}, {target});
    }
  ADD_FAILURE() << "no " << arch << " image";
  return "";
}

/// Reads a bundle whose one host image has `line` as its kernel metadata.
tessera_status readLine(const std::string &line,
                        std::vector<BundleImage> &images) {
  tessera::KernelInfo info;
  std::istringstream words(line);
  words >> info.name >> info.threads >> info.sharedBytes;
  for (std::string word; words >> word;)
    info.args.push_back(word);
  tessera::TargetImage target{"host", "x86_64-unknown-linux-gnu", "image"};
  static std::string bundle;
  bundle = tessera::writeBundle({info}, {target});
  images.clear();
  return readBundle(bundle, images);
}

TEST(RuntimeRobustness, ExceptionsBecomeStatuses) {
  EXPECT_EQ(guarded([]() -> tessera_status { throw std::bad_alloc(); }),
            TESSERA_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(lastError(), "out of resources: out of memory");
  EXPECT_EQ(
      guarded([]() -> tessera_status {
        throw std::system_error(
            std::make_error_code(std::errc::resource_unavailable_try_again),
            "thread");
      }),
      TESSERA_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(lastError().rfind("out of resources: thread", 0), 0u)
      << lastError();
  EXPECT_EQ(
      guarded([]() -> tessera_status { throw std::runtime_error("boom"); }),
      TESSERA_ERROR_INTERNAL);
  EXPECT_EQ(lastError(), "internal error: boom");
  EXPECT_EQ(guarded([]() -> tessera_status { throw 42; }),
            TESSERA_ERROR_INTERNAL);
  EXPECT_EQ(lastError(), "internal error: an exception of unknown type");
  EXPECT_STREQ(tesseraStatusName(TESSERA_ERROR_OUT_OF_RESOURCES),
               "out of resources");
  EXPECT_STREQ(tesseraStatusName(TESSERA_ERROR_INTERNAL), "internal error");
  // A queued task that throws fails its stream like one that returns a
  // failure.
  TaskQueue queue;
  queue.enqueue([]() -> tessera_status { throw std::bad_alloc(); });
  EXPECT_EQ(queue.synchronize(), TESSERA_ERROR_OUT_OF_RESOURCES);
  EXPECT_EQ(lastError(), "out of resources: out of memory");
  EXPECT_EQ(queue.synchronize(), TESSERA_SUCCESS);
}

TEST(RuntimeRobustness, NullArgumentsAreInvalid) {
  constexpr tessera_status kInvalid = TESSERA_ERROR_INVALID_ARGUMENT;
  tessera::Device host = tessera::Device::open(TESSERA_DEVICE_HOST);
  ASSERT_TRUE(host);
  tessera_device *device = host.get();
  tessera_device_kind kind;
  tessera_device_properties props;
  EXPECT_EQ(tesseraParseDeviceKind(nullptr, &kind), kInvalid);
  EXPECT_EQ(tesseraParseDeviceKind("host", nullptr), kInvalid);
  EXPECT_EQ(tesseraDeviceCount(TESSERA_DEVICE_HOST, nullptr), kInvalid);
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, nullptr), kInvalid);
  EXPECT_EQ(tesseraDeviceGetProperties(nullptr, &props), kInvalid);
  EXPECT_EQ(tesseraDeviceGetProperties(device, nullptr), kInvalid);
  EXPECT_EQ(tesseraDeviceSynchronize(nullptr), kInvalid);
  EXPECT_EQ(tesseraEmulatorSetChip(nullptr, "sm_80"), kInvalid);
  EXPECT_EQ(tesseraEmulatorSetChip(device, nullptr), kInvalid);
  EXPECT_EQ(tesseraHostSetThreads(nullptr, 2), kInvalid);
  EXPECT_EQ(tesseraHostGetThreads(nullptr), 0);

  tessera_module *module = nullptr;
  tessera_kernel *kernel = nullptr;
  tessera_kernel_info info;
  EXPECT_EQ(tesseraModuleLoad(nullptr, "x", 1, &module), kInvalid);
  EXPECT_EQ(tesseraModuleLoad(device, nullptr, 1, &module), kInvalid);
  EXPECT_EQ(tesseraModuleLoad(device, "x", 1, nullptr), kInvalid);
  EXPECT_EQ(tesseraModuleLoadFile(device, nullptr, &module), kInvalid);
  EXPECT_EQ(tesseraModuleGetKernel(nullptr, "scale", &kernel), kInvalid);
  EXPECT_EQ(tesseraModuleGetKernelAt(nullptr, 0, &kernel), kInvalid);
  EXPECT_EQ(tesseraKernelGetInfo(nullptr, &info), kInvalid);
  EXPECT_EQ(tesseraLaunch(nullptr, {1, 1, 1}, nullptr, nullptr), kInvalid);
  EXPECT_EQ(tesseraModuleKernelCount(nullptr), 0u);
  EXPECT_STREQ(tesseraModuleArch(nullptr), "");
  tessera::Module loaded = tessera::Module::load(host, TESSERA_TEST_BUNDLE);
  ASSERT_TRUE(loaded) << tessera::error();
  EXPECT_EQ(tesseraModuleGetKernel(loaded.get(), nullptr, &kernel), kInvalid);
  EXPECT_EQ(tesseraModuleGetKernel(loaded.get(), "scale", nullptr), kInvalid);
  EXPECT_EQ(tesseraModuleGetKernelAt(loaded.get(), 0, nullptr), kInvalid);
  EXPECT_EQ(tesseraModuleGetKernelAt(loaded.get(), 1, &kernel),
            TESSERA_ERROR_NOT_FOUND);
  ASSERT_EQ(tesseraModuleGetKernel(loaded.get(), "scale", &kernel),
            TESSERA_SUCCESS);
  EXPECT_EQ(tesseraKernelGetInfo(kernel, nullptr), kInvalid);
  EXPECT_EQ(tesseraLaunch(kernel, {1, 1, 1}, nullptr, nullptr), kInvalid);

  tessera_buffer *buffer = nullptr;
  tessera_stream *stream = nullptr;
  tessera_event *event = nullptr;
  char byte = 0;
  double ms;
  EXPECT_EQ(tesseraBufferCreate(nullptr, 8, &buffer), kInvalid);
  EXPECT_EQ(tesseraBufferCreate(device, 8, nullptr), kInvalid);
  EXPECT_EQ(tesseraBufferWrite(nullptr, 0, &byte, 1), kInvalid);
  EXPECT_EQ(tesseraBufferRead(nullptr, 0, &byte, 1), kInvalid);
  EXPECT_EQ(tesseraBufferData(nullptr), nullptr);
  EXPECT_EQ(tesseraBufferSize(nullptr), 0u);
  ASSERT_EQ(tesseraBufferCreate(device, 8, &buffer), TESSERA_SUCCESS);
  EXPECT_EQ(tesseraBufferWrite(buffer, 0, nullptr, 1), kInvalid);
  EXPECT_EQ(tesseraBufferRead(buffer, 0, nullptr, 1), kInvalid);
  EXPECT_EQ(tesseraBufferWriteAsync(buffer, 0, &byte, 1, nullptr), kInvalid);
  EXPECT_EQ(tesseraBufferReadAsync(buffer, 0, &byte, 1, nullptr), kInvalid);
  EXPECT_EQ(tesseraStreamCreate(nullptr, &stream), kInvalid);
  EXPECT_EQ(tesseraStreamCreate(device, nullptr), kInvalid);
  EXPECT_EQ(tesseraStreamSynchronize(nullptr), kInvalid);
  EXPECT_EQ(tesseraEventCreate(nullptr, &event), kInvalid);
  EXPECT_EQ(tesseraEventCreate(device, nullptr), kInvalid);
  EXPECT_EQ(tesseraEventRecord(nullptr, nullptr), kInvalid);
  EXPECT_EQ(tesseraEventElapsedMs(nullptr, nullptr, &ms), kInvalid);
  ASSERT_EQ(tesseraEventCreate(device, &event), TESSERA_SUCCESS);
  EXPECT_EQ(tesseraEventElapsedMs(event, event, nullptr), kInvalid);
  // Releasing null handles does nothing.
  tesseraBufferDestroy(nullptr);
  tesseraStreamDestroy(nullptr);
  tesseraEventDestroy(nullptr);
  tesseraModuleUnload(nullptr);
  tesseraDeviceClose(nullptr);
  tesseraEventDestroy(event);
  tesseraBufferDestroy(buffer);
}

TEST(RuntimeRobustness, OrdinalsKindsAndSizesOutOfRange) {
  tessera_device *device = nullptr;
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, -1, &device),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 1, &device),
            TESSERA_ERROR_NO_DEVICE);
  EXPECT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_EMULATOR, 1, &device),
            TESSERA_ERROR_NO_DEVICE);
  EXPECT_EQ(device, nullptr);
  auto unknown = static_cast<tessera_device_kind>(99);
  int count = -1;
  EXPECT_EQ(tesseraDeviceOpen(unknown, 0, &device),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(tesseraDeviceCount(unknown, &count),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 0);

  tessera::Device host = tessera::Device::open(TESSERA_DEVICE_HOST);
  ASSERT_TRUE(host);
  for (int threads : {0, -3, TESSERA_MAX_HOST_THREADS + 1}) {
    EXPECT_EQ(tesseraHostSetThreads(host.get(), threads),
              TESSERA_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(lastError().find("takes 1 to 1024 worker threads"),
              std::string::npos);
  }
  EXPECT_EQ(tesseraHostSetThreads(host.get(), 2), TESSERA_SUCCESS);
  EXPECT_EQ(tesseraHostGetThreads(host.get()), 2);
  // Sizes whose rounding would wrap around, and sizes no memory holds.
  tessera_buffer *buffer = nullptr;
  for (size_t bytes : {SIZE_MAX, SIZE_MAX - 10, SIZE_MAX / 2}) {
    EXPECT_EQ(tesseraBufferCreate(host.get(), bytes, &buffer),
              TESSERA_ERROR_OUT_OF_RESOURCES)
        << bytes;
    EXPECT_EQ(buffer, nullptr);
  }
}

TEST(RuntimeRobustness, MetadataLaunchesTrustIsBounded) {
  std::vector<BundleImage> images;
  ASSERT_EQ(readLine("scale 64 0 view:f32:1 view:f32:1 scalar:f32", images),
            TESSERA_SUCCESS);
  EXPECT_FALSE(images[0].kernels[0].hasCluster());
  // The sizes a view's type fixes.
  ASSERT_EQ(readLine("attn 128 0 view:bf16:3 view:f32:1 dims:0:?x?x64", images),
            TESSERA_SUCCESS);
  EXPECT_EQ(images[0].kernels[0].specs[0].fixed,
            (std::vector<int64_t>{-1, -1, 64}));
  EXPECT_TRUE(images[0].kernels[0].specs[1].fixed.empty());
  // Conditions on the arguments, evaluated on marshalled slots: i32 -1 is
  // sign-extended, d0.1 reads the view's size.
  ASSERT_EQ(readLine("k 64 0 view:f32:2 scalar:i32 dims:0:?x64 "
                     "assume:and(sgt(a1,c-2),eq(d0.1,c64)):a%20b",
                     images),
            TESSERA_SUCCESS);
  const KernelEntry &k = images[0].kernels[0];
  ASSERT_EQ(k.assumptions.size(), 1u);
  EXPECT_EQ(k.assumptions[0].message, "a b");
  std::vector<std::vector<int64_t>> slots = {{0, 0, 0, 5, 64, 64, 1},
                                             {0xffffffff}};
  EXPECT_EQ(evaluateAssumption(k.assumptions[0], k, slots), 1);
  slots[1][0] = 0xfffffffd; // -3
  EXPECT_EQ(evaluateAssumption(k.assumptions[0], k, slots), 0);
  // Deeper than 32 levels is refused.
  std::string deep = "k 64 0 scalar:index assume:";
  for (int i = 0; i < 40; ++i)
    deep += "add(c1,";
  deep += "a0";
  deep += std::string(40, ')') + ":x";
  EXPECT_EQ(readLine(deep, images), TESSERA_ERROR_INVALID_BUNDLE);
  // The arguments' names, one per argument the caller passes, "" where the
  // bundle names none.
  ASSERT_EQ(
      readLine("k 64 0 view:f32:2 scalar:i32 names:X,n dims:0:?x64", images),
      TESSERA_SUCCESS);
  EXPECT_EQ(images[0].kernels[0].argNames,
            (std::vector<std::string>{"X", "n"}));
  ASSERT_EQ(images[0].kernels[0].namePointers.size(), 2u);
  EXPECT_STREQ(images[0].kernels[0].namePointers[1], "n");
  ASSERT_EQ(readLine("k 64 0 view:f32:2 scalar:i32 names:,n", images),
            TESSERA_SUCCESS);
  EXPECT_EQ(images[0].kernels[0].argNames, (std::vector<std::string>{"", "n"}));
  ASSERT_EQ(readLine("k 64 0 view:f32:2 scalar:i32", images), TESSERA_SUCCESS);
  EXPECT_EQ(images[0].kernels[0].argNames, (std::vector<std::string>{"", ""}));
  ASSERT_EQ(readLine("k 64 0 view:f32:2 scalar:index scalar:index "
                     "scalar:index scalar:index persistent names:A",
                     images),
            TESSERA_SUCCESS);
  EXPECT_EQ(images[0].kernels[0].argNames, (std::vector<std::string>{"A"}));
  ASSERT_EQ(readLine("scale 1024 2147483647 view:f32:1 cluster:2x1x4", images),
            TESSERA_SUCCESS);
  const KernelEntry &entry = images[0].kernels[0];
  EXPECT_TRUE(entry.hasCluster());
  EXPECT_EQ(entry.cluster[0], 2u);
  EXPECT_EQ(entry.cluster[1], 1u);
  EXPECT_EQ(entry.cluster[2], 4u);
  for (const char *bad : {
           "scale 1025 0 view:f32:1",              // threads
           "scale 0 0 view:f32:1",                 // threads
           "scale 64 2147483648 view:f32:1",       // shared bytes
           "scale 64 -1 view:f32:1",               // shared bytes
           "scale 64 0 view:f32:1 cluster:0x1x1",  // empty dimension
           "scale 64 0 view:f32:1 cluster:4x4x2",  // 32 blocks
           "scale 64 0 view:f32:1 cluster:17x1x1", // 17 blocks
           "scale 64 0 view:f32:1 cluster:2x1",    // two dimensions
           "scale 64 0 view:f32:1 cluster:2x1x1x", // trailing text
           "scale 64 0 cluster:2x1x1 view:f32:1",  // not last
           "scale 64 0 view:f32:1 cluster:2x1x1 cluster:2x1x1",
           "scale 64 0 view:f32:2 dims:0:64",               // rank 1 of 2
           "scale 64 0 view:f32:2 dims:0:?x?",              // nothing fixed
           "scale 64 0 view:f32:2 dims:1:?x64",             // no argument 1
           "scale 64 0 scalar:f32 dims:0:64",               // a scalar
           "scale 64 0 view:f32:2 dims:0:?x-1",             // not a size
           "scale 64 0 view:f32:2 dims:0:?x64x",            // trailing text
           "scale 64 0 view:f32:2 dims:0:?x64 dims:0:?x64", // twice
           "scale 64 0 dims:0:64 view:f32:1", // before the argument
           "scale 64 0 view:f32:2 dims:0:?x64 view:f32:1", // argument after
           "scale 64 0 view:f32:1 scalar:index assume:pow(a1,c2):x",  // op
           "scale 64 0 view:f32:1 scalar:index assume:sgt(a2,c0):x",  // arg
           "scale 64 0 view:f32:1 scalar:index assume:sgt(a0,c0):x",  // view
           "scale 64 0 view:f32:1 scalar:f32 assume:sgt(a1,c0):x",    // float
           "scale 64 0 view:f32:1 assume:sgt(d0.1,c0):x",             // rank
           "scale 64 0 view:f32:1 assume:sgt(d0.0,c0)",               // message
           "scale 64 0 view:f32:1 assume:sgt(d0.0):x",                // arity
           "scale 64 0 view:f32:1 assume:sgt(d0.0,c0):a%2",           // escape
           "scale 64 0 view:f32:2 assume:sgt(d0.0,c0):x dims:0:?x64", // order
           "scale 64 0 view:f32:1 scalar:f32 names:X",  // one name of two
           "scale 64 0 view:f32:1 names:X,a,b",         // three of one
           "scale 64 0 view:f32:1 names:X scalar:f32",  // argument after
           "scale 64 0 view:f32:2 dims:0:?x64 names:X", // after the sizes
           "scale 64 0 view:f32:1 names:X names:X",     // twice
       }) {
    EXPECT_EQ(readLine(bad, images), TESSERA_ERROR_INVALID_BUNDLE) << bad;
    EXPECT_NE(lastError().find("malformed kernel metadata"), std::string::npos)
        << bad;
  }
}

TEST(RuntimeRobustness, ImagesAreCheckedAgainstTheirDigests) {
  std::vector<BundleImage> images;
  ASSERT_EQ(readLine("scale 64 0 view:f32:1", images), TESSERA_SUCCESS);
  tessera::KernelInfo info = scaleInfo();
  tessera::TargetImage target{"host", "x86_64-unknown-linux-gnu", "image"};
  const std::string bundle = tessera::writeBundle({info}, {target});
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string copy = bundle;
    size_t at = copy.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos)
      copy.replace(at, from.size(), to);
    return copy;
  };
  // The image's bytes, its arch and its metadata are covered: a change of
  // any (of the same length) is refused, naming the image.
  for (auto [from, to] : {std::pair("image", "imagE"),
                          std::pair("x86_64-unknown", "x86_64-unknowN"),
                          std::pair("view:f32:1 view:f32:1 scalar:f32",
                                    "view:f32:1 view:f32:2 scalar:f32")}) {
    std::string changed = replaced(from, to);
    EXPECT_EQ(readBundle(changed, images), TESSERA_ERROR_INVALID_BUNDLE) << to;
    EXPECT_NE(lastError().find("the host image does not match its digest"),
              std::string::npos)
        << lastError();
  }
  // A bundle without a digest (an unknown key in its place) is refused.
  std::string undigested =
      replaced(TESSERA_BUNDLE_DIGEST_KEY, "tessera.sha257");
  EXPECT_EQ(readBundle(undigested, images), TESSERA_ERROR_INVALID_BUNDLE);
  EXPECT_NE(lastError().find("carries no digest"), std::string::npos)
      << lastError();
}

/// An emulator image whose metadata declares a cluster: the grid must be a
/// whole number of clusters, and the kernel's info says its shape.
TEST(RuntimeRobustness, ClusteredKernelsNeedWholeClusters) {
  tessera::KernelInfo info = scaleInfo();
  info.cluster = "cluster:2x1x1";
  std::string bundle = rewrap("emu-sm_80", info);
  tessera::Device emulator = tessera::Device::open(TESSERA_DEVICE_EMULATOR);
  ASSERT_TRUE(emulator);
  tessera_module *module = nullptr;
  ASSERT_EQ(
      tesseraModuleLoad(emulator.get(), bundle.data(), bundle.size(), &module),
      TESSERA_SUCCESS)
      << lastError();
  tessera_kernel *kernel = nullptr;
  ASSERT_EQ(tesseraModuleGetKernel(module, "scale", &kernel), TESSERA_SUCCESS);
  tessera_kernel_info got;
  ASSERT_EQ(tesseraKernelGetInfo(kernel, &got), TESSERA_SUCCESS);
  EXPECT_EQ(got.cluster[0], 2);
  EXPECT_EQ(got.cluster[1], 1);
  EXPECT_EQ(got.cluster[2], 1);
  std::vector<float> x(256, 1.0f), y(256, 0.0f);
  tessera_view vx = tessera::view(x.data(), {256});
  tessera_view vy = tessera::view(y.data(), {256});
  float factor = 2.0f;
  void *args[] = {&vx, &vy, &factor};
  EXPECT_EQ(tesseraLaunch(kernel, {3, 1, 1}, args, nullptr),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(), "the grid (3, 1, 1) of scale is not a whole number "
                         "of its clusters (2, 1, 1)");
  EXPECT_EQ(y[0], 0.0f);
  ASSERT_EQ(tesseraLaunch(kernel, {4, 1, 1}, args, nullptr), TESSERA_SUCCESS)
      << lastError();
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[255], 2.0f);
  tesseraModuleUnload(module);
}

/// The emulator refuses an image whose kernel asks for more shared memory
/// than the emulated chip gives a block, as a GPU's driver would.
TEST(RuntimeRobustness, EmulatedSharedMemoryIsTheChipsLimit) {
  tessera::KernelInfo info = scaleInfo();
  info.sharedBytes = 163 * 1024 + 1;
  std::string bundle = rewrap("emu-sm_80", info);
  tessera::Device emulator = tessera::Device::open(TESSERA_DEVICE_EMULATOR);
  ASSERT_TRUE(emulator);
  tessera_module *module = nullptr;
  EXPECT_EQ(
      tesseraModuleLoad(emulator.get(), bundle.data(), bundle.size(), &module),
      TESSERA_ERROR_INVALID_BUNDLE);
  EXPECT_EQ(lastError(), "kernel scale of the emu-sm_80 image needs 166913 "
                         "bytes of shared memory; a block has at most 166912");
  EXPECT_EQ(module, nullptr);
}

TEST(RuntimeRobustness, ViewsWithElementsNeedData) {
  tessera::Device host = tessera::Device::open(TESSERA_DEVICE_HOST);
  tessera::Module module = tessera::Module::load(host, TESSERA_TEST_BUNDLE);
  ASSERT_TRUE(module) << tessera::error();
  std::vector<float> y(64);
  tessera_view vx = tessera::view(nullptr, {64});
  tessera_view vy = tessera::view(y.data(), {64});
  float factor = 1.0f;
  void *args[] = {&vx, &vy, &factor};
  EXPECT_EQ(tesseraLaunch(module.kernel("scale"), {1, 1, 1}, args, nullptr),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(lastError(),
            "argument 0 (X) of scale has elements but a null data pointer");
  // Empty views may be null.
  vx = tessera::view(nullptr, {0});
  vy = tessera::view(nullptr, {0});
  EXPECT_EQ(tesseraLaunch(module.kernel("scale"), {1, 1, 1}, args, nullptr),
            TESSERA_SUCCESS)
      << lastError();
}

/// A device closed before its modules, buffers, streams and events lives
/// until the last of them is released; an event may be released before its
/// stream reaches it, and a buffer while queued copies still use it.
TEST(RuntimeRobustness, ObjectsMayBeReleasedInAnyOrder) {
  tessera_device *device = nullptr;
  ASSERT_EQ(tesseraDeviceOpen(TESSERA_DEVICE_HOST, 0, &device),
            TESSERA_SUCCESS);
  std::string bundle = fileBytes(TESSERA_TEST_BUNDLE);
  tessera_module *module = nullptr;
  tessera_buffer *x = nullptr, *y = nullptr, *big = nullptr;
  tessera_stream *stream = nullptr;
  tessera_event *event = nullptr;
  ASSERT_EQ(tesseraModuleLoad(device, bundle.data(), bundle.size(), &module),
            TESSERA_SUCCESS);
  constexpr size_t kBig = size_t(64) << 20;
  ASSERT_EQ(tesseraBufferCreate(device, 256 * 4, &x), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferCreate(device, 256 * 4, &y), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferCreate(device, kBig, &big), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraStreamCreate(device, &stream), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraEventCreate(device, &event), TESSERA_SUCCESS);
  tesseraDeviceClose(device);

  std::vector<float> in(256, 3.0f), out(256, 0.0f);
  std::vector<char> filler(kBig, 1);
  ASSERT_EQ(tesseraBufferWriteAsync(big, 0, filler.data(), kBig, stream),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraEventRecord(event, stream), TESSERA_SUCCESS);
  tesseraEventDestroy(event); // its stream has yet to reach it
  tesseraBufferDestroy(big);  // waits for the copy into it
  ASSERT_EQ(tesseraBufferWriteAsync(x, 0, in.data(), 256 * 4, stream),
            TESSERA_SUCCESS);
  tessera_view vx = tessera::view(tesseraBufferData(x), {256});
  tessera_view vy = tessera::view(tesseraBufferData(y), {256});
  float factor = -1.0f;
  void *args[] = {&vx, &vy, &factor};
  tessera_kernel *kernel = nullptr;
  ASSERT_EQ(tesseraModuleGetKernel(module, "scale", &kernel), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraLaunch(kernel, {4, 1, 1}, args, stream), TESSERA_SUCCESS);
  ASSERT_EQ(tesseraBufferReadAsync(y, 0, out.data(), 256 * 4, stream),
            TESSERA_SUCCESS);
  ASSERT_EQ(tesseraStreamSynchronize(stream), TESSERA_SUCCESS);
  EXPECT_EQ(out[0], -3.0f);
  EXPECT_EQ(out[255], -3.0f);
  tesseraStreamDestroy(stream);
  tesseraModuleUnload(module);
  tesseraBufferDestroy(x);
  tesseraBufferDestroy(y); // the device goes with the last of them
}
} // namespace
