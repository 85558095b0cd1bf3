/*===- tessera_runtime.h - Tessera runtime C API ------------------*- C -*-===*\
|*                                                                            *|
|* The runtime loads Tessera bundles and launches their kernels on a device.  *|
|* Every call returns a status; tesseraGetLastError() explains failures.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_RUNTIME_TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_TESSERA_RUNTIME_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tessera_status {
  TESSERA_SUCCESS = 0,
  TESSERA_ERROR_INVALID_ARGUMENT = 1,
  /* The device kind needs a driver library that is not installed. */
  TESSERA_ERROR_NO_DRIVER = 2,
  /* The driver loaded but reports no usable device. */
  TESSERA_ERROR_NO_DEVICE = 3,
} tessera_status;

typedef enum tessera_device_kind {
  TESSERA_DEVICE_HOST = 0,
  TESSERA_DEVICE_CUDA = 1,
  TESSERA_DEVICE_HIP = 2,
} tessera_device_kind;

typedef struct tessera_device tessera_device;

/* A short, constant name for a status code. */
const char *tesseraStatusName(tessera_status status);

/* The message of the last failed call on this thread ("" if none). */
const char *tesseraGetLastError(void);

/* Parses "host", "cuda" or "hip". */
tessera_status tesseraParseDeviceKind(const char *name,
                                      tessera_device_kind *kind);

/* Opens a device. CUDA and HIP are reached through dlopen of the driver
 * library, so a machine without one gets TESSERA_ERROR_NO_DRIVER. */
tessera_status tesseraDeviceOpen(tessera_device_kind kind,
                                 tessera_device **device);
tessera_device_kind tesseraDeviceKind(const tessera_device *device);
void tesseraDeviceClose(tessera_device *device);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_TESSERA_RUNTIME_H */
