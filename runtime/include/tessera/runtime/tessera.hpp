//===- tessera.hpp - C++ wrapper of the Tessera runtime ---------*- C++ -*-===//
//
// Move-only owners of devices, modules, streams and events over the C API, and
// a helper to describe dense row-major views. Calls return tessera_status;
// error() gives the message of the last failure.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_TESSERA_HPP
#define TESSERA_RUNTIME_TESSERA_HPP

#include "tessera/runtime/tessera_runtime.h"

#include <initializer_list>
#include <string>
#include <utility>

namespace tessera {

inline std::string error() { return tesseraGetLastError(); }

/// A dense row-major view of `data` with the given sizes (and element type,
/// which launches then check). More than TESSERA_MAX_RANK sizes make a view
/// of rank 0, which every launch rejects.
inline tessera_view view(void *data, std::initializer_list<int64_t> sizes,
                         tessera_dtype dtype = TESSERA_DTYPE_UNSPECIFIED) {
  tessera_view v{};
  v.data = data;
  v.dtype = dtype;
  if (sizes.size() > TESSERA_MAX_RANK)
    return v;
  v.rank = static_cast<int64_t>(sizes.size());
  int64_t d = 0;
  for (int64_t size : sizes)
    v.sizes[d++] = size;
  int64_t stride = 1;
  for (int64_t i = v.rank; i-- > 0;) {
    v.strides[i] = stride;
    stride *= v.sizes[i];
  }
  return v;
}

/// The same bytes as an int4 view [.., N] (two codes per byte along a row,
/// low nibble first, as packInt4 writes them) seen as [.., ceil(N / 2), 2]
/// nibble pairs: the operand of kernels that unpack them explicitly
/// (`tile.unpack`), such as gemm_w4a16 and tile-quantize's int4 kernels.
/// A view of the largest rank has no room for the pairs: it comes back
/// unchanged, and a launch then reports the rank it expected.
inline tessera_view int4PairView(const tessera_view &codes) {
  if (codes.rank < 1 || codes.rank >= TESSERA_MAX_RANK)
    return codes;
  tessera_view pairs = codes;
  int64_t last = codes.rank - 1;
  pairs.rank = codes.rank + 1;
  pairs.sizes[last] = (codes.sizes[last] + 1) / 2;
  pairs.sizes[last + 1] = 2;
  pairs.strides[last] = 1;
  pairs.strides[last + 1] = 1;
  return pairs;
}

namespace detail {
/// A move-only owner of a runtime object, released with `Release`.
template <typename T, void (*Release)(T *)> class Owner {
public:
  Owner() = default;
  explicit Owner(T *handle) : handle(handle) {}
  Owner(Owner &&other) noexcept
      : handle(std::exchange(other.handle, nullptr)) {}
  Owner &operator=(Owner &&other) noexcept {
    std::swap(handle, other.handle);
    return *this;
  }
  ~Owner() {
    if (handle)
      Release(handle);
  }
  explicit operator bool() const { return handle; }
  T *get() const { return handle; }

private:
  T *handle = nullptr;
};
} // namespace detail

class Device : public detail::Owner<tessera_device, tesseraDeviceClose> {
public:
  using Owner::Owner;
  /// Opens device `ordinal` of `kind`; the result is empty (and error()
  /// says why) on failure.
  static Device open(tessera_device_kind kind, int ordinal = 0) {
    tessera_device *device = nullptr;
    tesseraDeviceOpen(kind, ordinal, &device);
    return Device(device);
  }
};

class Module : public detail::Owner<tessera_module, tesseraModuleUnload> {
public:
  using Owner::Owner;
  /// Loads a bundle file; the result is empty on failure.
  static Module load(const Device &device, const char *path) {
    tessera_module *module = nullptr;
    tesseraModuleLoadFile(device.get(), path, &module);
    return Module(module);
  }
  /// Loads a bundle from memory; the result is empty on failure.
  static Module load(const Device &device, const void *bundle, size_t size) {
    tessera_module *module = nullptr;
    tesseraModuleLoad(device.get(), bundle, size, &module);
    return Module(module);
  }
  /// The kernel named `name`, or null (error() says why).
  tessera_kernel *kernel(const char *name) const {
    tessera_kernel *found = nullptr;
    tesseraModuleGetKernel(get(), name, &found);
    return found;
  }
  /// Launches the kernel named `name` (see tesseraLaunch).
  tessera_status launch(const char *name, tessera_grid grid, void *const *args,
                        tessera_stream *stream = nullptr) const {
    tessera_kernel *found = nullptr;
    if (tessera_status status = tesseraModuleGetKernel(get(), name, &found))
      return status;
    return tesseraLaunch(found, grid, args, stream);
  }
};

class Stream : public detail::Owner<tessera_stream, tesseraStreamDestroy> {
public:
  using Owner::Owner;
  /// A new stream of `device`; empty on failure.
  static Stream create(const Device &device) {
    tessera_stream *stream = nullptr;
    tesseraStreamCreate(device.get(), &stream);
    return Stream(stream);
  }
};

class Event : public detail::Owner<tessera_event, tesseraEventDestroy> {
public:
  using Owner::Owner;
  /// A new event of `device`; empty on failure.
  static Event create(const Device &device) {
    tessera_event *event = nullptr;
    tesseraEventCreate(device.get(), &event);
    return Event(event);
  }
};

} // namespace tessera

#endif // TESSERA_RUNTIME_TESSERA_HPP
