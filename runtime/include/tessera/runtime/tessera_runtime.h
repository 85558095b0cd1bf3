/*===- tessera_runtime.h - Tessera runtime C API ------------------*- C -*-===*\
|*                                                                            *|
|* The runtime loads Tessera bundles and launches their kernels on a device.  *|
|* Every call returns a status; tesseraGetLastError() explains failures.      *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TESSERA_RUNTIME_TESSERA_RUNTIME_H
#define TESSERA_RUNTIME_TESSERA_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

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
  /* A bundle is malformed or has no image for the device. */
  TESSERA_ERROR_INVALID_BUNDLE = 4,
  /* The named kernel is not in the module. */
  TESSERA_ERROR_NOT_FOUND = 5,
  /* The device cannot do this (yet). */
  TESSERA_ERROR_UNSUPPORTED = 6,
  /* The kernel misbehaved where the device can tell (the emulator: a data
   * race on shared memory, an access outside it). */
  TESSERA_ERROR_KERNEL = 7,
} tessera_status;

typedef enum tessera_device_kind {
  TESSERA_DEVICE_HOST = 0,
  TESSERA_DEVICE_CUDA = 1,
  TESSERA_DEVICE_HIP = 2,
  /* GPU kernels' device code run on the host CPU: a bundle's emu-<chip>
   * image (tessera-compile --target=sm_80 makes one), threads of a block as
   * fibers. Memory, streams and launches are the host's. */
  TESSERA_DEVICE_EMULATOR = 3,
} tessera_device_kind;

typedef struct tessera_device tessera_device;

/* A short, constant name for a status code. */
const char *tesseraStatusName(tessera_status status);

/* The message of the last failed call on this thread ("" if none). */
const char *tesseraGetLastError(void);

/* Parses "host", "cuda", "hip" or "emu". */
tessera_status tesseraParseDeviceKind(const char *name,
                                      tessera_device_kind *kind);

/* Opens a device. CUDA and HIP are reached through dlopen of the driver
 * library, so a machine without one gets TESSERA_ERROR_NO_DRIVER. */
tessera_status tesseraDeviceOpen(tessera_device_kind kind,
                                 tessera_device **device);
/* The kind of a device (TESSERA_DEVICE_HOST for a null device). */
tessera_device_kind tesseraDeviceKind(const tessera_device *device);
void tesseraDeviceClose(tessera_device *device);

/* Race detection of the emulator, for the whole process (default off):
 * launches on emulator devices then fail with TESSERA_ERROR_KERNEL and a
 * message naming both accesses when two threads of a block touch one shared
 * word, at least one writing, with no barrier between. */
tessera_status tesseraEmulatorSetRaceDetection(int enabled);

/* Worker threads of a host or emulator device (default: all cores). */
tessera_status tesseraHostSetThreads(tessera_device *device, int threads);
int tesseraHostGetThreads(const tessera_device *device);

/*===-------------------------------------------------------------------===*
 * Modules and launches
 *===-------------------------------------------------------------------===*/

#define TESSERA_MAX_RANK 4

/* Element types of views. UNSPECIFIED skips the launch-time check. */
typedef enum tessera_dtype {
  TESSERA_DTYPE_UNSPECIFIED = 0,
  TESSERA_DTYPE_F32,
  TESSERA_DTYPE_F16,
  TESSERA_DTYPE_BF16,
  TESSERA_DTYPE_F8E4M3FN,
  TESSERA_DTYPE_F8E5M2,
  TESSERA_DTYPE_I4,
  TESSERA_DTYPE_I8,
  TESSERA_DTYPE_I32,
  TESSERA_DTYPE_I64,
} tessera_dtype;

/* The MLIR spelling of a dtype ("bf16", "i4", ...), "" for UNSPECIFIED. */
const char *tesseraDTypeName(tessera_dtype dtype);

/* A view of memory passed to a kernel: `rank` sizes and strides, counted in
 * elements, the innermost stride 1. For int4 views, sizes count codes
 * (two per byte, low nibble first) and the outer strides count bytes. */
typedef struct tessera_view {
  void *data;
  int64_t rank;
  int64_t sizes[TESSERA_MAX_RANK];
  int64_t strides[TESSERA_MAX_RANK];
  tessera_dtype dtype; /* checked against the kernel's signature if set */
} tessera_view;

typedef struct tessera_grid {
  int64_t x, y, z;
} tessera_grid;

/* What a bundle says about one kernel. `args[i]` is "view:<element>:<rank>"
 * or "scalar:<type>" (MLIR type syntax: bf16, f32, i32, index, ...). */
typedef struct tessera_kernel_info {
  const char *name;
  int64_t threads;
  int64_t shared_bytes;
  size_t num_args;
  const char *const *args;
} tessera_kernel_info;

typedef struct tessera_module tessera_module;

/* Loads the device's image from a bundle (tessera-compile's output). */
tessera_status tesseraModuleLoad(tessera_device *device, const void *bundle,
                                 size_t size, tessera_module **module);
tessera_status tesseraModuleLoadFile(tessera_device *device, const char *path,
                                     tessera_module **module);
void tesseraModuleUnload(tessera_module *module);

size_t tesseraModuleKernelCount(const tessera_module *module);
tessera_status tesseraModuleKernel(const tessera_module *module, size_t index,
                                   tessera_kernel_info *info);
tessera_status tesseraModuleFindKernel(const tessera_module *module,
                                       const char *name,
                                       tessera_kernel_info *info);

/* Runs `kernel` over `grid`. args[i] points to a tessera_view for a view
 * argument and to the value (of the declared type) for a scalar. Returns
 * when every program instance has finished. */
tessera_status tesseraLaunch(tessera_module *module, const char *kernel,
                             tessera_grid grid, void *const *args);

/*===-------------------------------------------------------------------===*
 * Buffers, streams and events
 *===-------------------------------------------------------------------===*/

/* Device memory. On the host it is ordinary memory, 64-byte aligned. */
typedef struct tessera_buffer tessera_buffer;
tessera_status tesseraBufferCreate(tessera_device *device, size_t bytes,
                                   tessera_buffer **buffer);
/* The buffer's address as kernels see it (for a tessera_view's data). */
void *tesseraBufferData(tessera_buffer *buffer);
size_t tesseraBufferSize(const tessera_buffer *buffer);
tessera_status tesseraBufferWrite(tessera_buffer *buffer, size_t offset,
                                  const void *source, size_t bytes);
tessera_status tesseraBufferRead(const tessera_buffer *buffer, size_t offset,
                                 void *destination, size_t bytes);
void tesseraBufferDestroy(tessera_buffer *buffer);

/* An in-order queue of launches. On the host, work runs when it is
 * enqueued, so a stream is always synchronized. */
typedef struct tessera_stream tessera_stream;
tessera_status tesseraStreamCreate(tessera_device *device,
                                   tessera_stream **stream);
tessera_status tesseraLaunchOnStream(tessera_module *module, const char *kernel,
                                     tessera_grid grid, void *const *args,
                                     tessera_stream *stream);
tessera_status tesseraStreamSynchronize(tessera_stream *stream);
void tesseraStreamDestroy(tessera_stream *stream);

/* A point in a stream; two events give the time between them. */
typedef struct tessera_event tessera_event;
tessera_status tesseraEventCreate(tessera_device *device,
                                  tessera_event **event);
tessera_status tesseraEventRecord(tessera_event *event, tessera_stream *stream);
tessera_status tesseraEventElapsedMs(const tessera_event *start,
                                     const tessera_event *end,
                                     double *milliseconds);
void tesseraEventDestroy(tessera_event *event);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TESSERA_RUNTIME_TESSERA_RUNTIME_H */
