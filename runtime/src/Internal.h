//===- Internal.h - Runtime internals --------------------------*- C++ -*-===//

#ifndef TESSERA_RUNTIME_INTERNAL_H
#define TESSERA_RUNTIME_INTERNAL_H

#include "tessera/runtime/tessera_runtime.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct tessera_device {
  tessera_device_kind kind;
  void *driver = nullptr;
  int threads = 0; // host: worker threads
};

namespace tessera::runtime {

/// Whether a device kind keeps its memory on the host and runs launches on
/// host worker threads (the host itself and the GPU emulator).
inline bool isHostMemory(tessera_device_kind kind) {
  return kind == TESSERA_DEVICE_HOST || kind == TESSERA_DEVICE_EMULATOR;
}

/// Records `message` as the calling thread's last error and returns status.
tessera_status fail(tessera_status status, std::string message);

struct KernelEntry {
  std::string name;
  int64_t threads = 0;
  int64_t sharedBytes = 0;
  std::vector<std::string> args;
  std::vector<const char *> argPointers; // for tessera_kernel_info
};

struct BundleImage {
  std::string arch;
  std::string triple;
  std::string_view image;
  std::vector<KernelEntry> kernels;
};

/// Parses the offload binaries of a bundle; the images point into `data`.
tessera_status readBundle(std::string_view data,
                          std::vector<BundleImage> &images);

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_INTERNAL_H
