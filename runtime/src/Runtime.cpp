//===- Runtime.cpp - Devices and status reporting ---------------*- C++ -*-===//

#include "Device.h"
#include "emu/Emulator.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <system_error>

namespace {
thread_local std::string lastError;
} // namespace

tessera_status tessera::runtime::fail(tessera_status status,
                                      std::string message) {
  lastError = std::move(message);
  return status;
}

tessera_status tessera::runtime::failOnException() noexcept {
  tessera_status status = TESSERA_ERROR_INTERNAL;
  std::string_view what = "an exception of unknown type";
  try {
    throw;
  } catch (const std::bad_alloc &) {
    status = TESSERA_ERROR_OUT_OF_RESOURCES;
    what = "out of memory";
  } catch (const std::length_error &error) {
    status = TESSERA_ERROR_OUT_OF_RESOURCES;
    what = error.what();
  } catch (const std::system_error &error) {
    // Threads that cannot be started (streams, worker pools).
    status = TESSERA_ERROR_OUT_OF_RESOURCES;
    what = error.what();
  } catch (const std::exception &error) {
    what = error.what();
  } catch (...) {
  }
  try {
    lastError = (status == TESSERA_ERROR_INTERNAL ? "internal error: "
                                                  : "out of resources: ") +
                std::string(what);
  } catch (...) {
    lastError.clear(); // no memory for the message either
  }
  return status;
}

using namespace tessera::runtime;

void tessera::runtime::copyName(char *field, size_t size,
                                std::string_view text) {
  size_t n = std::min(size - 1, text.size());
  std::memcpy(field, text.data(), n);
  field[n] = '\0';
}

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
  case TESSERA_ERROR_OUT_OF_RESOURCES:
    return "out of resources";
  case TESSERA_ERROR_INTERNAL:
    return "internal error";
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
  return guarded([&]() -> tessera_status {
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
  });
}

tessera_status tesseraDeviceCount(tessera_device_kind kind, int *count) {
  return guarded([&]() -> tessera_status {
    if (!count)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null count pointer");
    *count = 0;
    switch (kind) {
    case TESSERA_DEVICE_HOST:
    case TESSERA_DEVICE_EMULATOR:
      return hostDeviceCount(kind, *count);
    case TESSERA_DEVICE_CUDA:
    case TESSERA_DEVICE_HIP:
      return gpuDeviceCount(kind, *count);
    }
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "unknown device kind " + std::to_string(kind));
  });
}

tessera_status tesseraDeviceOpen(tessera_device_kind kind, int ordinal,
                                 tessera_device **device) {
  return guarded([&]() -> tessera_status {
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device pointer");
    *device = nullptr;
    if (ordinal < 0)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "device ordinal " + std::to_string(ordinal) + " is negative");
    std::unique_ptr<Backend> backend;
    tessera_status status;
    switch (kind) {
    case TESSERA_DEVICE_HOST:
    case TESSERA_DEVICE_EMULATOR:
      status = openHost(kind, ordinal, backend);
      break;
    case TESSERA_DEVICE_CUDA:
    case TESSERA_DEVICE_HIP:
      status = openGpu(kind, ordinal, backend);
      break;
    default:
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "unknown device kind " + std::to_string(kind));
    }
    if (status)
      return status;
    *device = new tessera_device{std::move(backend)};
    return TESSERA_SUCCESS;
  });
}

tessera_status tesseraDeviceGetProperties(const tessera_device *device,
                                          tessera_device_properties *props) {
  return guarded([&]() -> tessera_status {
    if (!device || !props)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    *props = {};
    return device->backend->properties(*props);
  });
}

tessera_status tesseraDeviceSynchronize(tessera_device *device) {
  return guarded([&]() -> tessera_status {
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
    return device->backend->synchronize(nullptr);
  });
}

tessera_status tesseraEmulatorSetRaceDetection(int enabled) {
  return guarded([&]() -> tessera_status {
    tessera::emu::setRaceDetection(enabled != 0);
    return TESSERA_SUCCESS;
  });
}

tessera_status tesseraEmulatorSetChip(tessera_device *device,
                                      const char *chip) {
  return guarded([&]() -> tessera_status {
    if (!device || !chip)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    return device->backend->setChip(chip);
  });
}

tessera_status tesseraDeviceSetMaxPrograms(tessera_device *device,
                                           int64_t programs) {
  return guarded([&]() -> tessera_status {
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
    if (programs < 0 || programs > (int64_t(1) << 31) - 1)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "the most program instances of a persistent launch must "
                  "be 0 (the device's resident count) to 2^31 - 1, not " +
                      std::to_string(programs));
    device->maxPrograms = programs;
    return TESSERA_SUCCESS;
  });
}

tessera_status tesseraHostSetThreads(tessera_device *device, int threads) {
  return guarded([&]() -> tessera_status {
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
    if (threads < 1 || threads > TESSERA_MAX_HOST_THREADS)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "a host or emulator device takes 1 to " +
                      std::to_string(TESSERA_MAX_HOST_THREADS) +
                      " worker threads, not " + std::to_string(threads));
    return device->backend->setThreads(threads);
  });
}

int tesseraHostGetThreads(const tessera_device *device) {
  return device ? device->backend->threads() : 0;
}

tessera_device_kind tesseraDeviceKind(const tessera_device *device) {
  return device ? device->backend->kind() : TESSERA_DEVICE_HOST;
}

void tesseraDeviceClose(tessera_device *device) {
  if (device)
    release(device);
}

} // extern "C"
