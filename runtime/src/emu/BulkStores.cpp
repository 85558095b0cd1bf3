//===- BulkStores.cpp - sm_90a bulk tensor stores (TMA stores) ------------===//
//
// Written from the PTX ISA ("cp.async.bulk.tensor" from shared::cta to
// global, "cp.async.bulk.commit_group", "cp.async.bulk.wait_group"):
//  - a store reads its box from shared memory as TMA writes a load's (the
//    swizzle its rows span) and writes the part of it inside the tensor;
//    it joins the issuing thread's open bulk group;
//  - the store is performed when its thread waits for its group
//    (wait_group or wait_group.read) or, committed or not, never: a thread
//    that exits with a store it has not waited for fails the launch, since
//    on the GPU the block's shared memory may be reused under the read;
//  - with race detection, a plain store or a TMA load onto bytes a pending
//    store reads is reported, and so is a store of bytes another thread
//    wrote with no barrier since or with no fence.proxy.async after them.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include <algorithm>
#include <cstring>

using namespace tessera;
using namespace tessera::emu::detail;

namespace {

/// The bytes a store reads: its whole box.
int64_t boxBytes(const emu::TensorMap &m) {
  return int64_t(m.box[0]) * m.box[1] * m.box[2] * m.elementBytes;
}

/// Writes the part of the box inside the tensor (Hopper.cpp's swizzle of
/// the shared offset, the span a box row covers).
void perform(const BulkStore &store) {
  const emu::TensorMap &m = *store.map;
  int64_t span = int64_t(m.box[0]) * m.elementBytes;
  auto swizzled = [&](int64_t offset) {
    int64_t mask = span / 16 - 1;
    return offset ^ (((offset >> 7) & mask) << 4);
  };
  for (uint32_t i2 = 0; i2 < m.box[2]; ++i2)
    for (uint32_t i1 = 0; i1 < m.box[1]; ++i1)
      for (uint32_t i0 = 0; i0 < m.box[0]; ++i0) {
        int64_t at[3] = {int64_t(store.c[0]) + i0, int64_t(store.c[1]) + i1,
                         int64_t(store.c[2]) + i2};
        bool inside = true;
        for (int d = 0; d < 3; ++d)
          inside &= at[d] >= 0 && uint64_t(at[d]) < m.dims[d];
        if (!inside)
          continue;
        int64_t element = (int64_t(i2) * m.box[1] + i1) * m.box[0] + i0;
        char *dst = const_cast<char *>(static_cast<const char *>(m.base)) +
                    at[1] * m.strideBytes[0] + at[2] * m.strideBytes[1] +
                    at[0] * m.elementBytes;
        globalStore(dst, m.elementBytes, "cp.async.bulk.tensor (store)",
                    store.site);
        std::memcpy(
            dst, block->shared + swizzled(store.src + element * m.elementBytes),
            m.elementBytes);
      }
  --block->pendingBulkStores;
}

/// With race detection: the box's bytes must have been written by other
/// threads before a barrier, and by any thread before its
/// fence.proxy.async (the TMA unit reads through the async proxy).
void checkSource(int64_t start, int64_t bytes) {
  Block &b = *block;
  if (b.shadow.empty() || b.raced)
    return;
  int64_t epoch = int64_t(b.barrierGeneration);
  for (int64_t word = start / 4; word < (start + bytes) / 4; ++word) {
    const Shadow &s = b.shadow[size_t(word)];
    std::string byte = " shared byte " + std::to_string(4 * word);
    if (s.writeSeq && s.writeSeq > b.threads[s.writer].fencedWrites)
      return reportRace("bulk tensor store" + at(b.running->site) + " reads" +
                        byte + " that " + who(s.writer) + " " + s.writeOp +
                        at(s.writeSite) +
                        " wrote with no fence.proxy.async after it");
    if (s.writeEpoch == epoch && s.writer != b.running->tid &&
        !releasedTo(s, b.running->tid))
      return reportRace("bulk tensor store" + at(b.running->site) + " by " +
                        who(b.running->tid) + " reads" + byte + " that " +
                        who(s.writer) + " " + s.writeOp + at(s.writeSite) +
                        " wrote with no barrier between");
  }
}

void tmaStore(void *src, const void *map, uint32_t rank, int32_t c0, int32_t c1,
              int32_t c2, uint32_t hint) {
  const emu::TensorMap *m =
      checkedTensorMap(map, rank, hint & 1, "bulk tensor store");
  if (!m)
    return;
  Block &b = *block;
  int64_t start = static_cast<char *>(src) - b.shared, bytes = boxBytes(*m);
  if (start < 0 || start + bytes > b.sharedBytes || start % 1024)
    return failThread("a bulk tensor store reads shared offset " +
                      std::to_string(start) +
                      ", outside the kernel's shared memory or not 1024-byte "
                      "aligned for swizzling");
  checkSource(start, bytes);
  b.running->bulkOpen.push_back({start, m, {c0, c1, c2}, b.running->site});
  ++b.pendingBulkStores;
  ++b.progress;
}
void emuTmaStore2d(void *src, const void *map, int32_t c0, int32_t c1, uint64_t,
                   uint32_t hint) {
  tmaStore(src, map, 2, c0, c1, 0, hint);
}
void emuTmaStore3d(void *src, const void *map, int32_t c0, int32_t c1,
                   int32_t c2, uint64_t, uint32_t hint) {
  tmaStore(src, map, 3, c0, c1, c2, hint);
}

/// cp.async.bulk.commit_group: the thread's open stores form a group (an
/// empty one if there are none).
void emuBulkCommit() {
  Thread &t = *block->running;
  t.bulkGroups.push_back(std::move(t.bulkOpen));
  t.bulkOpen.clear();
}

/// cp.async.bulk.wait_group[.read] N: all but the thread's newest N
/// committed groups are complete.
void emuBulkWait(uint32_t pending) {
  Thread &t = *block->running;
  while (t.bulkGroups.size() > pending) {
    for (const BulkStore &store : t.bulkGroups.front())
      perform(store);
    t.bulkGroups.pop_front();
    ++block->progress;
  }
}

} // namespace

int64_t emu::detail::bulkStoreReader(int64_t offset, int64_t bytes) {
  Block &b = *block;
  if (!b.pendingBulkStores)
    return -1;
  auto reads = [&](const BulkStore &store) {
    return offset < store.src + boxBytes(*store.map) &&
           store.src < offset + bytes;
  };
  for (const Thread &t : b.threads) {
    if (std::any_of(t.bulkOpen.begin(), t.bulkOpen.end(), reads))
      return t.tid;
    for (const std::vector<BulkStore> &group : t.bulkGroups)
      if (std::any_of(group.begin(), group.end(), reads))
        return t.tid;
  }
  return -1;
}

void emu::detail::bulkStoresAtExit() {
  Thread &t = *block->running;
  // Groups committed with no store in them need no wait.
  const BulkStore *first = t.bulkOpen.empty() ? nullptr : &t.bulkOpen.front();
  for (const std::vector<BulkStore> &group : t.bulkGroups)
    if (!first && !group.empty())
      first = &group.front();
  if (!first) {
    t.bulkGroups.clear();
    return;
  }
  failThread("exits with the bulk tensor store" + at(first->site) +
             " still reading shared memory: no "
             "cp.async.bulk.wait_group.read waited for it");
  // Performed all the same, so that the outputs show what it stored.
  for (const std::vector<BulkStore> &group : t.bulkGroups)
    for (const BulkStore &s : group)
      perform(s);
  for (const BulkStore &s : t.bulkOpen)
    perform(s);
  t.bulkGroups.clear();
  t.bulkOpen.clear();
}

void emu::detail::addBulkStoreEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.nvvm.cp.async.bulk.tensor.s2g.tile.2d",
       reinterpret_cast<void *>(emuTmaStore2d)},
      {"llvm.nvvm.cp.async.bulk.tensor.s2g.tile.3d",
       reinterpret_cast<void *>(emuTmaStore3d)},
      {"llvm.nvvm.cp.async.bulk.commit.group",
       reinterpret_cast<void *>(emuBulkCommit)},
      {"llvm.nvvm.cp.async.bulk.wait.group",
       reinterpret_cast<void *>(emuBulkWait)},
      {"llvm.nvvm.cp.async.bulk.wait.group.read",
       reinterpret_cast<void *>(emuBulkWait)},
  });
}
