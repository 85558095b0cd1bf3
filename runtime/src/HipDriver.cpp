//===- HipDriver.cpp - The HIP module API through dlopen --------*- C++ -*-===//
//
// libamdhip64 is loaded on first use, so that nothing links against ROCm.
// Types and values are hip_runtime_api.h's (the same in ROCm 5, 6 and 7).
// HIP has no opt-in for dynamic shared memory (LDS): a launch may use up to
// the device's MaxSharedMemoryPerBlock.
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"

#include <dlfcn.h>
#include <mutex>
#include <vector>

using namespace tessera::runtime;

namespace {
using hipError = int;
using Handle = void *; // hipModule_t, hipFunction_t, hipStream_t, hipEvent_t

constexpr int kNoDevice = 100;               // hipErrorNoDevice
constexpr int kMultiprocessorCount = 63;     // hipDeviceAttribute...
constexpr int kMaxSharedMemoryPerBlock = 74; // hipDeviceAttribute...
constexpr unsigned kStreamNonBlocking = 1;   // hipStreamNonBlocking
// gcnArchName ("gfx942:sramecc+:xnack-") in hipDeviceProp_t: only the struct
// has it. ROCm 6 and 7 export hipGetDevicePropertiesR0600 (1472 bytes, the
// name at 1160); ROCm 5 only hipGetDeviceProperties (792 bytes, at 396).
constexpr size_t kArchOffsetR0600 = 1160;
constexpr size_t kArchOffsetR0000 = 396;
constexpr size_t kPropertiesBuffer = 4096;

struct Driver {
  hipError (*hipInit)(unsigned);
  hipError (*hipGetDeviceCount)(int *);
  hipError (*hipSetDevice)(int);
  hipError (*hipDeviceGetName)(char *, int, int);
  hipError (*hipDeviceTotalMem)(size_t *, int);
  hipError (*hipDeviceGetAttribute)(int *, int, int);
  hipError (*hipGetDeviceProperties)(void *, int);
  size_t archOffset;
  hipError (*hipDeviceSynchronize)();
  hipError (*hipModuleLoadData)(Handle *, const void *);
  hipError (*hipModuleUnload)(Handle);
  hipError (*hipModuleGetFunction)(Handle *, Handle, const char *);
  hipError (*hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)(int *, Handle,
                                                                 int, size_t);
  hipError (*hipModuleLaunchKernel)(Handle, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, unsigned, unsigned,
                                    Handle, void **, void **);
  hipError (*hipMalloc)(void **, size_t);
  hipError (*hipFree)(void *);
  hipError (*hipMemcpyHtoD)(void *, const void *, size_t);
  hipError (*hipMemcpyDtoH)(void *, const void *, size_t);
  hipError (*hipMemcpyHtoDAsync)(void *, const void *, size_t, Handle);
  hipError (*hipMemcpyDtoHAsync)(void *, const void *, size_t, Handle);
  hipError (*hipStreamCreateWithFlags)(Handle *, unsigned);
  hipError (*hipStreamSynchronize)(Handle);
  hipError (*hipStreamDestroy)(Handle);
  hipError (*hipEventCreate)(Handle *);
  hipError (*hipEventRecord)(Handle, Handle);
  hipError (*hipEventSynchronize)(Handle);
  hipError (*hipEventElapsedTime)(float *, Handle, Handle);
  hipError (*hipEventDestroy)(Handle);
  const char *(*hipGetErrorName)(hipError);
  const char *(*hipGetErrorString)(hipError);
};

Driver driver;
GpuApi api;

std::string describe(int result) {
  const char *name = driver.hipGetErrorName(result);
  const char *text = driver.hipGetErrorString(result);
  return std::string(name ? name : "HIP error") + " (" +
         std::to_string(result) + "): " + (text ? text : "unknown");
}

int properties(int ordinal, tessera_device_properties &props) {
  int sms = 0, shared = 0;
  size_t memory = 0;
  char name[256] = {};
  if (hipError result =
          driver.hipDeviceGetAttribute(&sms, kMultiprocessorCount, ordinal))
    return result;
  if (hipError result = driver.hipDeviceGetAttribute(
          &shared, kMaxSharedMemoryPerBlock, ordinal))
    return result;
  if (hipError result = driver.hipDeviceGetName(name, sizeof(name), ordinal))
    return result;
  if (hipError result = driver.hipDeviceTotalMem(&memory, ordinal))
    return result;
  std::vector<char> raw(kPropertiesBuffer, '\0');
  if (hipError result = driver.hipGetDeviceProperties(raw.data(), ordinal))
    return result;
  std::string arch(raw.data() + driver.archOffset);
  copyName(props.name, sizeof(props.name), name);
  // The target ID with its features: gfx942:sramecc+:xnack-.
  copyName(props.arch, sizeof(props.arch), arch);
  props.memory_bytes = memory;
  props.multiprocessors = sms;
  props.shared_bytes_per_block = shared;
  return 0;
}

int launch(void *function, tessera_grid grid, unsigned threads,
           unsigned sharedBytes, void *stream, void **params) {
  return driver.hipModuleLaunchKernel(function, static_cast<unsigned>(grid.x),
                                      static_cast<unsigned>(grid.y),
                                      static_cast<unsigned>(grid.z), threads, 1,
                                      1, sharedBytes, stream, params, nullptr);
}

/// Loads the driver; false (with the reason recorded) if it cannot.
bool load() {
  void *handle = nullptr;
  std::string errors;
  for (const char *library : {"libamdhip64.so", "libamdhip64.so.7",
                              "libamdhip64.so.6", "libamdhip64.so.5"}) {
    handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      api.library = library;
      break;
    }
    if (errors.empty())
      errors = dlerror();
  }
  if (!handle) {
    fail(TESSERA_ERROR_NO_DRIVER,
         "cannot load libamdhip64.so (nor .so.7, .so.6, .so.5): " + errors +
             "; is ROCm installed?");
    return false;
  }
  SymbolBinder bind{handle, ""};
  bind(driver.hipInit, "hipInit");
  bind(driver.hipGetDeviceCount, "hipGetDeviceCount");
  bind(driver.hipSetDevice, "hipSetDevice");
  bind(driver.hipDeviceGetName, "hipDeviceGetName");
  bind(driver.hipDeviceTotalMem, "hipDeviceTotalMem");
  bind(driver.hipDeviceGetAttribute, "hipDeviceGetAttribute");
  bind(driver.hipDeviceSynchronize, "hipDeviceSynchronize");
  bind(driver.hipModuleLoadData, "hipModuleLoadData");
  bind(driver.hipModuleUnload, "hipModuleUnload");
  bind(driver.hipModuleGetFunction, "hipModuleGetFunction");
  bind(driver.hipModuleLaunchKernel, "hipModuleLaunchKernel");
  bind(driver.hipMalloc, "hipMalloc");
  bind(driver.hipFree, "hipFree");
  bind(driver.hipMemcpyHtoD, "hipMemcpyHtoD");
  bind(driver.hipMemcpyDtoH, "hipMemcpyDtoH");
  bind(driver.hipMemcpyHtoDAsync, "hipMemcpyHtoDAsync");
  bind(driver.hipMemcpyDtoHAsync, "hipMemcpyDtoHAsync");
  bind(driver.hipStreamCreateWithFlags, "hipStreamCreateWithFlags");
  bind(driver.hipStreamSynchronize, "hipStreamSynchronize");
  bind(driver.hipStreamDestroy, "hipStreamDestroy");
  bind(driver.hipEventCreate, "hipEventCreate");
  bind(driver.hipEventRecord, "hipEventRecord");
  bind(driver.hipEventSynchronize, "hipEventSynchronize");
  bind(driver.hipEventElapsedTime, "hipEventElapsedTime");
  bind(driver.hipEventDestroy, "hipEventDestroy");
  bind(driver.hipGetErrorName, "hipGetErrorName");
  bind(driver.hipGetErrorString, "hipGetErrorString");
  // Absent from older runtimes: one block per CU is assumed there.
  driver.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor = reinterpret_cast<
      decltype(driver.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)>(
      dlsym(handle, "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor"));
  if (void *r0600 = dlsym(handle, "hipGetDevicePropertiesR0600")) {
    driver.hipGetDeviceProperties =
        reinterpret_cast<decltype(driver.hipGetDeviceProperties)>(r0600);
    driver.archOffset = kArchOffsetR0600;
  } else {
    bind(driver.hipGetDeviceProperties, "hipGetDeviceProperties");
    driver.archOffset = kArchOffsetR0000;
  }
  if (!bind.missing.empty()) {
    fail(TESSERA_ERROR_NO_DRIVER, std::string(api.library) + " lacks " +
                                      bind.missing + "; ROCm is too old");
    return false;
  }
  if (hipError result = driver.hipInit(0)) {
    fail(result == kNoDevice ? TESSERA_ERROR_NO_DEVICE
                             : TESSERA_ERROR_NO_DRIVER,
         "hipInit failed: " + describe(result));
    return false;
  }
  api.kind = TESSERA_DEVICE_HIP;
  api.name = "HIP";
  api.deviceCount = driver.hipGetDeviceCount;
  api.open = [](int ordinal, void **context) {
    *context = nullptr;
    return driver.hipSetDevice(ordinal);
  };
  api.close = [](int, void *) {};
  api.makeCurrent = [](int ordinal, void *) {
    return driver.hipSetDevice(ordinal);
  };
  api.properties = properties;
  api.matches = hipImageMatch;
  api.moduleLoad = driver.hipModuleLoadData;
  api.moduleUnload = driver.hipModuleUnload;
  api.getFunction = driver.hipModuleGetFunction;
  api.setDynamicShared = [](void *, int) { return 0; };
  api.occupancy = nullptr;
  if (driver.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor)
    api.occupancy = [](int *blocks, void *function, unsigned threads,
                       unsigned sharedBytes) {
      return driver.hipModuleOccupancyMaxActiveBlocksPerMultiprocessor(
          blocks, function, static_cast<int>(threads), sharedBytes);
    };
  api.launch = launch;
  api.launchClusters = nullptr; // AMD GPUs have no thread-block clusters
  api.allocate = driver.hipMalloc;
  api.release = driver.hipFree;
  api.copyToDevice = [](void *device, const void *host, size_t bytes,
                        void *stream) {
    return stream ? driver.hipMemcpyHtoDAsync(device, host, bytes, stream)
                  : driver.hipMemcpyHtoD(device, host, bytes);
  };
  api.copyToHost = [](void *host, const void *device, size_t bytes,
                      void *stream) {
    return stream ? driver.hipMemcpyDtoHAsync(host, device, bytes, stream)
                  : driver.hipMemcpyDtoH(host, device, bytes);
  };
  api.streamCreate = [](void **stream) {
    return driver.hipStreamCreateWithFlags(stream, kStreamNonBlocking);
  };
  api.streamSynchronize = [](void *stream) {
    return stream ? driver.hipStreamSynchronize(stream)
                  : driver.hipDeviceSynchronize();
  };
  api.streamDestroy = driver.hipStreamDestroy;
  api.eventCreate = driver.hipEventCreate;
  api.eventRecord = driver.hipEventRecord;
  api.eventSynchronize = driver.hipEventSynchronize;
  api.eventElapsedMs = driver.hipEventElapsedTime;
  api.eventDestroy = driver.hipEventDestroy;
  api.encodeTensorMap = nullptr; // no TMA on AMD
  api.describe = describe;
  api.noDevice = kNoDevice;
  return true;
}
} // namespace

int tessera::runtime::hipImageMatch(std::string_view device,
                                    std::string_view image, uint16_t kind) {
  if (kind != kImageObject)
    return 0;
  auto base = [](std::string_view arch) {
    return arch.substr(0, arch.find(':'));
  };
  if (base(device).substr(0, 3) != "gfx" || base(device) != base(image))
    return 0;
  // Features both name ("sramecc+" against "sramecc-") must agree.
  auto features = [](std::string_view arch) {
    std::vector<std::string_view> list;
    size_t at = arch.find(':');
    while (at != std::string_view::npos) {
      size_t next = arch.find(':', at + 1);
      list.push_back(arch.substr(at + 1, next - at - 1));
      at = next;
    }
    return list;
  };
  int score = 1;
  for (std::string_view want : features(image)) {
    for (std::string_view have : features(device))
      if (!want.empty() && !have.empty() &&
          want.substr(0, want.size() - 1) == have.substr(0, have.size() - 1)) {
        if (want.back() != have.back())
          return 0;
        ++score;
      }
  }
  return score;
}

const GpuApi *tessera::runtime::loadHipDriver() {
  return load() ? &api : nullptr;
}
