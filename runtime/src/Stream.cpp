//===- Stream.cpp - Buffers, streams and events -----------------*- C++ -*-===//
//
// The C API of device memory, streams and events: arguments are checked
// here, the work is the device backend's.
//
//===----------------------------------------------------------------------===//

#include "Device.h"

using namespace tessera::runtime;

namespace {
tessera_status checkRange(const tessera_buffer *buffer, size_t offset,
                          size_t bytes, const void *host) {
  if (!buffer || !host)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null buffer or host pointer");
  if (offset > buffer->size || bytes > buffer->size - offset)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "bytes [" + std::to_string(offset) + ", " +
                    std::to_string(offset + bytes) +
                    ") are outside a buffer of " +
                    std::to_string(buffer->size));
  return TESSERA_SUCCESS;
}

/// A copy's bytes lie inside the buffer, and its stream (if any) is the
/// buffer's device's.
tessera_status checkCopy(const tessera_buffer *buffer, size_t offset,
                         size_t bytes, const void *host,
                         const tessera_stream *stream) {
  if (tessera_status status = checkRange(buffer, offset, bytes, host))
    return status;
  if (stream && stream->device != buffer->device)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "the stream belongs to another device than the buffer");
  return TESSERA_SUCCESS;
}

tessera_status write(tessera_buffer *buffer, size_t offset, const void *source,
                     size_t bytes, tessera_stream *stream) {
  if (tessera_status status = checkCopy(buffer, offset, bytes, source, stream))
    return status;
  return buffer->device->backend->copy(
      static_cast<char *>(buffer->data) + offset, source, bytes,
      Copy::HostToDevice, stream ? stream->stream.get() : nullptr);
}

tessera_status read(const tessera_buffer *buffer, size_t offset,
                    void *destination, size_t bytes, tessera_stream *stream) {
  if (tessera_status status =
          checkCopy(buffer, offset, bytes, destination, stream))
    return status;
  return buffer->device->backend->copy(
      destination, static_cast<const char *>(buffer->data) + offset, bytes,
      Copy::DeviceToHost, stream ? stream->stream.get() : nullptr);
}
} // namespace

/// A tessera_stream of `device` over the backend stream that `make` gives.
template <typename Make>
static tessera_status newStream(tessera_device *device, tessera_stream **stream,
                                Make make) {
  return guarded([&]() -> tessera_status {
    if (!stream)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream pointer");
    *stream = nullptr;
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
    std::unique_ptr<Stream> made;
    if (tessera_status status = make(*device->backend, made))
      return status;
    *stream = new tessera_stream{device, std::move(made)};
    retain(device);
    return TESSERA_SUCCESS;
  });
}

extern "C" {

tessera_status tesseraBufferCreate(tessera_device *device, size_t bytes,
                                   tessera_buffer **buffer) {
  return guarded([&]() -> tessera_status {
    if (!buffer)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null buffer pointer");
    *buffer = nullptr;
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
    void *data = nullptr;
    if (tessera_status status = device->backend->allocate(bytes, &data))
      return status;
    *buffer = new tessera_buffer{device, data, bytes};
    retain(device);
    return TESSERA_SUCCESS;
  });
}

void *tesseraBufferData(tessera_buffer *buffer) {
  return buffer ? buffer->data : nullptr;
}

size_t tesseraBufferSize(const tessera_buffer *buffer) {
  return buffer ? buffer->size : 0;
}

tessera_status tesseraBufferWrite(tessera_buffer *buffer, size_t offset,
                                  const void *source, size_t bytes) {
  return guarded([&]() -> tessera_status {
    return write(buffer, offset, source, bytes, nullptr);
  });
}

tessera_status tesseraBufferRead(const tessera_buffer *buffer, size_t offset,
                                 void *destination, size_t bytes) {
  return guarded([&]() -> tessera_status {
    return read(buffer, offset, destination, bytes, nullptr);
  });
}

tessera_status tesseraBufferWriteAsync(tessera_buffer *buffer, size_t offset,
                                       const void *source, size_t bytes,
                                       tessera_stream *stream) {
  return guarded([&]() -> tessera_status {
    if (!stream)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream");
    return write(buffer, offset, source, bytes, stream);
  });
}

tessera_status tesseraBufferReadAsync(const tessera_buffer *buffer,
                                      size_t offset, void *destination,
                                      size_t bytes, tessera_stream *stream) {
  return guarded([&]() -> tessera_status {
    if (!stream)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream");
    return read(buffer, offset, destination, bytes, stream);
  });
}

void tesseraBufferDestroy(tessera_buffer *buffer) {
  if (!buffer)
    return;
  tessera_device *device = buffer->device;
  // Queued copies and launches may still use the memory.
  device->backend->waitIdle();
  device->backend->release(buffer->data);
  delete buffer;
  release(device);
}

tessera_status tesseraStreamCreate(tessera_device *device,
                                   tessera_stream **stream) {
  return newStream(device, stream,
                   [](Backend &backend, std::unique_ptr<Stream> &made) {
                     return backend.createStream(made);
                   });
}

tessera_status tesseraStreamWrap(tessera_device *device, void *native,
                                 tessera_stream **stream) {
  return newStream(device, stream,
                   [&](Backend &backend, std::unique_ptr<Stream> &made) {
                     return backend.wrapStream(native, made);
                   });
}

tessera_status tesseraStreamSynchronize(tessera_stream *stream) {
  return guarded([&]() -> tessera_status {
    if (!stream)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null stream");
    return stream->device->backend->synchronize(stream->stream.get());
  });
}

void tesseraStreamDestroy(tessera_stream *stream) {
  if (!stream)
    return;
  tessera_device *device = stream->device;
  device->backend->synchronize(stream->stream.get());
  delete stream;
  release(device);
}

tessera_status tesseraEventCreate(tessera_device *device,
                                  tessera_event **event) {
  return guarded([&]() -> tessera_status {
    if (!event)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null event pointer");
    *event = nullptr;
    if (!device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null device");
    std::unique_ptr<Event> created;
    if (tessera_status status = device->backend->createEvent(created))
      return status;
    *event = new tessera_event{device, std::move(created)};
    retain(device);
    return TESSERA_SUCCESS;
  });
}

tessera_status tesseraEventRecord(tessera_event *event,
                                  tessera_stream *stream) {
  return guarded([&]() -> tessera_status {
    if (!event || !stream)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null event or stream");
    if (event->device != stream->device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "the event belongs to another device than the stream");
    return event->device->backend->record(*event->event, *stream->stream);
  });
}

tessera_status tesseraEventElapsedMs(const tessera_event *start,
                                     const tessera_event *end,
                                     double *milliseconds) {
  return guarded([&]() -> tessera_status {
    if (!start || !end || !milliseconds)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT, "null argument");
    if (start->device != end->device)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "the events belong to different devices");
    return start->device->backend->elapsedMs(*start->event, *end->event,
                                             *milliseconds);
  });
}

void tesseraEventDestroy(tessera_event *event) {
  if (!event)
    return;
  tessera_device *device = event->device;
  delete event;
  release(device);
}

} // extern "C"
