//===- Runtime.cpp - Devices and status reporting ---------------*- C++ -*-===//

#include "Internal.h"
#include "emu/Emulator.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>
#include <string>
#include <thread>

namespace {
thread_local std::string lastError;

/// The driver library each GPU device kind is reached through.
const char *driverLibrary(tessera_device_kind kind) {
  return kind == TESSERA_DEVICE_CUDA ? "libcuda.so.1" : "libamdhip64.so";
}
} // namespace

tessera_status tessera::runtime::fail(tessera_status status,
                                      std::string message) {
  lastError = std::move(message);
  return status;
}

using tessera::runtime::fail;

extern "C" {

const char *tesseraStatusName(tessera_status status) {
  switch (status) {
  case TESSERA_SUCCESS:
    return "success";
  case TESSERA_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case TESSERA_ERROR_NO_DRIVER:
    return "no driver";
  case TESSERA_ERROR_NO_DEVICE:
    return "no device";
  case TESSERA_ERROR_INVALID_BUNDLE:
    return "invalid bundle";
  case TESSERA_ERROR_NOT_FOUND:
    return "not found";
  case TESSERA_ERROR_UNSUPPORTED:
    return "unsupported";
  case TESSERA_ERROR_KERNEL:
    return "kernel error";
  }
  return "unknown status";
}

const char *tesseraGetLastError(void) { return lastError.c_str(); }

const char *tesseraDTypeName(tessera_dtype dtype) {
  switch (dtype) {
  case TESSERA_DTYPE_UNSPECIFIED:
    return "";
  case TESSERA_DTYPE_F32:
    return "f32";
  case TESSERA_DTYPE_F16:
    return "f16";
  case TESSERA_DTYPE_BF16:
    return "bf16";
  case TESSERA_DTYPE_F8E4M3FN:
    return "f8E4M3FN";
  case TESSERA_DTYPE_F8E5M2:
    return "f8E5M2";
  case TESSERA_DTYPE_I4:
    return "i4";
  case TESSERA_DTYPE_I8:
    return "i8";
  case TESSERA_DTYPE_I32:
    return "i32";
  case TESSERA_DTYPE_I64:
    return "i64";
  }
  return "";
}

tessera_status tesseraParseDeviceKind(const char *name,
                                      tessera_device_kind *kind) {
  if (!name || !kind)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
  if (!std::strcmp(name, "host"))
    *kind = TESSERA_DEVICE_HOST;
  else if (!std::strcmp(name, "cuda"))
    *kind = TESSERA_DEVICE_CUDA;
  else if (!std::strcmp(name, "hip"))
    *kind = TESSERA_DEVICE_HIP;
  else if (!std::strcmp(name, "emu"))
    *kind = TESSERA_DEVICE_EMULATOR;
  else
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                std::string("unknown device '") + name +
                    "'; expected host, cuda, hip or emu");
  return TESSERA_SUCCESS;
}

tessera_status tesseraDeviceOpen(tessera_device_kind kind,
                                 tessera_device **device) {
  if (!device)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device pointer");
  *device = nullptr;
  void *driver = nullptr;
  if (kind == TESSERA_DEVICE_CUDA || kind == TESSERA_DEVICE_HIP) {
    driver = dlopen(driverLibrary(kind), RTLD_NOW | RTLD_LOCAL);
    if (!driver)
      return fail(TESSERA_ERROR_NO_DRIVER,
                  std::string("cannot load ") + driverLibrary(kind) + ": " +
                      dlerror() + "; is the GPU driver installed?");
  } else if (!tessera::runtime::isHostMemory(kind)) {
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "unknown device kind");
  }
  *device = new tessera_device{
      kind, driver,
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()))};
  return TESSERA_SUCCESS;
}

tessera_status tesseraEmulatorSetRaceDetection(int enabled) {
  tessera::emu::setRaceDetection(enabled != 0);
  return TESSERA_SUCCESS;
}

tessera_status tesseraHostSetThreads(tessera_device *device, int threads) {
  if (!device || !tessera::runtime::isHostMemory(device->kind))
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "not a host device");
  if (threads < 1)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "a host device needs at least one thread, got " +
                    std::to_string(threads));
  device->threads = threads;
  return TESSERA_SUCCESS;
}

int tesseraHostGetThreads(const tessera_device *device) {
  return device ? device->threads : 0;
}

tessera_device_kind tesseraDeviceKind(const tessera_device *device) {
  return device ? device->kind : TESSERA_DEVICE_HOST;
}

void tesseraDeviceClose(tessera_device *device) {
  if (!device)
    return;
  if (device->driver)
    dlclose(device->driver);
  delete device;
}

} // extern "C"
