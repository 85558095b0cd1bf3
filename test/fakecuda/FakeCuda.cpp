//===- FakeCuda.cpp - A stand-in libcuda.so.1 for the runtime's tests -----===//
//
// The CUDA driver API functions the runtime loads (runtime/src/CudaDriver.cpp)
// over host memory, so that the runtime's CUDA path (device properties,
// image choice, module loading, launches with descriptor fields as
// parameters, copies, streams and events) runs where there is no GPU: a test
// puts this library's directory first in LD_LIBRARY_PATH. Device memory is
// host memory. Launches run only the kernels this file knows, from their
// parameters:
//   scale(X, Y, factor): Y[i] = factor * X[i], 64 elements per program
// (test/unit/Inputs/scale.mlir), also in thread-block clusters
// (cuLaunchKernelEx). FAKE_CUDA_CC sets the compute capability
// (default 90), FAKE_CUDA_DEVICES the device count (default 1), and
// FAKE_CUDA_LOG names a file that receives one line per module load and
// launch.
//
//===----------------------------------------------------------------------===//

#include "FakeDriver.h"

namespace {
using fake::env;
using fake::Event;
void log(const std::string &line) { fake::log("FAKE_CUDA_LOG", line); }
using CUresult = int;
using CUdeviceptr = unsigned long long;
constexpr CUresult kSuccess = 0, kInvalidValue = 1, kNoDevice = 100,
                   kNotFound = 500, kInvalidClusterSize = 912;

struct Module {
  std::string kind;
};
struct Function {
  std::string name;
  int dynamicShared = 0;
  bool largeClusters = false;
};

/// CUlaunchAttribute and CUlaunchConfig as cuda.h lays them out.
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
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  void *hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
} // namespace

extern "C" {
CUresult cuInit(unsigned) { return kSuccess; }
CUresult cuDeviceGetCount(int *count) {
  *count = env("FAKE_CUDA_DEVICES", 1);
  return *count ? kSuccess : kNoDevice;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= env("FAKE_CUDA_DEVICES", 1))
    return kInvalidValue;
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetName(char *name, int length, int) {
  std::snprintf(name, size_t(length), "Tessera fake CUDA device");
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attribute, int) {
  int cc = env("FAKE_CUDA_CC", 90);
  switch (attribute) {
  case 75: // compute capability major
    *value = cc / 10;
    return kSuccess;
  case 76: // minor
    *value = cc % 10;
    return kSuccess;
  case 16: // multiprocessors
    *value = 132;
    return kSuccess;
  case 97: // shared memory per block, opt-in
    *value = cc >= 90 ? 232448 : 166912;
    return kSuccess;
  }
  return kInvalidValue;
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, int) {
  *bytes = size_t(1) << 34;
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void **context, int device) {
  *context = reinterpret_cast<void *>(uintptr_t(device) + 1);
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
CUresult cuCtxSetCurrent(void *context) {
  return context ? kSuccess : kInvalidValue;
}
CUresult cuCtxSynchronize() { return kSuccess; }

CUresult cuModuleLoadData(void **module, const void *image) {
  // Cubins are ELF files; PTX is text.
  bool elf = std::memcmp(image,
                         "\x7f"
                         "ELF",
                         4) == 0;
  bool ptx = !elf && std::strstr(static_cast<const char *>(image), ".version");
  if (!elf && !ptx)
    return kInvalidValue;
  *module = new Module{elf ? "cubin" : "ptx"};
  log("load " + static_cast<Module *>(*module)->kind);
  return kSuccess;
}
CUresult cuModuleUnload(void *module) {
  delete static_cast<Module *>(module);
  return kSuccess;
}
CUresult cuModuleGetFunction(void **function, void *, const char *name) {
  *function = new Function{name}; // leaked with the module, as a driver's
  return kSuccess;
}
CUresult cuFuncSetAttribute(void *function, int attribute, int value) {
  auto *f = static_cast<Function *>(function);
  if (attribute == 14) { // non-portable cluster sizes allowed
    f->largeClusters = value != 0;
    return kSuccess;
  }
  if (attribute != 8) // max dynamic shared size
    return kInvalidValue;
  f->dynamicShared = value;
  return kSuccess;
}
/// Two blocks of any kernel per multiprocessor (FAKE_CUDA_OCCUPANCY).
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void *,
                                                     int threads,
                                                     size_t shared) {
  if (!blocks || threads < 1 || threads > 1024 || shared > 232448)
    return kInvalidValue;
  *blocks = env("FAKE_CUDA_OCCUPANCY", 2);
  return kSuccess;
}
CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned shared,
                        void *, void **params, void **extra) {
  auto *f = static_cast<Function *>(function);
  if (!params || extra)
    return kInvalidValue;
  if (shared > 48 * 1024 && int(shared) > f->dynamicShared)
    return kInvalidValue; // what a driver says without the opt-in
  log(fake::launchLine(f->name, gx, gy, gz, bx, by, bz, shared));
  if (f->name == "scale") {
    fake::runScale(params, gx);
    return kSuccess;
  }
  return kNotFound;
}

/// Checks what a driver checks of a cluster launch (the grid a whole
/// number of clusters, at most 8 blocks without the non-portable opt-in, 16
/// with it) and logs the cluster after the launch line.
CUresult cuLaunchKernelEx(const LaunchConfig *config, void *function,
                          void **params, void **extra) {
  auto *f = static_cast<Function *>(function);
  if (!config || !params || extra)
    return kInvalidValue;
  unsigned cluster[3] = {1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id != 4) // cluster dimension
      return kInvalidValue;
    const auto &dim = config->attrs[i].value.clusterDim;
    cluster[0] = dim.x;
    cluster[1] = dim.y;
    cluster[2] = dim.z;
  }
  unsigned grid[3] = {config->gridDimX, config->gridDimY, config->gridDimZ};
  unsigned blocks = cluster[0] * cluster[1] * cluster[2];
  for (int d = 0; d < 3; ++d)
    if (!cluster[d] || grid[d] % cluster[d])
      return kInvalidClusterSize;
  if (blocks > (f->largeClusters ? 16u : 8u))
    return kInvalidClusterSize;
  if (config->sharedMemBytes > 48 * 1024 &&
      int(config->sharedMemBytes) > f->dynamicShared)
    return kInvalidValue;
  log(fake::launchLine(f->name, grid[0], grid[1], grid[2], config->blockDimX,
                       config->blockDimY, config->blockDimZ,
                       config->sharedMemBytes) +
      " cluster " + std::to_string(cluster[0]) + " " +
      std::to_string(cluster[1]) + " " + std::to_string(cluster[2]));
  if (f->name == "scale") {
    fake::runScale(params, grid[0]);
    return kSuccess;
  }
  return kNotFound;
}

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes) {
  *pointer = reinterpret_cast<CUdeviceptr>(std::malloc(bytes));
  return *pointer ? kSuccess : 2; // out of memory
}
CUresult cuMemFree_v2(CUdeviceptr pointer) {
  std::free(reinterpret_cast<void *>(pointer));
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t bytes) {
  std::memcpy(reinterpret_cast<void *>(to), from, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t bytes) {
  std::memcpy(to, reinterpret_cast<const void *>(from), bytes);
  return kSuccess;
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr to, const void *from, size_t bytes,
                              void *) {
  return cuMemcpyHtoD_v2(to, from, bytes);
}
CUresult cuMemcpyDtoHAsync_v2(void *to, CUdeviceptr from, size_t bytes,
                              void *) {
  return cuMemcpyDtoH_v2(to, from, bytes);
}

CUresult cuStreamCreate(void **stream, unsigned) {
  *stream = new int(0);
  return kSuccess;
}
CUresult cuStreamSynchronize(void *) { return kSuccess; }
CUresult cuStreamDestroy_v2(void *stream) {
  delete static_cast<int *>(stream);
  return kSuccess;
}
CUresult cuEventCreate(void **event, unsigned) {
  *event = new Event();
  return kSuccess;
}
CUresult cuEventRecord(void *event, void *) {
  static_cast<Event *>(event)->when = std::chrono::steady_clock::now();
  return kSuccess;
}
CUresult cuEventSynchronize(void *) { return kSuccess; }
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  *ms = std::chrono::duration<float, std::milli>(
            static_cast<Event *>(end)->when - static_cast<Event *>(start)->when)
            .count();
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  delete static_cast<Event *>(event);
  return kSuccess;
}
/// Checks what cuTensorMapEncodeTiled checks of the tiled, 128-byte
/// swizzled maps the runtime asks for, and logs them.
CUresult cuTensorMapEncodeTiled(void *map, int type, unsigned rank, void *base,
                                const uint64_t *dims, const uint64_t *strides,
                                const unsigned *box,
                                const unsigned *elementStrides, int interleave,
                                int swizzle, int promotion, int fill) {
  unsigned bytes = type == 0 ? 1 : type == 1 ? 2 : type == 2 ? 4 : 8;
  std::string shape, stride, boxes;
  bool ok =
      rank >= 2 && rank <= 5 && reinterpret_cast<uintptr_t>(map) % 64 == 0 &&
      reinterpret_cast<uintptr_t>(base) % 16 == 0 && box[0] * bytes <= 128 &&
      interleave == 0 && promotion >= 0 && fill == 0;
  for (unsigned d = 0; d < rank && d < 5; ++d) {
    shape += (d ? "x" : "") + std::to_string(dims[d]);
    boxes += (d ? "x" : "") + std::to_string(box[d]);
    ok = ok && dims[d] && box[d] <= 256 && elementStrides[d] == 1;
    if (d + 1 < rank) {
      stride += (d ? "," : "") + std::to_string(strides[d]);
      ok = ok && strides[d] % 16 == 0;
    }
  }
  std::string line = "tensor map " + shape + " stride " + stride + " box " +
                     boxes + " swizzle " + std::to_string(swizzle);
  log(line + (ok ? "" : " rejected"));
  if (!ok)
    return kInvalidValue;
  std::memset(map, 0, 128);
  std::memcpy(map, &base, sizeof base);
  return kSuccess;
}

CUresult cuGetErrorName(CUresult result, const char **name) {
  *name = result == kNoDevice             ? "CUDA_ERROR_NO_DEVICE"
          : result == kNotFound           ? "CUDA_ERROR_NOT_FOUND"
          : result == kInvalidClusterSize ? "CUDA_ERROR_INVALID_CLUSTER_SIZE"
                                          : "CUDA_ERROR_INVALID_VALUE";
  return kSuccess;
}
CUresult cuGetErrorString(CUresult, const char **text) {
  *text = "reported by the fake driver";
  return kSuccess;
}
} // extern "C"
