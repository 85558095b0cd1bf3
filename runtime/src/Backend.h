//===- Backend.h - What each kind of device implements ---------*- C++ -*-===//
//
// The C API validates its arguments and the kernels' metadata, then hands
// the work to the device's backend: the host, the GPU emulator, CUDA (the
// driver API) or HIP. A backend owns its device's memory, loaded images,
// streams and events; a null stream means "do it now and wait".
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_BACKEND_H
#define TESSERA_RUNTIME_BACKEND_H

#include "Internal.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tessera::runtime {

/// The arguments of one launch, owned by it (a stream runs it later): per
/// argument, 8-byte slots holding a view's memref descriptor {allocated,
/// aligned, offset, sizes[r], strides[r]} or a scalar's value.
struct LaunchArgs {
  std::vector<std::vector<int64_t>> slots;
  std::vector<bool> views;
  /// The tensor maps the kernel takes after its arguments (sm_90a), as
  /// cuTensorMapEncodeTiled's operands; the backend encodes them and
  /// appends one pointer slot per map, null where the view breaks TMA's
  /// rules (the kernel then copies without it).
  struct TensorMap {
    const void *base;
    uint32_t rank;           // 2 or 3
    uint64_t dims[3];        // innermost first
    uint64_t strideBytes[2]; // of dimensions 1 and 2
    uint32_t elementBytes;
    uint32_t box[3]; // one deep in dimension 2
  };
  std::vector<TensorMap> tensorMaps;
  /// Host-side storage of encoded maps (128 bytes each), kept with the
  /// launch.
  std::vector<std::array<uint64_t, 16>> encoded;

  /// The host entry ABI: a pointer per argument, to its descriptor or value.
  std::vector<void *> perArgument();
  /// The GPU kernels' ABI: a pointer per parameter, a descriptor's fields
  /// being parameters of their own.
  std::vector<void *> perParameter();
};

/// A kernel of a loaded image.
struct Kernel {
  const KernelEntry *entry = nullptr;
  void *function = nullptr; // host entry point, CUfunction, hipFunction_t
};

/// A loaded image: the backend's handle on a bundle image's code.
class LoadedImage {
public:
  virtual ~LoadedImage() = default;
  /// The function of kernel `index` of the image (null if it has none).
  virtual void *function(size_t index) = 0;
};

class Stream {
public:
  virtual ~Stream() = default;
};

class Event {
public:
  virtual ~Event() = default;
};

enum class Copy { HostToDevice, DeviceToHost };

class Backend {
public:
  virtual ~Backend() = default;

  virtual tessera_device_kind kind() const = 0;
  virtual tessera_status properties(tessera_device_properties &props) = 0;
  /// How well this device runs `image`: 0 not at all, higher is better
  /// (an exact match over a compatible one, machine code over PTX).
  virtual int matches(const BundleImage &image) const = 0;
  /// What the device would load, for the error when a bundle has nothing
  /// it matches ("a host image; compile with --target=host").
  virtual std::string wanted() const = 0;
  virtual tessera_status load(const BundleImage &image,
                              std::unique_ptr<LoadedImage> &loaded) = 0;

  virtual tessera_status allocate(size_t bytes, void **data) = 0;
  virtual void release(void *data) = 0;

  virtual tessera_status createStream(std::unique_ptr<Stream> &stream) = 0;
  /// A stream over the driver's stream `native`, which the caller owns and
  /// keeps alive (CUDA and HIP only).
  virtual tessera_status wrapStream(void *native,
                                    std::unique_ptr<Stream> &stream) = 0;
  virtual tessera_status createEvent(std::unique_ptr<Event> &event) = 0;
  /// Launches, copies and records in `stream`, or now (waiting) if null.
  virtual tessera_status launch(const Kernel &kernel, tessera_grid grid,
                                LaunchArgs args, Stream *stream) = 0;
  virtual tessera_status copy(void *destination, const void *source,
                              size_t bytes, Copy direction, Stream *stream) = 0;
  virtual tessera_status record(Event &event, Stream &stream) = 0;
  /// Waits for `stream`, or for the whole device if null, and reports (and
  /// clears) the first failure since the last synchronization.
  virtual tessera_status synchronize(Stream *stream) = 0;
  /// Waits for every stream of the device, leaving their failures for
  /// synchronize() to report (before memory or code is released).
  virtual void waitIdle() = 0;
  /// Waits for both events, then gives the time between them.
  virtual tessera_status elapsedMs(Event &start, Event &end,
                                   double &milliseconds) = 0;

  /// How many program instances of `kernel` the device runs at once: the
  /// most a persistent kernel's launch starts. Its multiprocessors by
  /// default (the worker threads of a host or emulator device).
  virtual tessera_status residentPrograms(const Kernel &kernel,
                                          int64_t &programs);

  /// Host and emulator devices only.
  virtual tessera_status setThreads(int threads);
  virtual int threads() const { return 0; }
  /// Emulator devices only.
  virtual tessera_status setChip(std::string chip);
};

/// Device counts and openings, per kind.
tessera_status hostDeviceCount(tessera_device_kind kind, int &count);
tessera_status openHost(tessera_device_kind kind, int ordinal,
                        std::unique_ptr<Backend> &backend);
/// CUDA and HIP: the driver library is loaded on first use.
tessera_status gpuDeviceCount(tessera_device_kind kind, int &count);
tessera_status openGpu(tessera_device_kind kind, int ordinal,
                       std::unique_ptr<Backend> &backend);

/// Copies `text` into a fixed-size C string field, truncating.
void copyName(char *field, size_t size, std::string_view text);

} // namespace tessera::runtime

#endif // TESSERA_RUNTIME_BACKEND_H
