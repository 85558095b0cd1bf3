//===- Arguments.h - Python values as kernel arguments ---------*- C++ -*-===//
//
// The extension's devices, its exceptions, and the conversion of Python
// values into the runtime's launch arguments: DLPack tensors (NumPy arrays,
// PyTorch and CuPy tensors) into views without copies, ints, floats and
// bools into scalars of the declared type.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_PYTHON_ARGUMENTS_H
#define TESSERA_PYTHON_ARGUMENTS_H

#include "tessera/runtime/tessera.hpp"

#include <nanobind/nanobind.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera::python {

/// A launch the kernel or the device refused at run time (the emulator's
/// race detector, an out-of-bounds access, a driver error): KernelError.
struct KernelFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// A device, bundle or module that cannot be opened or loaded: DeviceError.
struct DeviceFault : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Throws the exception that fits `status` (ValueError for invalid
/// arguments, KernelFault, DeviceFault), with the runtime's message.
void throwStatus(tessera_status status, const std::string &what);

/// An open device ("host", "emu" with a chip, "cuda", "hip").
class PyDevice {
public:
  PyDevice(const std::string &kind, int ordinal, const std::string &chip,
           int threads);
  ~PyDevice();
  PyDevice(const PyDevice &) = delete;
  PyDevice &operator=(const PyDevice &) = delete;
  tessera_device_kind kind() const { return tesseraDeviceKind(device.get()); }
  /// The runtime's wrapper of the driver stream `native` (a CUstream or
  /// hipStream_t the caller owns), made on first use and kept with the
  /// device.
  tessera_stream *wrap(uintptr_t native);

  int ordinal = 0;
  tessera::Device device;

private:
  std::vector<std::pair<uintptr_t, tessera_stream *>> wrapped;
};

/// A kernel argument's kind: "view:<element>:<rank>" or "scalar:<type>".
struct ArgSpec {
  bool view = false;
  std::string element;
  int64_t rank = 0;
};
ArgSpec parseSpec(const std::string &spec);

/// `object` as a view of `spec`'s elements and rank for a launch on
/// `device`, its dtype set; TypeError or ValueError starting with `what`
/// when it is not one. int4 views count two codes per byte of the array's
/// innermost dimension.
tessera_view toView(nanobind::handle object, const ArgSpec &spec,
                    const PyDevice &device, const std::string &what);

/// A scalar argument of `spec`'s type in the low bytes of `storage`.
void toScalar(nanobind::handle object, const ArgSpec &spec,
              const std::string &what, uint64_t &storage);

} // namespace tessera::python

#endif // TESSERA_PYTHON_ARGUMENTS_H
