//===- Launcher.h - Launches with views of host memory ---------*- C++ -*-===//
//
// Problems describe their tensors as views of host memory. On the host and
// the emulator those are launched as they are; on a GPU each view's memory
// is staged in a device buffer on first use (and kept, so repeated launches
// time the kernel, not the copies), and download() brings every staged
// buffer back to the host memory it mirrors. A view inside memory already
// staged uses that buffer; views must not straddle staged memory.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TOOLS_TESSERA_RUN_LAUNCHER_H
#define TESSERA_TOOLS_TESSERA_RUN_LAUNCHER_H

#include "tessera/runtime/tessera.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tessera::run {

/// The bytes a view of `element`s spans from its data pointer (int4: codes
/// two per byte along the innermost dimension, outer strides in bytes); 0
/// for an element type of unknown size.
size_t viewSpan(const tessera_view &view, const std::string &element);

/// Whether a device of `kind` keeps its memory on the host (the host and the
/// emulator): its views may point at host memory, and it has worker threads.
inline bool usesHostMemory(tessera_device_kind kind) {
  return kind == TESSERA_DEVICE_HOST || kind == TESSERA_DEVICE_EMULATOR;
}

/// Opens the device tessera-run was asked for ("host", "emu", "cuda" or
/// "hip"): with the emulator's chip (if not empty) and race detection, and
/// the worker threads of a host or emulator device (unless -1), and the
/// most program instances a persistent kernel's launch starts (unless -1).
/// Empty, with `error` saying why, on failure.
tessera::Device openDevice(const std::string &name, const std::string &chip,
                           int64_t threads, bool races, std::string &error,
                           int64_t programs = -1);

class Launcher {
public:
  Launcher(tessera_device *device, tessera_module *module)
      : device(device), module(module) {}
  ~Launcher();
  Launcher(const Launcher &) = delete;
  Launcher &operator=(const Launcher &) = delete;

  /// Launches `kernel` (see tesseraLaunch): queued on the stream if one
  /// is set, else waited for.
  tessera_status launch(const std::string &kernel, tessera_grid grid,
                        void *const *args);
  void setStream(tessera_stream *queue) { stream = queue; }
  /// Copies every staged buffer back to its host memory.
  tessera_status download();

private:
  struct Staged {
    const char *host;
    size_t bytes;
    tessera_buffer *buffer;
  };
  /// The device address of `bytes` of host memory at `host`, staging it.
  tessera_status stage(void *host, size_t bytes, void *&address);

  tessera_device *device;
  tessera_module *module;
  tessera_stream *stream = nullptr;
  std::vector<Staged> staged;
};

} // namespace tessera::run

#endif // TESSERA_TOOLS_TESSERA_RUN_LAUNCHER_H
