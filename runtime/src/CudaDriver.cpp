//===- CudaDriver.cpp - The CUDA driver API through dlopen ------*- C++ -*-===//
//
// libcuda.so.1 is loaded on first use, so that nothing links against CUDA.
// Types and values are the driver API's (cuda.h of CUDA 12 and 13); the
// symbols are the versioned ones its macros select.
//
//===----------------------------------------------------------------------===//

#include "GpuApi.h"

#include <dlfcn.h>
#include <mutex>

using namespace tessera::runtime;

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Handle = void *; // CUcontext, CUmodule, CUfunction, CUstream, CUevent

constexpr int kNoDevice = 100;                     // CUDA_ERROR_NO_DEVICE
constexpr int kMultiprocessorCount = 16;           // CU_DEVICE_ATTRIBUTE_...
constexpr int kCapabilityMajor = 75;               // CU_DEVICE_ATTRIBUTE_...
constexpr int kCapabilityMinor = 76;               // CU_DEVICE_ATTRIBUTE_...
constexpr int kSharedPerBlockOptin = 97;           // CU_DEVICE_ATTRIBUTE_...
constexpr int kMaxDynamicSharedBytes = 8;          // CU_FUNC_ATTRIBUTE_...
constexpr unsigned kStreamNonBlocking = 1;         // CU_STREAM_NON_BLOCKING
constexpr int kNonPortableClusterSizeAllowed = 14; // CU_FUNC_ATTRIBUTE_...
constexpr int kClusterDimension = 4;               // CU_LAUNCH_ATTRIBUTE_...
/// The most blocks of a cluster every sm_90 part runs without the
/// non-portable opt-in.
constexpr unsigned kPortableClusterBlocks = 8;

/// CUlaunchAttribute: an id, then a 64-byte value union (8-byte aligned).
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    struct {
      unsigned x, y, z;
    } clusterDim;
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72);

/// CUlaunchConfig.
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(Handle *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(Handle);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(Handle *, const void *);
  CUresult (*cuModuleUnload)(Handle);
  CUresult (*cuModuleGetFunction)(Handle *, Handle, const char *);
  CUresult (*cuFuncSetAttribute)(Handle, int, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, Handle, int,
                                                          size_t);
  CUresult (*cuLaunchKernel)(Handle, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, Handle, void **,
                             void **);
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, Handle, void **, void **);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, Handle);
  CUresult (*cuMemcpyDtoHAsync)(void *, CUdeviceptr, size_t, Handle);
  CUresult (*cuStreamCreate)(Handle *, unsigned);
  CUresult (*cuStreamSynchronize)(Handle);
  CUresult (*cuStreamDestroy)(Handle);
  CUresult (*cuEventCreate)(Handle *, unsigned);
  CUresult (*cuEventRecord)(Handle, Handle);
  CUresult (*cuEventSynchronize)(Handle);
  CUresult (*cuEventElapsedTime)(float *, Handle, Handle);
  CUresult (*cuEventDestroy)(Handle);
  CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const unsigned *, const unsigned *, int,
                                     int, int, int);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
};

Driver driver;

CUdeviceptr address(const void *pointer) {
  return reinterpret_cast<CUdeviceptr>(pointer);
}

std::string describe(int result) {
  const char *name = nullptr, *text = nullptr;
  if (driver.cuGetErrorName(result, &name) || !name)
    name = "CUDA error";
  if (driver.cuGetErrorString(result, &text) || !text)
    text = "unknown";
  return std::string(name) + " (" + std::to_string(result) + "): " + text;
}

int open(int ordinal, void **context) {
  CUdevice device;
  if (CUresult result = driver.cuDeviceGet(&device, ordinal))
    return result;
  return driver.cuDevicePrimaryCtxRetain(context, device);
}

void close(int ordinal, void *) {
  CUdevice device;
  if (driver.cuDeviceGet(&device, ordinal) == 0)
    driver.cuDevicePrimaryCtxRelease(device);
}

int makeCurrent(int, void *context) { return driver.cuCtxSetCurrent(context); }

int properties(int ordinal, tessera_device_properties &props) {
  CUdevice device;
  int major = 0, minor = 0, sms = 0, shared = 0;
  size_t memory = 0;
  char name[256] = {};
  if (CUresult result = driver.cuDeviceGet(&device, ordinal))
    return result;
  for (auto [value, attribute] :
       {std::pair<int *, int>{&major, kCapabilityMajor},
        {&minor, kCapabilityMinor},
        {&sms, kMultiprocessorCount},
        {&shared, kSharedPerBlockOptin}})
    if (CUresult result = driver.cuDeviceGetAttribute(value, attribute, device))
      return result;
  if (CUresult result = driver.cuDeviceGetName(name, sizeof(name), device))
    return result;
  if (CUresult result = driver.cuDeviceTotalMem(&memory, device))
    return result;
  copyName(props.name, sizeof(props.name), name);
  copyName(props.arch, sizeof(props.arch),
           "sm_" + std::to_string(major) + std::to_string(minor));
  props.memory_bytes = memory;
  props.multiprocessors = sms;
  props.shared_bytes_per_block = shared;
  return 0;
}

int launch(void *function, tessera_grid grid, unsigned threads,
           unsigned sharedBytes, void *stream, void **params) {
  return driver.cuLaunchKernel(function, static_cast<unsigned>(grid.x),
                               static_cast<unsigned>(grid.y),
                               static_cast<unsigned>(grid.z), threads, 1, 1,
                               sharedBytes, stream, params, nullptr);
}

int launchClusters(void *function, tessera_grid grid, const uint32_t cluster[3],
                   unsigned threads, unsigned sharedBytes, void *stream,
                   void **params) {
  if (cluster[0] * cluster[1] * cluster[2] > kPortableClusterBlocks)
    if (CUresult result = driver.cuFuncSetAttribute(
            function, kNonPortableClusterSizeAllowed, 1))
      return result;
  LaunchAttribute attribute = {};
  attribute.id = kClusterDimension;
  attribute.value.clusterDim = {cluster[0], cluster[1], cluster[2]};
  LaunchConfig config = {static_cast<unsigned>(grid.x),
                         static_cast<unsigned>(grid.y),
                         static_cast<unsigned>(grid.z),
                         threads,
                         1,
                         1,
                         sharedBytes,
                         stream,
                         &attribute,
                         1};
  return driver.cuLaunchKernelEx(&config, function, params, nullptr);
}

int encodeTensorMap(void *map, const LaunchArgs::TensorMap &tensor) {
  // CU_TENSOR_MAP_DATA_TYPE_UINT8/16/32/64 by element size (the bits are
  // copied, zero filled outside the tensor), no interleave, the swizzle a
  // box row spans (CU_TENSOR_MAP_SWIZZLE_128B, 64B or 32B: the lowering
  // sizes box rows so), 128-byte L2 promotion, zero fill.
  int type = tensor.elementBytes == 1   ? 0
             : tensor.elementBytes == 2 ? 1
             : tensor.elementBytes == 4 ? 2
                                        : 4;
  unsigned rowBytes = tensor.box[0] * tensor.elementBytes;
  int swizzle = rowBytes == 128 ? 3 : rowBytes == 64 ? 2 : 1;
  const unsigned elementStrides[3] = {1, 1, 1};
  return driver.cuTensorMapEncodeTiled(
      map, type, tensor.rank, const_cast<void *>(tensor.base), tensor.dims,
      tensor.strideBytes, tensor.box, elementStrides, /*interleave=*/0, swizzle,
      /*l2Promotion=*/2, /*oobFill=*/0);
}
int allocate(void **data, size_t bytes) {
  CUdeviceptr pointer = 0;
  CUresult result = driver.cuMemAlloc(&pointer, bytes);
  *data = reinterpret_cast<void *>(pointer);
  return result;
}

int copyToDevice(void *device, const void *host, size_t bytes, void *stream) {
  return stream ? driver.cuMemcpyHtoDAsync(address(device), host, bytes, stream)
                : driver.cuMemcpyHtoD(address(device), host, bytes);
}

int copyToHost(void *host, const void *device, size_t bytes, void *stream) {
  return stream ? driver.cuMemcpyDtoHAsync(host, address(device), bytes, stream)
                : driver.cuMemcpyDtoH(host, address(device), bytes);
}

GpuApi api;

/// Loads the driver; false (with the reason recorded) if it cannot.
bool load() {
  const char *library = "libcuda.so.1";
  void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    fail(TESSERA_ERROR_NO_DRIVER, std::string("cannot load ") + library + ": " +
                                      dlerror() +
                                      "; is the NVIDIA driver installed?");
    return false;
  }
  SymbolBinder bind{handle, ""};
  bind(driver.cuInit, "cuInit");
  bind(driver.cuDeviceGetCount, "cuDeviceGetCount");
  bind(driver.cuDeviceGet, "cuDeviceGet");
  bind(driver.cuDeviceGetName, "cuDeviceGetName");
  bind(driver.cuDeviceGetAttribute, "cuDeviceGetAttribute");
  bind(driver.cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  bind(driver.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  bind(driver.cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  bind(driver.cuCtxSetCurrent, "cuCtxSetCurrent");
  bind(driver.cuCtxSynchronize, "cuCtxSynchronize");
  bind(driver.cuModuleLoadData, "cuModuleLoadData");
  bind(driver.cuModuleUnload, "cuModuleUnload");
  bind(driver.cuModuleGetFunction, "cuModuleGetFunction");
  bind(driver.cuFuncSetAttribute, "cuFuncSetAttribute");
  bind(driver.cuOccupancyMaxActiveBlocksPerMultiprocessor,
       "cuOccupancyMaxActiveBlocksPerMultiprocessor");
  bind(driver.cuLaunchKernel, "cuLaunchKernel");
  bind(driver.cuMemAlloc, "cuMemAlloc_v2");
  bind(driver.cuMemFree, "cuMemFree_v2");
  bind(driver.cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  bind(driver.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  bind(driver.cuMemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
  bind(driver.cuMemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
  bind(driver.cuStreamCreate, "cuStreamCreate");
  bind(driver.cuStreamSynchronize, "cuStreamSynchronize");
  bind(driver.cuStreamDestroy, "cuStreamDestroy_v2");
  bind(driver.cuEventCreate, "cuEventCreate");
  bind(driver.cuEventRecord, "cuEventRecord");
  bind(driver.cuEventSynchronize, "cuEventSynchronize");
  // CUDA 13's cuda.h maps cuEventElapsedTime to _v2 (12.8 and later);
  // older drivers have only the first version, with the same signature.
  bind(driver.cuEventElapsedTime, "cuEventElapsedTime_v2",
       "cuEventElapsedTime");
  bind(driver.cuEventDestroy, "cuEventDestroy_v2");
  bind(driver.cuGetErrorName, "cuGetErrorName");
  bind(driver.cuGetErrorString, "cuGetErrorString");
  // Tensor maps and cluster launches came with CUDA 12: without them,
  // sm_90a kernels copy with their threads, and kernels with clusters
  // cannot launch.
  driver.cuTensorMapEncodeTiled =
      reinterpret_cast<decltype(driver.cuTensorMapEncodeTiled)>(
          dlsym(bind.library, "cuTensorMapEncodeTiled"));
  driver.cuLaunchKernelEx = reinterpret_cast<decltype(driver.cuLaunchKernelEx)>(
      dlsym(bind.library, "cuLaunchKernelEx"));
  if (!bind.missing.empty()) {
    fail(TESSERA_ERROR_NO_DRIVER, std::string(library) + " lacks " +
                                      bind.missing + "; the driver is too old");
    return false;
  }
  if (CUresult result = driver.cuInit(0)) {
    fail(result == kNoDevice ? TESSERA_ERROR_NO_DEVICE
                             : TESSERA_ERROR_NO_DRIVER,
         "cuInit failed: " + describe(result));
    return false;
  }
  api.kind = TESSERA_DEVICE_CUDA;
  api.name = "CUDA";
  api.library = library;
  api.deviceCount = driver.cuDeviceGetCount;
  api.open = open;
  api.close = close;
  api.makeCurrent = makeCurrent;
  api.properties = properties;
  api.matches = cudaImageMatch;
  api.moduleLoad = driver.cuModuleLoadData;
  api.moduleUnload = driver.cuModuleUnload;
  api.getFunction = driver.cuModuleGetFunction;
  api.setDynamicShared = [](void *function, int bytes) {
    return driver.cuFuncSetAttribute(function, kMaxDynamicSharedBytes, bytes);
  };
  api.occupancy = [](int *blocks, void *function, unsigned threads,
                     unsigned sharedBytes) {
    return driver.cuOccupancyMaxActiveBlocksPerMultiprocessor(
        blocks, function, static_cast<int>(threads), sharedBytes);
  };
  api.launch = launch;
  api.launchClusters = driver.cuLaunchKernelEx ? launchClusters : nullptr;
  api.allocate = allocate;
  api.release = [](void *data) { return driver.cuMemFree(address(data)); };
  api.copyToDevice = copyToDevice;
  api.copyToHost = copyToHost;
  api.streamCreate = [](void **stream) {
    return driver.cuStreamCreate(stream, kStreamNonBlocking);
  };
  api.streamSynchronize = [](void *stream) {
    return stream ? driver.cuStreamSynchronize(stream)
                  : driver.cuCtxSynchronize();
  };
  api.streamDestroy = driver.cuStreamDestroy;
  api.eventCreate = [](void **event) { return driver.cuEventCreate(event, 0); };
  api.eventRecord = driver.cuEventRecord;
  api.eventSynchronize = driver.cuEventSynchronize;
  api.eventElapsedMs = driver.cuEventElapsedTime;
  api.eventDestroy = driver.cuEventDestroy;
  api.encodeTensorMap =
      driver.cuTensorMapEncodeTiled ? encodeTensorMap : nullptr;
  api.describe = describe;
  api.noDevice = kNoDevice;
  return true;
}
} // namespace

int tessera::runtime::cudaImageMatch(std::string_view device,
                                     std::string_view image, uint16_t kind) {
  if (kind != kImageCubin && kind != kImagePtx)
    return 0;
  // "sm_" digits, then an optional letter suffix ("a", "f").
  auto parse = [](std::string_view arch, int &capability,
                  std::string_view &suffix) {
    if (arch.substr(0, 3) != "sm_")
      return false;
    size_t i = 3;
    capability = 0;
    while (i < arch.size() && arch[i] >= '0' && arch[i] <= '9')
      capability = capability * 10 + (arch[i++] - '0');
    suffix = arch.substr(i);
    return i > 4 && suffix.size() <= 1;
  };
  int have = 0, want = 0;
  std::string_view haveSuffix, wantSuffix;
  if (!parse(device, have, haveSuffix) || !parse(image, want, wantSuffix))
    return 0;
  if (kind == kImageCubin) {
    if (want == have)
      return wantSuffix.empty() ? 5 : 6;
    // Cubins run on later minors of their major version, but not the
    // arch-specific ("a") ones.
    if (wantSuffix.empty() && want / 10 == have / 10 && want < have)
      return 4;
    return 0;
  }
  // PTX is compiled by the driver for its device: any later one, except
  // arch-specific PTX.
  if (want == have)
    return 3;
  return wantSuffix.empty() && want < have ? 2 : 0;
}

const GpuApi *tessera::runtime::loadCudaDriver() {
  return load() ? &api : nullptr;
}
