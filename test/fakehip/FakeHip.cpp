//===- FakeHip.cpp - A stand-in libamdhip64.so for the runtime's tests ----===//
//
// The HIP module API functions the runtime loads (runtime/src/HipDriver.cpp)
// over host memory, so that the runtime's HIP path (device properties and
// the gcnArchName target ID, image choice, code object loading, launches
// with descriptor fields as parameters, copies, streams and events) runs
// where there is no AMD GPU: a test puts this library's directory first in
// LD_LIBRARY_PATH. Device memory is host memory. Loading accepts only AMDGPU
// ELF code objects; launches run only the kernels this file knows, from
// their parameters:
//   scale(X, Y, factor): Y[i] = factor * X[i], 64 elements per program
// (test/unit/Inputs/scale.mlir). FAKE_HIP_ARCH sets the target ID (default
// gfx942:sramecc+:xnack-), FAKE_HIP_DEVICES the device count (default 1),
// and FAKE_HIP_LOG names a file that receives one line per load and launch.
//
//===----------------------------------------------------------------------===//

#include "../fakecuda/FakeDriver.h"

namespace {
using fake::env;
using fake::Event;
void log(const std::string &line) { fake::log("FAKE_HIP_LOG", line); }
using hipError = int;
constexpr hipError kSuccess = 0, kInvalidValue = 1, kNoDevice = 100,
                   kInvalidImage = 200, kNotFound = 500;
// hipGetDevicePropertiesR0600's struct: gcnArchName at byte 1160.
constexpr size_t kArchOffset = 1160, kArchLength = 256;

struct Function {
  std::string name;
};
} // namespace

extern "C" {
hipError hipInit(unsigned) { return kSuccess; }
hipError hipGetDeviceCount(int *count) {
  *count = env("FAKE_HIP_DEVICES", 1);
  return *count ? kSuccess : kNoDevice;
}
hipError hipSetDevice(int ordinal) {
  return ordinal >= 0 && ordinal < env("FAKE_HIP_DEVICES", 1) ? kSuccess
                                                              : kInvalidValue;
}
hipError hipDeviceGetName(char *name, int length, int) {
  std::snprintf(name, size_t(length), "Tessera fake HIP device");
  return kSuccess;
}
hipError hipDeviceTotalMem(size_t *bytes, int) {
  *bytes = size_t(1) << 34;
  return kSuccess;
}
hipError hipDeviceGetAttribute(int *value, int attribute, int) {
  switch (attribute) {
  case 63: // multiprocessors (CUs)
    *value = 304;
    return kSuccess;
  case 74: // shared memory (LDS) per block
    *value = 65536;
    return kSuccess;
  }
  return kInvalidValue;
}
hipError hipGetDevicePropertiesR0600(void *properties, int) {
  const char *arch = std::getenv("FAKE_HIP_ARCH");
  std::snprintf(static_cast<char *>(properties) + kArchOffset, kArchLength,
                "%s", arch ? arch : "gfx942:sramecc+:xnack-");
  return kSuccess;
}
hipError hipDeviceSynchronize() { return kSuccess; }

hipError hipModuleLoadData(void **module, const void *image) {
  // An ELF file whose e_machine (bytes 18-19) is EM_AMDGPU (224).
  const auto *bytes = static_cast<const unsigned char *>(image);
  if (std::memcmp(bytes,
                  "\x7f"
                  "ELF",
                  4) != 0 ||
      bytes[18] != 224 || bytes[19] != 0)
    return kInvalidImage;
  *module = new int(0);
  log("load code object");
  return kSuccess;
}
hipError hipModuleUnload(void *module) {
  delete static_cast<int *>(module);
  return kSuccess;
}
hipError hipModuleGetFunction(void **function, void *, const char *name) {
  *function = new Function{name}; // leaked with the module, as a driver's
  return kSuccess;
}
hipError hipModuleLaunchKernel(void *function, unsigned gx, unsigned gy,
                               unsigned gz, unsigned bx, unsigned by,
                               unsigned bz, unsigned shared, void *,
                               void **params, void **extra) {
  auto *f = static_cast<Function *>(function);
  if (!params || extra || shared > 65536)
    return kInvalidValue;
  log(fake::launchLine(f->name, gx, gy, gz, bx, by, bz, shared));
  if (f->name == "scale") {
    fake::runScale(params, gx);
    return kSuccess;
  }
  return kNotFound;
}

hipError hipMalloc(void **pointer, size_t bytes) {
  *pointer = std::malloc(bytes);
  return *pointer ? kSuccess : 2; // out of memory
}
hipError hipFree(void *pointer) {
  std::free(pointer);
  return kSuccess;
}
hipError hipMemcpyHtoD(void *to, const void *from, size_t bytes) {
  std::memcpy(to, from, bytes);
  return kSuccess;
}
hipError hipMemcpyDtoH(void *to, const void *from, size_t bytes) {
  std::memcpy(to, from, bytes);
  return kSuccess;
}
hipError hipMemcpyHtoDAsync(void *to, const void *from, size_t bytes, void *) {
  return hipMemcpyHtoD(to, from, bytes);
}
hipError hipMemcpyDtoHAsync(void *to, const void *from, size_t bytes, void *) {
  return hipMemcpyDtoH(to, from, bytes);
}

hipError hipStreamCreateWithFlags(void **stream, unsigned) {
  *stream = new int(0);
  return kSuccess;
}
hipError hipStreamSynchronize(void *) { return kSuccess; }
hipError hipStreamDestroy(void *stream) {
  delete static_cast<int *>(stream);
  return kSuccess;
}
hipError hipEventCreate(void **event) {
  *event = new Event();
  return kSuccess;
}
hipError hipEventRecord(void *event, void *) {
  static_cast<Event *>(event)->when = std::chrono::steady_clock::now();
  return kSuccess;
}
hipError hipEventSynchronize(void *) { return kSuccess; }
hipError hipEventElapsedTime(float *ms, void *start, void *end) {
  *ms = std::chrono::duration<float, std::milli>(
            static_cast<Event *>(end)->when - static_cast<Event *>(start)->when)
            .count();
  return kSuccess;
}
hipError hipEventDestroy(void *event) {
  delete static_cast<Event *>(event);
  return kSuccess;
}
const char *hipGetErrorName(hipError result) {
  return result == kNoDevice       ? "hipErrorNoDevice"
         : result == kNotFound     ? "hipErrorNotFound"
         : result == kInvalidImage ? "hipErrorInvalidImage"
                                   : "hipErrorInvalidValue";
}
const char *hipGetErrorString(hipError) {
  return "reported by the fake driver";
}
} // extern "C"
