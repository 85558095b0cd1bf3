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
  /* Memory, threads or another resource of the host or the device ran out. */
  TESSERA_ERROR_OUT_OF_RESOURCES = 8,
  /* A fault of the runtime itself (tesseraGetLastError says what). */
  TESSERA_ERROR_INTERNAL = 9,
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

/* How many devices of `kind` there are: 1 for the host and the emulator;
 * for CUDA and HIP what the driver reports (TESSERA_ERROR_NO_DRIVER without
 * one; 0 devices is success). */
tessera_status tesseraDeviceCount(tessera_device_kind kind, int *count);

/* Opens device `ordinal` (from 0) of `kind`. CUDA and HIP are reached
 * through dlopen of their driver library (libcuda.so.1, libamdhip64.so), so
 * a machine without one gets TESSERA_ERROR_NO_DRIVER. */
tessera_status tesseraDeviceOpen(tessera_device_kind kind, int ordinal,
                                 tessera_device **device);
/* The kind of a device (TESSERA_DEVICE_HOST for a null device). */
tessera_device_kind tesseraDeviceKind(const tessera_device *device);
/* Waits for the work of every stream of the device. */
tessera_status tesseraDeviceSynchronize(tessera_device *device);
/* Closes the device. Its modules, buffers, streams and events stay usable:
 * the device is released with the last of them. */
void tesseraDeviceClose(tessera_device *device);

typedef struct tessera_device_properties {
  char name[256];
  /* What its images are compiled for: "host", "emu-<chip>" ("emu" before
   * a chip is set), "sm_90" (CUDA), "gfx942:sramecc+:xnack-" (HIP). */
  char arch[64];
  uint64_t memory_bytes;
  /* SMs or CUs; the worker threads of a host or emulator device. */
  int32_t multiprocessors;
  /* The most dynamic shared memory one block may use (0 on the host). */
  int64_t shared_bytes_per_block;
} tessera_device_properties;

tessera_status tesseraDeviceGetProperties(const tessera_device *device,
                                          tessera_device_properties *props);

/* Race detection of the emulator, for the whole process (default off):
 * launches on emulator devices then fail with TESSERA_ERROR_KERNEL and a
 * message naming both accesses when two threads of a block touch one shared
 * word, at least one writing, with no barrier between. */
tessera_status tesseraEmulatorSetRaceDetection(int enabled);

/* The chip an emulator device emulates (sm_80, sm_90a, gfx90a or gfx942):
 * modules then load the bundle's emu-<chip> image. Unset, they load its
 * first emulator image. */
tessera_status tesseraEmulatorSetChip(tessera_device *device, const char *chip);

/* The most program instances a launch of a persistent kernel starts on
 * `device`: 0 (the default) for as many as the device keeps resident, its
 * multiprocessors times the kernel's blocks per multiprocessor (CUDA's and
 * HIP's occupancy; the worker threads of a host or emulator device). */
tessera_status tesseraDeviceSetMaxPrograms(tessera_device *device,
                                           int64_t programs);

/* Worker threads of a host or emulator device (default: all cores), one
 * persistent pool per device: 1 to TESSERA_MAX_HOST_THREADS. */
#define TESSERA_MAX_HOST_THREADS 1024
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
 * or "scalar:<type>" (MLIR type syntax: bf16, f32, i32, index, ...).
 * `cluster` is the thread-block cluster shape the loaded image launches
 * with (sm_90a kernels declared with `cluster(...)`), {1, 1, 1} for none:
 * the grid must then be a whole number of clusters in each dimension
 * (but for persistent kernels, whose programs the runtime starts). */
typedef struct tessera_kernel_info {
  const char *name;
  int64_t threads;
  int64_t shared_bytes;
  size_t num_args;
  const char *const *args;
  int64_t cluster[3];
  /* A persistent kernel (tile-persistent): it is launched like the others,
   * over the grid of its tiles, and the runtime starts at most as many
   * program instances as the device keeps resident
   * (tesseraDeviceSetMaxPrograms), each looping over the tiles. */
  int32_t persistent;
  /* The arguments' names in the source (num_args of them, "" where the
   * bundle names none), for messages. */
  const char *const *arg_names;
} tessera_kernel_info;

typedef struct tessera_module tessera_module;
typedef struct tessera_kernel tessera_kernel;
typedef struct tessera_stream tessera_stream;

/* Loads a bundle (tessera-compile's output) on a device: the image for the
 * device's arch (for CUDA, an exact match first, then a cubin of the same
 * major version and an older minor; not across "a" variants). No matching
 * image is TESSERA_ERROR_INVALID_BUNDLE naming the images present. */
tessera_status tesseraModuleLoad(tessera_device *device, const void *bundle,
                                 size_t size, tessera_module **module);
/* The same from a file: a regular file of at most 4 GiB (a directory or a
 * device is TESSERA_ERROR_INVALID_ARGUMENT). */
tessera_status tesseraModuleLoadFile(tessera_device *device, const char *path,
                                     tessera_module **module);
/* Releases the module and its kernels, after waiting for the work queued on
 * its device (the streams keep their errors for tesseraStreamSynchronize). */
void tesseraModuleUnload(tessera_module *module);
/* The arch of the image the module loaded ("" for a null module). */
const char *tesseraModuleArch(const tessera_module *module);

/* Kernels are owned by their module. */
size_t tesseraModuleKernelCount(const tessera_module *module);
tessera_status tesseraModuleGetKernelAt(const tessera_module *module,
                                        size_t index, tessera_kernel **kernel);
tessera_status tesseraModuleGetKernel(const tessera_module *module,
                                      const char *name,
                                      tessera_kernel **kernel);
tessera_status tesseraKernelGetInfo(const tessera_kernel *kernel,
                                    tessera_kernel_info *info);

/* Runs `kernel` over `grid`. args[i] points to a tessera_view for a view
 * argument and to the value (of the declared type; i1 as a one-byte bool)
 * for a scalar; both are copied, so they may change once this returns.
 * A view with elements needs a non-null data pointer. A kernel with a
 * cluster shape is launched in clusters (CUDA: cuLaunchKernelEx).
 * With a null stream the call returns when the kernel has finished and
 * reports its errors; on a stream it is queued, and
 * tesseraStreamSynchronize reports them. */
tessera_status tesseraLaunch(tessera_kernel *kernel, tessera_grid grid,
                             void *const *args, tessera_stream *stream);

/*===-------------------------------------------------------------------===*
 * Buffers, streams and events
 *===-------------------------------------------------------------------===*/

/* Device memory. On the host and the emulator it is ordinary memory, 64-byte
 * aligned; on a GPU the data pointer is a device address, for views only.
 * tesseraBufferWrite and tesseraBufferRead are synchronous and do not wait
 * for streams: synchronize them first, or use the Async forms.
 * tesseraBufferDestroy waits for the device's queued work first (which may
 * still use the buffer), without taking the streams' errors. */
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

/* An in-order queue of work that runs asynchronously on every device kind
 * (on the host and the emulator, a thread per stream feeding the device's
 * worker pool). After a failure the stream skips its queued launches and
 * copies (events are still marked) until tesseraStreamSynchronize reports
 * the failure. */
tessera_status tesseraStreamCreate(tessera_device *device,
                                   tessera_stream **stream);
/* A stream over a CUDA CUstream or HIP hipStream_t that the caller created
 * and keeps alive until the wrapper is destroyed (PyTorch's current
 * stream, say; null is the driver's default stream): launches and copies
 * on the wrapper are queued on it, after the caller's own work.
 * tesseraStreamDestroy waits for it and releases the wrapper only. Host and
 * emulator devices have no such streams: TESSERA_ERROR_UNSUPPORTED. */
tessera_status tesseraStreamWrap(tessera_device *device, void *native,
                                 tessera_stream **stream);
tessera_status tesseraStreamSynchronize(tessera_stream *stream);
/* Waits for the stream, then releases it. */
void tesseraStreamDestroy(tessera_stream *stream);

/* Copies queued on a stream: the host memory must stay valid, and unread
 * or unchanged, until the stream has passed them. */
tessera_status tesseraBufferWriteAsync(tessera_buffer *buffer, size_t offset,
                                       const void *source, size_t bytes,
                                       tessera_stream *stream);
tessera_status tesseraBufferReadAsync(const tessera_buffer *buffer,
                                      size_t offset, void *destination,
                                      size_t bytes, tessera_stream *stream);

/* A point in a stream; two events give the time between them, once the
 * stream has passed both (tesseraEventElapsedMs waits for that). An event
 * may be destroyed while its stream has yet to reach it. */
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
