//===- Device.h - The C API's objects ---------------------------*- C++ -*-===//

#ifndef TESSERA_RUNTIME_DEVICE_H
#define TESSERA_RUNTIME_DEVICE_H

#include "Backend.h"

#include <atomic>

/// A device lives while it is open or any of its modules, buffers, streams
/// and events does: each holds a reference (retain/release).
struct tessera_device {
  std::unique_ptr<tessera::runtime::Backend> backend;
  std::atomic<int> references{1};
  /// The most program instances a persistent kernel's launch starts; 0 for
  /// the backend's resident count (tesseraDeviceSetMaxPrograms).
  std::atomic<int64_t> maxPrograms{0};
};

namespace tessera::runtime {
inline void retain(tessera_device *device) { ++device->references; }
inline void release(tessera_device *device) {
  if (--device->references == 0)
    delete device;
}
} // namespace tessera::runtime

struct tessera_kernel {
  tessera_module *module;
  tessera::runtime::Kernel kernel;
};

struct tessera_module {
  tessera_device *device = nullptr;
  std::string bundle; // owns the bytes the image views point into
  tessera::runtime::BundleImage image;
  std::unique_ptr<tessera::runtime::LoadedImage> loaded;
  std::vector<tessera_kernel> kernels;
};

struct tessera_stream {
  tessera_device *device;
  std::unique_ptr<tessera::runtime::Stream> stream;
};

struct tessera_event {
  tessera_device *device;
  std::unique_ptr<tessera::runtime::Event> event;
};

struct tessera_buffer {
  tessera_device *device;
  void *data;
  size_t size;
};

#endif // TESSERA_RUNTIME_DEVICE_H
