//===- AmdBuffer.cpp - AMD buffer resources, raw buffer loads and stores --===//
//
// Written from AMD's CDNA3 ISA ("Buffer Instructions": the buffer resource
// and its range checking), not from the compiler's lowering. A kernel's
// llvm.amdgcn.make.buffer.rsrc returns a pointer to the block's record of
// the descriptor (base, stride, num_records, flags); a raw buffer load
// (stride 0, offset = voffset + soffset) of N bytes returns zeros when the
// offset is at or past num_records and the memory otherwise, and a raw
// buffer store there is dropped. An access that is partly in range does
// what the chip's per-component checks give, which the emulator does not
// model: it fails the launch, naming the access, as it does a resource
// with a stride (structured buffers).
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include <cstring>

using namespace tessera;
using namespace tessera::emu::detail;

namespace {

/// llvm.amdgcn.make.buffer.rsrc: the block's record of these fields (one
/// per distinct resource). `stride` arrives as an i16 whose upper bits the
/// caller did not extend.
void *emuMakeBufferRsrc(const char *base, uint32_t stride, uint64_t records,
                        uint32_t flags) {
  stride &= 0xffff;
  auto key = std::make_tuple(base, records, stride, flags);
  std::unique_ptr<BufferResource> &slot = block->resources[key];
  if (!slot)
    slot.reset(
        new BufferResource{kBufferResourceMagic, base, records, stride, flags});
  return slot.get();
}

/// The address of `bytes` of the resource at voffset + soffset; null when
/// they are out of range (or the launch failed: a partly out of range
/// access or a structured buffer).
const char *inRange(const BufferResource *resource, uint32_t voffset,
                    uint32_t soffset, size_t bytes) {
  if (block->failed)
    return nullptr;
  if (resource->magic != kBufferResourceMagic) {
    failThread("a buffer access through a pointer that is no buffer resource");
    return nullptr;
  }
  if (resource->stride != 0) {
    failThread("a buffer access through a resource with stride " +
               std::to_string(resource->stride) +
               " (structured buffers are not modelled)");
    return nullptr;
  }
  uint64_t offset = uint64_t(voffset) + soffset;
  if (offset >= resource->records)
    return nullptr;
  if (offset + bytes > resource->records) {
    failThread("a " + std::to_string(bytes) + "-byte buffer access at offset " +
               std::to_string(offset) +
               " is partly out of range (num_records " +
               std::to_string(resource->records) +
               "): what it does depends on the chip");
    return nullptr;
  }
  return resource->base + offset;
}

/// Copies `bytes` of the resource at voffset + soffset into `out`: zeros
/// out of range.
void bufferLoad(void *out, const BufferResource *resource, uint32_t voffset,
                uint32_t soffset, size_t bytes) {
  std::memset(out, 0, bytes);
  if (const char *address = inRange(resource, voffset, soffset, bytes))
    std::memcpy(out, address, bytes);
}

/// buffer_load_dwordx4: 16 bytes (a wide result, returned through `out`).
void emuBufferLoadX4(void *out, const BufferResource *resource,
                     uint32_t voffset, uint32_t soffset, uint32_t) {
  bufferLoad(out, resource, voffset, soffset, 16);
}

/// buffer_load_dwordx2: 8 bytes (a result of 64 bits, returned as an
/// integer).
uint64_t emuBufferLoadX2(const BufferResource *resource, uint32_t voffset,
                         uint32_t soffset, uint32_t) {
  uint64_t value;
  bufferLoad(&value, resource, voffset, soffset, 8);
  return value;
}

/// buffer_store_{byte,short,dword,dwordx2}: dropped at or past
/// num_records; a store in range is a plain global store to the race
/// detector.
template <typename T>
void emuBufferStore(T value, const BufferResource *resource, uint32_t voffset,
                    uint32_t soffset, uint32_t) {
  const char *address = inRange(resource, voffset, soffset, sizeof(T));
  if (!address)
    return;
  globalStore(const_cast<char *>(address), sizeof(T), "buffer_store",
              block->running->site);
  std::memcpy(const_cast<char *>(address), &value, sizeof(T));
}

} // namespace

void tessera::emu::detail::addAmdBufferEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.amdgcn.make.buffer.rsrc.p8.p0",
       reinterpret_cast<void *>(emuMakeBufferRsrc)},
      {"llvm.amdgcn.raw.ptr.buffer.load.v2i32",
       reinterpret_cast<void *>(emuBufferLoadX2)},
      {"llvm.amdgcn.raw.ptr.buffer.load.v4i32",
       reinterpret_cast<void *>(emuBufferLoadX4)},
      {"llvm.amdgcn.raw.ptr.buffer.store.i8",
       reinterpret_cast<void *>(emuBufferStore<uint8_t>)},
      {"llvm.amdgcn.raw.ptr.buffer.store.i16",
       reinterpret_cast<void *>(emuBufferStore<uint16_t>)},
      {"llvm.amdgcn.raw.ptr.buffer.store.i32",
       reinterpret_cast<void *>(emuBufferStore<uint32_t>)},
      {"llvm.amdgcn.raw.ptr.buffer.store.i64",
       reinterpret_cast<void *>(emuBufferStore<uint64_t>)},
  });
}
