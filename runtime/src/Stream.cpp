//===- Stream.cpp - Buffers, streams and events -----------------*- C++ -*-===//
//
// Host implementations: buffers are aligned host memory; streams run work
// when it is enqueued (so they are always synchronized); events record the
// time at which the stream reached them.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>

using tessera::runtime::fail;
using tessera::runtime::isHostMemory;

struct tessera_buffer {
  tessera_device *device;
  void *data;
  size_t size;
};

struct tessera_stream {
  tessera_device *device;
};

struct tessera_event {
  tessera_device *device;
  bool recorded = false;
  std::chrono::steady_clock::time_point when;
};

static tessera_status requireHost(tessera_device *device) {
  if (!device)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
  if (!isHostMemory(device->kind))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "buffers, streams and events on GPU devices are not "
                "implemented yet");
  return TESSERA_SUCCESS;
}

extern "C" {

tessera_status tesseraBufferCreate(tessera_device *device, size_t bytes,
                                   tessera_buffer **buffer) {
  if (!buffer)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null buffer pointer");
  *buffer = nullptr;
  if (tessera_status status = requireHost(device))
    return status;
  size_t rounded = (std::max<size_t>(bytes, 1) + 63) / 64 * 64;
  void *data = std::aligned_alloc(64, rounded);
  if (!data)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "cannot allocate " + std::to_string(bytes) + " bytes");
  *buffer = new tessera_buffer{device, data, bytes};
  return TESSERA_SUCCESS;
}

void *tesseraBufferData(tessera_buffer *buffer) {
  return buffer ? buffer->data : nullptr;
}

size_t tesseraBufferSize(const tessera_buffer *buffer) {
  return buffer ? buffer->size : 0;
}

static tessera_status checkRange(const tessera_buffer *buffer, size_t offset,
                                 size_t bytes) {
  if (!buffer)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null buffer");
  if (offset > buffer->size || bytes > buffer->size - offset)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + bytes) +
                    ") are outside a buffer of " +
                    std::to_string(buffer->size));
  return TESSERA_SUCCESS;
}

tessera_status tesseraBufferWrite(tessera_buffer *buffer, size_t offset,
                                  const void *source, size_t bytes) {
  if (tessera_status status = checkRange(buffer, offset, bytes))
    return status;
  std::memcpy(static_cast<char *>(buffer->data) + offset, source, bytes);
  return TESSERA_SUCCESS;
}

tessera_status tesseraBufferRead(const tessera_buffer *buffer, size_t offset,
                                 void *destination, size_t bytes) {
  if (tessera_status status = checkRange(buffer, offset, bytes))
    return status;
  std::memcpy(destination, static_cast<const char *>(buffer->data) + offset,
              bytes);
  return TESSERA_SUCCESS;
}

void tesseraBufferDestroy(tessera_buffer *buffer) {
  if (!buffer)
    return;
  std::free(buffer->data);
  delete buffer;
}

tessera_status tesseraStreamCreate(tessera_device *device,
                                   tessera_stream **stream) {
  if (!stream)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream pointer");
  *stream = nullptr;
  if (tessera_status status = requireHost(device))
    return status;
  *stream = new tessera_stream{device};
  return TESSERA_SUCCESS;
}

tessera_status tesseraLaunchOnStream(tessera_module *module, const char *kernel,
                                     tessera_grid grid, void *const *args,
                                     tessera_stream *stream) {
  if (!stream)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream");
  return tesseraLaunch(module, kernel, grid, args);
}

tessera_status tesseraStreamSynchronize(tessera_stream *stream) {
  if (!stream)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream");
  return TESSERA_SUCCESS;
}

void tesseraStreamDestroy(tessera_stream *stream) { delete stream; }

tessera_status tesseraEventCreate(tessera_device *device,
                                  tessera_event **event) {
  if (!event)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null event pointer");
  *event = nullptr;
  if (tessera_status status = requireHost(device))
    return status;
  *event = new tessera_event{device};
  return TESSERA_SUCCESS;
}

tessera_status tesseraEventRecord(tessera_event *event,
                                  tessera_stream *stream) {
  if (!event || !stream)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null event or stream");
  event->recorded = true;
  event->when = std::chrono::steady_clock::now();
  return TESSERA_SUCCESS;
}

tessera_status tesseraEventElapsedMs(const tessera_event *start,
                                     const tessera_event *end,
                                     double *milliseconds) {
  if (!start || !end || !milliseconds)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
  if (!start->recorded || !end->recorded)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "both events must be recorded first");
  *milliseconds =
      std::chrono::duration<double, std::milli>(end->when - start->when)
          .count();
  return TESSERA_SUCCESS;
}

void tesseraEventDestroy(tessera_event *event) { delete event; }

} // extern "C"
