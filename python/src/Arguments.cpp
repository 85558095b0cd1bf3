//===- Arguments.cpp - Python values as kernel arguments ------------------===//

#include "Arguments.h"

#include "tessera/runtime/quantize.hpp"

#include <nanobind/ndarray.h>

#include <cstdlib>
#include <cstring>

namespace nb = nanobind;
using namespace tessera::python;

/// Throws the exception that fits `status`, with the runtime's message.
void tessera::python::throwStatus(tessera_status status,
                                  const std::string &what) {
  std::string message = what + ": " + tessera::error();
  switch (status) {
  case TESSERA_SUCCESS:
    return;
  case TESSERA_ERROR_INVALID_ARGUMENT:
    throw nb::value_error(message.c_str());
  case TESSERA_ERROR_KERNEL:
    throw KernelFault(message);
  default:
    throw DeviceFault(message);
  }
}

tessera::python::PyDevice::PyDevice(const std::string &kind, int ordinal,
                                    const std::string &chip, int threads)
    : ordinal(ordinal) {
  tessera_device_kind parsed;
  if (tesseraParseDeviceKind(kind.c_str(), &parsed) != TESSERA_SUCCESS)
    throw nb::value_error(
        ("unknown device kind '" + kind + "'; use host, emu, cuda or hip")
            .c_str());
  device = tessera::Device::open(parsed, ordinal);
  if (!device)
    throw DeviceFault("cannot open device " + kind + ":" +
                      std::to_string(ordinal) + ": " + tessera::error());
  if (!chip.empty())
    throwStatus(tesseraEmulatorSetChip(device.get(), chip.c_str()),
                "cannot emulate " + chip);
  if (threads > 0)
    throwStatus(tesseraHostSetThreads(device.get(), threads),
                "cannot use " + std::to_string(threads) + " threads");
}

tessera::python::PyDevice::~PyDevice() {
  for (auto &[native, stream] : wrapped)
    tesseraStreamDestroy(stream);
}

tessera_stream *tessera::python::PyDevice::wrap(uintptr_t native) {
  for (auto &[handle, stream] : wrapped)
    if (handle == native)
      return stream;
  tessera_stream *stream = nullptr;
  throwStatus(tesseraStreamWrap(device.get(), reinterpret_cast<void *>(native),
                                &stream),
              "cannot launch on stream " + std::to_string(native));
  wrapped.emplace_back(native, stream);
  return stream;
}

/// Where an argument's memory must be for a launch on `kind` (DLPack device
/// types: CPU 1, CUDA 2, CUDA host 3, ROCm 10, CUDA managed 13).
static bool reachable(const nb::ndarray<> &array, tessera_device_kind kind,
                      int ordinal) {
  int type = array.device_type(), id = array.device_id();
  switch (kind) {
  case TESSERA_DEVICE_HOST:
  case TESSERA_DEVICE_EMULATOR:
    return type == 1 || type == 3;
  case TESSERA_DEVICE_CUDA:
    return (type == 2 || type == 13) && id == ordinal;
  case TESSERA_DEVICE_HIP:
    return type == 10 && id == ordinal;
  }
  return false;
}

/// Whether `dtype` holds a view's `element`s. Element types NumPy lacks
/// (bf16, fp8, int4) are also taken as their bits in unsigned integers of
/// the same width (int4: two codes per byte).
static bool holds(nb::dlpack::dtype dtype, const std::string &element) {
  using Code = nb::dlpack::dtype_code;
  auto is = [&](Code code, int bits) {
    return dtype.code == uint8_t(code) && dtype.bits == bits &&
           dtype.lanes == 1;
  };
  if (element == "f32")
    return is(Code::Float, 32);
  if (element == "f64")
    return is(Code::Float, 64);
  if (element == "f16")
    return is(Code::Float, 16);
  if (element == "bf16")
    return is(Code::Bfloat, 16) || is(Code::UInt, 16);
  // DLPack 1.1 codes kDLFloat8_e4m3fn (10) and kDLFloat8_e5m2 (12).
  if (element == "f8E4M3FN")
    return dtype.code == 10 || is(Code::UInt, 8);
  if (element == "f8E5M2")
    return dtype.code == 12 || is(Code::UInt, 8);
  if (element == "i4")
    return is(Code::UInt, 8) || is(Code::Int, 8);
  if (element == "i1")
    return is(Code::Bool, 8);
  if (element.size() > 1 && element[0] == 'i')
    return is(Code::Int, std::atoi(element.c_str() + 1));
  return false;
}

ArgSpec tessera::python::parseSpec(const std::string &spec) {
  ArgSpec parsed;
  if (spec.rfind("view:", 0) == 0) {
    parsed.view = true;
    size_t colon = spec.rfind(':');
    parsed.element = spec.substr(5, colon - 5);
    parsed.rank = std::atoll(spec.c_str() + colon + 1);
  } else {
    parsed.element = spec.substr(spec.find(':') + 1);
  }
  return parsed;
}

/// `object` as a view of `spec` for a launch on `device`.
/// The runtime's dtype of a view element (UNSPECIFIED for those it does
/// not name).
static tessera_dtype dtypeOf(const std::string &element) {
  static const std::pair<const char *, tessera_dtype> kDTypes[] = {
      {"f32", TESSERA_DTYPE_F32},       {"f16", TESSERA_DTYPE_F16},
      {"bf16", TESSERA_DTYPE_BF16},     {"f8E4M3FN", TESSERA_DTYPE_F8E4M3FN},
      {"f8E5M2", TESSERA_DTYPE_F8E5M2}, {"i4", TESSERA_DTYPE_I4},
      {"i8", TESSERA_DTYPE_I8},         {"i32", TESSERA_DTYPE_I32},
      {"i64", TESSERA_DTYPE_I64}};
  for (const auto &[name, dtype] : kDTypes)
    if (element == name)
      return dtype;
  return TESSERA_DTYPE_UNSPECIFIED;
}

tessera_view tessera::python::toView(nb::handle object, const ArgSpec &spec,
                                     const PyDevice &device,
                                     const std::string &what) {
  nb::ndarray<> array;
  if (!nb::try_cast(object, array))
    throw nb::type_error((what + " takes an array or tensor (DLPack), not " +
                          nb::type_name(object.type()).c_str())
                             .c_str());
  if (!holds(array.dtype(), spec.element))
    throw nb::type_error((what + " takes " + spec.element +
                          " elements; the array's dtype (DLPack code " +
                          std::to_string(array.dtype().code) + ", " +
                          std::to_string(array.dtype().bits) +
                          " bits) does not hold them")
                             .c_str());
  if (int64_t(array.ndim()) != spec.rank)
    throw nb::value_error((what + " takes rank " + std::to_string(spec.rank) +
                           "; the array has rank " +
                           std::to_string(array.ndim()))
                              .c_str());
  if (!reachable(array, device.kind(), device.ordinal))
    throw nb::value_error((what + ": the array is on DLPack device " +
                           std::to_string(array.device_type()) + ":" +
                           std::to_string(array.device_id()) +
                           ", not on the launch's device")
                              .c_str());
  tessera_view view{};
  view.data = array.data();
  view.dtype = dtypeOf(spec.element);
  view.rank = spec.rank;
  for (int64_t d = 0; d < spec.rank; ++d) {
    view.sizes[d] = int64_t(array.shape(d));
    view.strides[d] = array.stride(d);
    if (view.strides[d] < 0)
      throw nb::value_error(
          (what + ": negative strides are not views").c_str());
  }
  if (spec.rank > 0 && view.sizes[spec.rank - 1] > 1 &&
      view.strides[spec.rank - 1] != 1)
    throw nb::value_error(
        (what + ": the innermost dimension must be contiguous (stride 1)")
            .c_str());
  // int4 codes: two per byte along the innermost dimension.
  if (spec.element == "i4" && spec.rank > 0)
    view.sizes[spec.rank - 1] *= 2;
  return view;
}

/// A scalar argument's bytes in `storage`.
void tessera::python::toScalar(nb::handle object, const ArgSpec &spec,
                               const std::string &what, uint64_t &storage) {
  const std::string &type = spec.element;
  storage = 0;
  bool isFloat =
      type == "f32" || type == "f64" || type == "f16" || type == "bf16";
  if (isFloat) {
    if (!nb::isinstance<nb::float_>(object) &&
        !nb::isinstance<nb::int_>(object))
      throw nb::type_error((what + " takes a float").c_str());
    double value = nb::cast<double>(object);
    if (type == "f64") {
      std::memcpy(&storage, &value, 8);
    } else {
      float f = float(value);
      if (type == "f32")
        std::memcpy(&storage, &f, 4);
      else
        storage = type == "f16" ? tessera::toF16(f) : tessera::toBF16(f);
    }
    return;
  }
  if (type == "i1") {
    if (!nb::isinstance<nb::bool_>(object) && !nb::isinstance<nb::int_>(object))
      throw nb::type_error((what + " takes a bool").c_str());
    storage = nb::cast<bool>(object) ? 1 : 0;
    return;
  }
  if (!nb::isinstance<nb::int_>(object) || nb::isinstance<nb::bool_>(object))
    throw nb::type_error((what + " takes an int").c_str());
  int64_t value;
  if (!nb::try_cast(object, value))
    throw nb::value_error((what + ": out of the range of i64").c_str());
  unsigned width = type == "index" ? 64 : std::atoi(type.c_str() + 1);
  if (width < 64) {
    // Signless: a value fits when it is in range as a signed or an unsigned
    // integer of the width.
    int64_t low = -(int64_t(1) << (width - 1));
    int64_t high = (int64_t(1) << width) - 1;
    if (value < low || value > high)
      throw nb::value_error(
          (what + ": " + std::to_string(value) + " does not fit in " + type)
              .c_str());
  }
  size_t bytes = width <= 8 ? 1 : width <= 16 ? 2 : width <= 32 ? 4 : 8;
  std::memcpy(&storage, &value, bytes); // little-endian
}
