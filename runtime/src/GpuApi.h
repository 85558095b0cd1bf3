//===- GpuApi.h - The driver calls a GPU backend makes ---------*- C++ -*-===//
//
// CUDA's driver API and HIP's module API have the same shape; each driver
// file (CudaDriver.cpp, HipDriver.cpp) loads its library with dlopen and
// fills this table with adapters, and one GpuBackend implements devices
// over it. Handles are void pointers; calls return the driver's result code
// (0 is success).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_GPUAPI_H
#define TESSERA_RUNTIME_GPUAPI_H

#include "Backend.h"

#include <dlfcn.h>

namespace tessera::runtime {

struct GpuApi {
  tessera_device_kind kind;
  const char *name;    // "CUDA"
  const char *library; // what dlopen loaded

  int (*deviceCount)(int *count);
  /// Makes device `ordinal` usable from any thread: `context` is what
  /// makeCurrent needs (CUDA: its primary context).
  int (*open)(int ordinal, void **context);
  void (*close)(int ordinal, void *context);
  int (*makeCurrent)(int ordinal, void *context);
  /// Name, arch, memory, multiprocessors and shared memory of a device.
  int (*properties)(int ordinal, tessera_device_properties &props);
  /// How well a device of `deviceArch` runs an image (see below).
  int (*matches)(std::string_view deviceArch, std::string_view imageArch,
                 uint16_t imageKind);

  int (*moduleLoad)(void **module, const void *image);
  int (*moduleUnload)(void *module);
  int (*getFunction)(void **function, void *module, const char *name);
  /// Lets `function` use `bytes` of dynamic shared memory (above the
  /// default 48 KiB).
  int (*setDynamicShared)(void *function, int bytes);
  /// The blocks of `function` one multiprocessor keeps resident at once
  /// with `threads` threads and `sharedBytes` of dynamic shared memory;
  /// null where the driver cannot tell (then one).
  int (*occupancy)(int *blocks, void *function, unsigned threads,
                   unsigned sharedBytes);
  int (*launch)(void *function, tessera_grid grid, unsigned threads,
                unsigned sharedBytes, void *stream, void **params);
  /// A launch in thread-block clusters of `cluster` blocks (x, y, z); null
  /// where the driver has none (HIP, CUDA before 12).
  int (*launchClusters)(void *function, tessera_grid grid,
                        const uint32_t cluster[3], unsigned threads,
                        unsigned sharedBytes, void *stream, void **params);

  int (*allocate)(void **data, size_t bytes);
  int (*release)(void *data);
  /// Copies; a null stream makes them synchronous.
  int (*copyToDevice)(void *device, const void *host, size_t bytes,
                      void *stream);
  int (*copyToHost)(void *host, const void *device, size_t bytes, void *stream);

  int (*streamCreate)(void **stream);
  int (*streamSynchronize)(void *stream); // null: the whole device
  int (*streamDestroy)(void *stream);
  int (*eventCreate)(void **event);
  int (*eventRecord)(void *event, void *stream);
  int (*eventSynchronize)(void *event);
  int (*eventElapsedMs)(float *milliseconds, void *start, void *end);
  int (*eventDestroy)(void *event);

  /// Encodes a 2-D or 3-D tiled tensor map with the swizzle its box rows
  /// span (128, 64 or 32 bytes) and zero fill into `map` (128 bytes, 64-byte
  /// aligned); null where the driver has no tensor maps (HIP, CUDA before 12).
  int (*encodeTensorMap)(void *map, const LaunchArgs::TensorMap &tensor);
  /// "CUDA_ERROR_OUT_OF_MEMORY: out of memory".
  std::string (*describe)(int result);
  int noDevice; // the result code for "no device"
};

/// Binds function pointers to the symbols of a library dlopen loaded,
/// remembering the first symbol that is missing.
struct SymbolBinder {
  void *library;
  std::string missing;

  /// `older`: a name to fall back on (a symbol's previous version).
  template <typename Function>
  void operator()(Function *&pointer, const char *symbol,
                  const char *older = nullptr) {
    void *found = dlsym(library, symbol);
    if (!found && older)
      found = dlsym(library, older);
    if (!found && missing.empty())
      missing = symbol;
    pointer = reinterpret_cast<Function *>(found);
  }
};

/// Load the driver library and fill its table; null (with the reason
/// recorded by fail()) without the library or a usable driver. Called once
/// each (gpuApi caches them).
const GpuApi *loadCudaDriver();
const GpuApi *loadHipDriver();

/// The image-matching rules (GpuApi::matches), exposed for unit tests.
/// CUDA, best first, for a device "sm_90": an sm_90a cubin, an sm_90 cubin,
/// a cubin of the same major version and an older minor (not an "a" one);
/// then PTX the driver compiles: sm_90a or sm_90 PTX, then PTX of any older
/// capability (not an "a" one).
int cudaImageMatch(std::string_view deviceArch, std::string_view imageArch,
                   uint16_t imageKind);
/// HIP: a device "gfx942" runs "gfx942" code objects only; target features
/// after a colon ("gfx942:sramecc+:xnack-") must agree where both name
/// them, and each one agreeing makes the match better.
int hipImageMatch(std::string_view deviceArch, std::string_view imageArch,
                  uint16_t imageKind);

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_GPUAPI_H
