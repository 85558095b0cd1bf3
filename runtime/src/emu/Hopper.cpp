//===- Hopper.cpp - sm_90a mbarriers, TMA and wgmma -----------------------===//
//
// Written from the PTX ISA ("mbarrier", "cp.async.bulk.tensor", "Tensor
// Memory Access" swizzling modes, "Matrix Descriptor Format" and the wgmma
// shared memory matrix layouts), not from the compiler's lowering:
//  - an mbarrier is a side table entry keyed by its shared offset: expected
//    and pending arrivals, transaction bytes, phase;
//  - a bulk tensor copy is queued on its mbarrier and performed when a
//    thread polls that mbarrier (try_wait), completing its bytes then; a
//    kernel that reads the destination without waiting reads the poisoned
//    shared memory, and a wgmma that reads bytes a queued copy will write
//    is reported as a race, and so (with race detection) is a wgmma read of
//    a plain store its thread did not follow with fence.proxy.async;
//  - wgmma is a warpgroup collective: the last of the 128 threads decodes
//    the descriptors, reads A and B from shared memory (or A from the
//    threads' registers, for the register form) and computes D; results
//    are final at issue. The bytes it read stay the wgmma's until every
//    thread of the warpgroup has waited for its commit group
//    (wgmma.wait_group): a bulk tensor copy issued onto them before, or
//    (with race detection) a plain store to them, is reported as a race,
//    since on the GPU the wgmma may still be reading them.
// Only what the compiler emits is modelled: tiled copies (2-D and 3-D)
// with zero fill and the swizzle their box rows span (128, 64 or 32
// bytes), descriptors of swizzled layouts.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include <algorithm>
#include <cstring>

using namespace tessera;
using namespace tessera::emu::detail;

bool emu::encodeTensorMap(TensorMap &map, const void *base,
                          uint32_t elementBytes, uint32_t rank,
                          const uint64_t dims[], const uint64_t strideBytes[],
                          const uint32_t box[], std::string *why) {
  auto fail = [&](const std::string &message) {
    if (why)
      *why = message;
    return false;
  };
  if (rank < 2 || rank > 3)
    return fail("a tensor map of rank " + std::to_string(rank) +
                " (the emulator's are 2-D or 3-D)");
  if (reinterpret_cast<uintptr_t>(base) % 16)
    return fail("the base address is not 16-byte aligned");
  for (uint32_t d = 0; d + 1 < rank; ++d)
    if (strideBytes[d] % 16 || strideBytes[d] >= (uint64_t(1) << 40))
      return fail("the stride of dimension " + std::to_string(d + 1) + " (" +
                  std::to_string(strideBytes[d]) +
                  " bytes) is not a multiple of 16 bytes below 2^40");
  for (uint32_t d = 0; d < rank; ++d) {
    if (dims[d] == 0 || dims[d] > (uint64_t(1) << 32))
      return fail("dimension " + std::to_string(d) + " has size " +
                  std::to_string(dims[d]) + ", outside [1, 2^32]");
    if (box[d] == 0 || box[d] > 256)
      return fail("the box is not 1 to 256 elements wide");
  }
  // The lowering asks for the swizzle mode a box row spans.
  uint32_t rowBytes = box[0] * elementBytes;
  if (rowBytes != 128 && rowBytes != 64 && rowBytes != 32)
    return fail("a box row of " + std::to_string(rowBytes) +
                " bytes is not a swizzle span (128, 64 or 32 bytes)");
  std::memset(&map, 0, sizeof map);
  map.magic = kTensorMapMagic;
  map.elementBytes = elementBytes;
  map.rank = rank;
  map.base = base;
  for (uint32_t d = 0; d < 3; ++d) {
    map.box[d] = d < rank ? box[d] : 1;
    map.dims[d] = d < rank ? dims[d] : 1;
  }
  for (uint32_t d = 0; d + 1 < rank; ++d)
    map.strideBytes[d] = strideBytes[d];
  return true;
}

namespace {

/// `span`-byte swizzling (128, 64 or 32) of a shared offset (the block's
/// memory is 1024-byte aligned, so offset bits are address bits): the
/// 16-byte chunk index within the span (bits 4 up) XOR as many bits from
/// bit 7 up (the row within 8 rows of 128 bytes).
int64_t swizzle(int64_t offset, int64_t span) {
  int64_t mask = span / 16 - 1;
  return offset ^ (((offset >> 7) & mask) << 4);
}

/// The bytes a copy writes: its whole box, zero-filled parts included.
int64_t copyBytes(const BulkCopy &copy) {
  const emu::TensorMap &m = *copy.map;
  return int64_t(m.box[0]) * m.box[1] * m.box[2] * m.elementBytes;
}

int64_t sharedOffset(const void *address) {
  return static_cast<const char *>(address) - block->shared;
}

/// The mbarrier at `address` in the shared memory of `owner` (by default
/// the running block), or null with the thread failed.
MBarrier *findBarrier(const void *address, const char *op,
                      Block *owner = nullptr) {
  Block &b = owner ? *owner : *block;
  int64_t offset = static_cast<const char *>(address) - b.shared;
  auto it = b.mbarriers.find(offset);
  if (it == b.mbarriers.end()) {
    failThread(std::string(op) + " on shared offset " + std::to_string(offset) +
               (&b == block
                    ? std::string()
                    : " of the cluster's block " + std::to_string(b.rank)) +
               ", which holds no initialized mbarrier");
    return nullptr;
  }
  return &it->second;
}

/// Element-wise max of `from` into `into` (sized alike, or `into` empty).
void join(std::vector<uint64_t> &into, const std::vector<uint64_t> &from) {
  if (into.empty())
    into.assign(from.size(), 0);
  for (size_t i = 0; i < from.size() && i < into.size(); ++i)
    into[i] = std::max(into[i], from[i]);
}

/// `owner`: the block whose shared memory holds the mbarrier (by default
/// the running block).
void completeIfDone(MBarrier &bar, Block *owner = nullptr) {
  Block &b = owner ? *owner : *block;
  if (bar.pending || bar.tx)
    return;
  // What the phase's arrivals released goes to the threads that wait for
  // this parity.
  if (!b.shadow.empty()) {
    bar.released[bar.phase & 1] = std::move(bar.releasing);
    bar.releasing.clear();
  }
  ++bar.phase;
  bar.pending = bar.expected;
  ++b.progress;
}

/// Performs a queued copy: element (i0, i1) of the box is global element
/// (c0 + i0, c1 + i1), zero outside the tensor.
void land(const BulkCopy &copy) {
  const emu::TensorMap &m = *copy.map;
  int64_t start = sharedOffset(copy.dst);
  for (uint32_t i2 = 0; i2 < m.box[2]; ++i2)
    for (uint32_t i1 = 0; i1 < m.box[1]; ++i1)
      for (uint32_t i0 = 0; i0 < m.box[0]; ++i0) {
        int64_t at[3] = {int64_t(copy.c[0]) + i0, int64_t(copy.c[1]) + i1,
                         int64_t(copy.c[2]) + i2};
        int64_t element = (int64_t(i2) * m.box[1] + i1) * m.box[0] + i0;
        char *dst = block->shared + swizzle(start + element * m.elementBytes,
                                            int64_t(m.box[0]) * m.elementBytes);
        bool inside = true;
        for (int d = 0; d < 3; ++d)
          inside &= at[d] >= 0 && uint64_t(at[d]) < m.dims[d];
        if (!inside) {
          std::memset(dst, 0, m.elementBytes);
          continue;
        }
        std::memcpy(dst,
                    static_cast<const char *>(m.base) +
                        at[1] * m.strideBytes[0] + at[2] * m.strideBytes[1] +
                        at[0] * m.elementBytes,
                    m.elementBytes);
      }
}

void emuMbarrierInit(void *address, uint32_t count) {
  if (count == 0)
    return failThread("mbarrier.init with an arrival count of 0");
  MBarrier &bar = block->mbarriers[sharedOffset(address)];
  if (!bar.inFlight.empty())
    return failThread("mbarrier.init on an mbarrier with copies in flight");
  bar = MBarrier();
  bar.expected = bar.pending = count;
  ++block->progress;
}

/// An arrival on the mbarrier at `address` that expects `bytes` more
/// transaction bytes; returns the phase before it.
uint64_t arrive(void *address, uint32_t bytes, const char *op) {
  MBarrier *bar = findBarrier(address, op);
  if (!bar)
    return 0;
  if (bar->pending == 0) {
    failThread(std::string(op) + " with no arrival pending");
    return 0;
  }
  uint64_t state = bar->phase;
  // The arrival releases the arriving thread's stores so far and what it
  // had acquired itself.
  if (!block->shadow.empty()) {
    Thread &t = *block->running;
    join(bar->releasing, t.acquired);
    bar->releasing[t.tid] = std::max(bar->releasing[t.tid], t.genericWrites);
  }
  bar->tx += bytes;
  --bar->pending;
  ++block->progress;
  completeIfDone(*bar);
  return state;
}

/// An arrival of `count` on an mbarrier in another block of the cluster
/// (or this one) through its shared::cluster address. The race detector
/// orders plain shared accesses within a block only: the arrival releases
/// nothing to that block's threads.
void emuArriveCluster(void *address, uint32_t count) {
  const char *op = "mbarrier.arrive.shared::cluster";
  Block *owner = sharedOwner(address);
  if (!owner)
    return failThread(std::string(op) + " on an address outside the shared "
                                        "memory of the cluster's blocks");
  if (owner == block) {
    for (uint32_t i = 0; i < count; ++i)
      arrive(address, 0, op);
    return;
  }
  MBarrier *bar = findBarrier(address, op, owner);
  if (!bar)
    return;
  if (bar->pending < count)
    return failThread(std::string(op) + " of " + std::to_string(count) +
                      " with " + std::to_string(bar->pending) +
                      " arrivals pending");
  bar->pending -= count;
  ++block->progress;
  completeIfDone(*bar, owner);
}

uint64_t emuArriveExpectTx(void *address, uint32_t bytes) {
  return arrive(address, bytes, "mbarrier.arrive.expect_tx");
}
uint64_t emuArrive(void *address) {
  return arrive(address, 0, "mbarrier.arrive");
}

/// mbarrier.expect_tx: more transaction bytes for the current phase, no
/// arrival.
void emuExpectTx(void *address, uint32_t bytes) {
  MBarrier *bar = findBarrier(address, "mbarrier.expect_tx");
  if (!bar)
    return;
  bar->tx += bytes;
  ++block->progress;
}

/// setmaxnreg: registers are not modelled; the count is checked as ptxas
/// and the hardware require it.
void setMaxRegisters(uint32_t count, const char *op) {
  if (count < 24 || count > 256 || count % 8)
    failThread(std::string(op) + " " + std::to_string(count) +
               ": the count must be a multiple of 8 in [24, 256]");
}
void emuSetMaxRegistersInc(uint32_t count) {
  setMaxRegisters(count, "setmaxnreg.inc");
}
void emuSetMaxRegistersDec(uint32_t count) {
  setMaxRegisters(count, "setmaxnreg.dec");
}

bool emuTryWaitParity(void *address, uint32_t parity) {
  MBarrier *bar = findBarrier(address, "mbarrier.try_wait.parity");
  if (!bar)
    return true;
  // Polling lands the copies that complete on this mbarrier.
  if (!bar->inFlight.empty()) {
    for (const BulkCopy &copy : bar->inFlight) {
      land(copy);
      bar->tx -= copyBytes(copy);
    }
    bar->inFlight.clear();
    ++block->progress;
    completeIfDone(*bar);
  }
  // The phase of parity `parity` has completed once the current phase's
  // parity differs.
  bool done = (bar->phase & 1) != (parity & 1);
  // A wait that sees the phase complete acquires what its arrivals
  // released.
  if (done && !block->shadow.empty())
    join(block->running->acquired, bar->released[parity & 1]);
  if (!done && !block->failed) {
    block->running->waitingFor = "mbarrier.try_wait.parity";
    yield();
    block->running->waitingFor = nullptr;
  }
  return done || block->failed;
}

/// Queues `copy` onto the mbarrier at `address` in block `target` (the
/// running block, or another of its cluster for a multicast copy).
void queueCopy(Block &target, const BulkCopy &copy, void *address) {
  int64_t start = copy.dst - target.shared, bytes = copyBytes(copy);
  if (start < 0 || start + bytes > target.sharedBytes || start % 1024)
    return failThread("a bulk tensor copy writes shared offset " +
                      std::to_string(start) +
                      ", outside the kernel's shared memory or not 1024-byte "
                      "aligned for 128-byte swizzling");
  if (int64_t group = wgmmaReader(start, bytes, &target); group >= 0)
    reportRace("bulk tensor copy" + at(block->running->site) + " by " +
               who(block->running->tid) + " writes shared bytes " +
               std::to_string(start) + " to " + std::to_string(start + bytes) +
               (&target == block ? std::string()
                                 : " of the cluster's block " +
                                       std::to_string(target.rank)) +
               " that a wgmma of warpgroup " + std::to_string(group / 128) +
               " may still read: not every thread of the warpgroup has "
               "waited for its group (wgmma.wait_group)");
  if (int64_t reader = &target == block ? bulkStoreReader(start, bytes) : -1;
      reader >= 0)
    reportRace("bulk tensor copy" + at(block->running->site) + " by " +
               who(block->running->tid) + " writes shared bytes " +
               std::to_string(start) + " to " + std::to_string(start + bytes) +
               " that a bulk tensor store of " + who(uint32_t(reader)) +
               " may still read: it has not waited for the store's group "
               "(cp.async.bulk.wait_group.read)");
  MBarrier *bar = findBarrier(
      target.shared + (static_cast<char *>(address) - block->shared),
      "cp.async.bulk.tensor", &target);
  if (!bar)
    return;
  bar->inFlight.push_back(copy);
  ++block->progress;
}

} // namespace

const emu::TensorMap *emu::detail::checkedTensorMap(const void *map,
                                                    uint32_t rank, bool hint,
                                                    const std::string &what) {
  if (hint) {
    failThread("a " + what +
               " with a cache hint, which the emulator does not model");
    return nullptr;
  }
  auto *m = static_cast<const emu::TensorMap *>(map);
  if (!m || m->magic != emu::kTensorMapMagic) {
    failThread("a " + what +
               " whose tensor map the emulator's runtime did not encode");
    return nullptr;
  }
  if (m->rank != rank) {
    failThread("a " + std::to_string(rank) + "-D " + what +
               " with a tensor map of rank " + std::to_string(m->rank));
    return nullptr;
  }
  return m;
}

namespace {

/// A bulk tensor copy; with a multicast mask, into the same shared offset
/// of every block of the cluster whose rank the mask has, each completing
/// on its own mbarrier at `address`'s offset.
void tmaLoad(void *dst, void *address, const void *map, uint32_t rank,
             int32_t c0, int32_t c1, int32_t c2, uint16_t mask,
             uint32_t useMask, uint32_t useHint) {
  const emu::TensorMap *m =
      checkedTensorMap(map, rank, useHint & 1, "bulk tensor copy");
  if (!m)
    return;
  if (!(useMask & 1)) {
    queueCopy(*block, BulkCopy{static_cast<char *>(dst), m, {c0, c1, c2}},
              address);
    return;
  }
  const std::vector<Block *> &members = block->cluster->blocks;
  if (!mask || (members.size() < 16 && (mask >> members.size())))
    return failThread("a multicast bulk tensor copy with CTA mask " +
                      std::to_string(mask) + " in a cluster of " +
                      std::to_string(members.size()) + " blocks");
  int64_t offset = static_cast<char *>(dst) - block->shared;
  for (size_t r = 0; r < members.size(); ++r)
    if (mask & (1u << r))
      queueCopy(*members[r],
                BulkCopy{members[r]->shared + offset, m, {c0, c1, c2}},
                address);
}
void emuTmaLoad2d(void *dst, void *address, const void *map, int32_t c0,
                  int32_t c1, uint16_t mask, uint64_t, uint32_t useMask,
                  uint32_t useHint, uint32_t) {
  tmaLoad(dst, address, map, 2, c0, c1, 0, mask, useMask, useHint);
}
void emuTmaLoad3d(void *dst, void *address, const void *map, int32_t c0,
                  int32_t c1, int32_t c2, uint16_t mask, uint64_t,
                  uint32_t useMask, uint32_t useHint, uint32_t) {
  tmaLoad(dst, address, map, 3, c0, c1, c2, mask, useMask, useHint);
}

/// fence.proxy.async: the thread's plain stores so far become visible to
/// the async proxy.
void emuFenceProxyAsync() {
  Thread &t = *block->running;
  t.fencedWrites = t.genericWrites;
}

void emuNothing() {}

/// The running thread's warpgroup (made on first use), or null with the
/// thread failed.
Warpgroup *warpgroup() {
  Block &b = *block;
  uint32_t group = b.running->tid / 128;
  if (b.ntid % 128) {
    failThread("wgmma in a block that is not whole warpgroups");
    return nullptr;
  }
  if (b.warpgroups.size() <= group)
    b.warpgroups.resize(group + 1);
  if (!b.warpgroups[group])
    b.warpgroups[group] = std::make_unique<Warpgroup>();
  return b.warpgroups[group].get();
}

/// wgmma.commit_group: the first thread of the warpgroup to commit a group
/// closes it over the wgmmas issued since the last one.
void emuCommitGroup() {
  Warpgroup *w = warpgroup();
  if (!w)
    return;
  if (++w->commits[block->running->tid % 128] > w->retired + w->groups.size()) {
    w->groups.push_back(std::move(w->open));
    w->open.clear();
  }
}

/// wgmma.wait_group N: the thread has waited for all but its last N
/// groups; the groups every thread of the warpgroup has waited for give
/// their bytes back.
void emuWaitGroup(uint64_t pending) {
  Warpgroup *w = warpgroup();
  if (!w)
    return;
  uint32_t t = block->running->tid % 128;
  if (w->commits[t] > pending)
    w->waited[t] = std::max(w->waited[t], w->commits[t] - pending);
  uint64_t all = *std::min_element(std::begin(w->waited), std::end(w->waited));
  for (; w->retired < all && !w->groups.empty(); ++w->retired) {
    for (int32_t chunk : w->groups.front())
      --w->readers[size_t(chunk)];
    w->groups.pop_front();
  }
}

/// The swizzle span of a descriptor's layout type (bits 62-63: 1 128-byte,
/// 2 64-byte, 3 32-byte swizzling); 0 for the others.
int64_t swizzleSpan(uint64_t desc) {
  switch (desc >> 62) {
  case 1:
    return 128;
  case 2:
    return 64;
  case 3:
    return 32;
  default:
    return 0;
  }
}

/// The shared offset of element (mn, k) of a wgmma operand with `desc`:
/// K-major or MN-major (transposed) swizzled layouts, rows of the span's
/// bytes.
int64_t operandOffset(uint64_t desc, bool mnMajor, unsigned mn, unsigned k,
                      unsigned bytes) {
  int64_t span = swizzleSpan(desc);
  int64_t start = int64_t(desc & 0x3FFF) << 4;
  int64_t leading = int64_t((desc >> 16) & 0x3FFF) << 4;
  int64_t stride = int64_t((desc >> 32) & 0x3FFF) << 4;
  // The descriptor holds address bits 4-17; the block's memory starts at a
  // known address, and shared memory spans less than 256 KiB.
  int64_t base = int64_t(reinterpret_cast<uintptr_t>(block->shared) & 0x3FFFF);
  int64_t offset = (start - base) & 0x3FFFF;
  if (mnMajor)
    offset += (mn * bytes) % span + (k % 8) * span + (k / 8) * stride +
              (mn * bytes / span) * leading;
  else
    offset += (mn % 8) * span + (mn / 8) * stride + k * bytes;
  return swizzle(offset, span);
}

/// Whether a queued copy will write shared byte `offset`.
bool pendingWrite(int64_t offset) {
  for (auto &[at, bar] : block->mbarriers)
    for (const BulkCopy &copy : bar.inFlight) {
      int64_t start = sharedOffset(copy.dst);
      int64_t bytes = copyBytes(copy);
      if (offset >= start && offset < start + bytes)
        return true;
    }
  return false;
}

} // namespace

int64_t emu::detail::wgmmaReader(int64_t offset, int64_t bytes,
                                 const Block *owner) {
  const Block &b = owner ? *owner : *block;
  for (size_t g = 0; g < b.warpgroups.size(); ++g) {
    const Warpgroup *w = b.warpgroups[g].get();
    if (!w || w->readers.empty())
      continue;
    for (int64_t c = std::max<int64_t>(offset, 0) / 16;
         c < (offset + bytes + 15) / 16 && c < int64_t(w->readers.size()); ++c)
      if (w->readers[size_t(c)])
        return int64_t(g) * 128;
  }
  return -1;
}

namespace {

/// The warpgroup collective of wgmma.mma_async: every thread brings its
/// accumulators (and, for the register form, `aRegs`: its four A
/// registers; null when A is read through `descA`), the last of the 128
/// reads the operands and computes every thread's D.
template <emu::WgmmaType Type>
void wgmma(float *out, const float *in, const uint32_t *aRegs, uint64_t descA,
           uint64_t descB, uint32_t scaleD, int32_t scaleA, int32_t scaleB,
           uint32_t transA, uint32_t transB, uint32_t n) {
  Block &b = *block;
  uint32_t tid = b.running->tid, group = tid / 128;
  Warpgroup *found = warpgroup();
  if (!found)
    return;
  Warpgroup &w = *found;
  uint32_t flags = (scaleD & 1) | (transA & 1) << 1 | (transB & 1) << 2 |
                   (scaleA < 0) << 3 | (scaleB < 0) << 4 |
                   uint32_t(aRegs != nullptr) << 5 | n << 8;
  if (w.arrived && (w.descA != descA || w.descB != descB || w.flags != flags))
    return failThread("the threads of warpgroup " + std::to_string(group) +
                      " issue different wgmma instructions");
  w.descA = descA;
  w.descB = descB;
  w.flags = flags;
  std::memcpy(w.in[tid % 128], in, sizeof(float) * n / 2);
  if (aRegs)
    std::memcpy(w.a[tid % 128], aRegs, sizeof(w.a[0]));
  ++b.progress;
  uint64_t generation = w.generation;
  if (++w.arrived < 128) {
    waitUntil("wgmma", [&] { return w.generation != generation; });
  } else {
    for (uint64_t desc : {aRegs ? descB : descA, descB})
      if (!swizzleSpan(desc) || ((desc >> 49) & 7))
        return failThread("a wgmma descriptor without swizzling, or with a "
                          "base offset, which the emulator does not model");
    constexpr unsigned kSteps = Type == emu::WgmmaType::E4M3 ? 32 : 16;
    constexpr unsigned bytes = Type == emu::WgmmaType::E4M3 ? 1 : 2;
    static thread_local uint16_t a[64][32], bm[32][256];
    // With race detection: per writer, how many of its plain stores every
    // thread of the warpgroup but the writer itself has acquired through
    // mbarriers (the writer's own stores are ordered for it).
    std::vector<uint64_t> seenByAll;
    if (!b.shadow.empty()) {
      seenByAll.assign(b.ntid, UINT64_MAX);
      for (uint32_t t = group * 128; t < group * 128 + 128; ++t)
        for (uint32_t writer = 0; writer < b.ntid; ++writer)
          if (writer != t)
            seenByAll[writer] =
                std::min(seenByAll[writer], b.threads[t].acquired[writer]);
    }
    int64_t epoch = int64_t(b.barrierGeneration);
    uint64_t readSeq = ++b.threads[group * 128].genericWrites;
    // The 16-byte chunks read, kept until the warpgroup waits for them.
    std::vector<int32_t> chunks;
    auto read = [&](uint64_t desc, bool mnMajor, unsigned mn, unsigned k,
                    uint16_t &value) {
      int64_t offset = operandOffset(desc, mnMajor, mn, k, bytes);
      if (offset < 0 || offset + bytes > b.sharedBytes) {
        failThread("wgmma reads shared offset " + std::to_string(offset) +
                   ", outside the kernel's shared memory");
        return false;
      }
      chunks.push_back(int32_t(offset / 16));
      if (!b.shadow.empty() && !b.raced) {
        Shadow &s = b.shadow[size_t(offset / 4)];
        // A plain store is seen by wgmma (the async proxy) only after the
        // storing thread's fence.proxy.async, and only when ordered before
        // the wgmma of every thread of the warpgroup: by a barrier since,
        // or by mbarrier phases each of them waited for.
        if (s.writeSeq && s.writeSeq > b.threads[s.writer].fencedWrites) {
          reportRace("wgmma" + at(b.running->site) + " reads shared byte " +
                     std::to_string(offset) + " that " + who(s.writer) +
                     " st.shared" + at(s.writeSite) +
                     " wrote with no fence.proxy.async after it");
        } else if (s.writeEpoch == epoch &&
                   !(s.writeSeq && s.writeSeq <= seenByAll[s.writer])) {
          reportRace("wgmma of warpgroup " + std::to_string(group) +
                     at(b.running->site) + " reads shared byte " +
                     std::to_string(offset) + " that " + who(s.writer) + " " +
                     s.writeOp + at(s.writeSite) +
                     " wrote with no barrier or mbarrier wait of every "
                     "thread of the warpgroup between");
        }
        // The warpgroup's read, for later writes to check against: its
        // first thread's release (after its wait_group) orders them.
        recordRead(s, epoch, group * 128, readSeq);
        if (s.readEpoch != epoch || s.reader != group * 128) {
          s.readEpoch = epoch;
          s.reader = group * 128;
          s.manyReaders = true;
          s.readOp = "wgmma";
          s.readSite = b.running->site;
        }
      }
      if (pendingWrite(offset))
        reportRace("wgmma" + at(b.running->site) + " reads shared byte " +
                   std::to_string(offset) +
                   " while a bulk tensor copy to it is pending (its mbarrier "
                   "was not waited on)");
      value = 0;
      std::memcpy(&value, b.shared + offset, bytes);
      return true;
    };
    if (aRegs && bytes == 1)
      emu::wgmmaRegisterA8(w.a, a);
    else if (aRegs)
      emu::wgmmaRegisterA(w.a, a);
    else
      for (unsigned m = 0; m < 64; ++m)
        for (unsigned k = 0; k < kSteps; ++k)
          if (!read(descA, transA & 1, m, k, a[m][k]))
            return;
    for (unsigned k = 0; k < kSteps; ++k)
      for (unsigned col = 0; col < n; ++col)
        if (!read(descB, transB & 1, col, k, bm[k][col]))
          return;
    std::sort(chunks.begin(), chunks.end());
    chunks.erase(std::unique(chunks.begin(), chunks.end()), chunks.end());
    if (w.readers.empty())
      w.readers.assign(size_t(b.sharedBytes + 15) / 16, 0);
    for (int32_t chunk : chunks)
      ++w.readers[size_t(chunk)];
    w.open.insert(w.open.end(), chunks.begin(), chunks.end());
    emu::wgmmaM64N(a, bm, n, Type, scaleA < 0 ? -1 : 1, scaleB < 0 ? -1 : 1,
                   scaleD & 1, w.in, w.out);
    w.arrived = 0;
    ++w.generation;
  }
  std::memcpy(out, w.out[tid % 128], sizeof(float) * n / 2);
}

template <emu::WgmmaType Type>
void emuWgmma(float *out, const float *in, uint64_t descA, uint64_t descB,
              uint32_t scaleD, int32_t scaleA, int32_t scaleB, uint32_t transA,
              uint32_t transB, uint32_t n) {
  wgmma<Type>(out, in, nullptr, descA, descB, scaleD, scaleA, scaleB, transA,
              transB, n);
}

/// wgmma with A in registers: no descriptor A and no trans-a (8-bit
/// types have no trans-b either: the rewrite passes 0).
template <emu::WgmmaType Type>
void emuWgmmaRegisterA(float *out, const float *in, const uint32_t *a,
                       uint64_t descB, uint32_t scaleD, int32_t scaleA,
                       int32_t scaleB, uint32_t transB, uint32_t n) {
  wgmma<Type>(out, in, a, 0, descB, scaleD, scaleA, scaleB, 0, transB, n);
}

} // namespace

void tessera::emu::detail::addHopperEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.nvvm.mbarrier.init.shared",
       reinterpret_cast<void *>(emuMbarrierInit)},
      {"llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta",
       reinterpret_cast<void *>(emuArriveExpectTx)},
      {"llvm.nvvm.mbarrier.try.wait.parity.scope.cta.space.cta",
       reinterpret_cast<void *>(emuTryWaitParity)},
      {"llvm.nvvm.mbarrier.try.wait.parity.scope.cluster.space.cta",
       reinterpret_cast<void *>(emuTryWaitParity)},
      {"llvm.nvvm.mbarrier.arrive.scope.cluster.space.cluster",
       reinterpret_cast<void *>(emuArriveCluster)},
      {"llvm.nvvm.mbarrier.arrive.scope.cta.space.cluster",
       reinterpret_cast<void *>(emuArriveCluster)},
      {"llvm.nvvm.mbarrier.arrive.relaxed.scope.cluster.space.cluster",
       reinterpret_cast<void *>(emuArriveCluster)},
      {"llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d",
       reinterpret_cast<void *>(emuTmaLoad2d)},
      {"llvm.nvvm.cp.async.bulk.tensor.g2s.tile.3d",
       reinterpret_cast<void *>(emuTmaLoad3d)},
      {"llvm.nvvm.mbarrier.arrive.shared", reinterpret_cast<void *>(emuArrive)},
      {"llvm.nvvm.mbarrier.expect.tx.scope.cta.space.cta",
       reinterpret_cast<void *>(emuExpectTx)},
      {"llvm.nvvm.setmaxnreg.inc.sync.aligned.u32",
       reinterpret_cast<void *>(emuSetMaxRegistersInc)},
      {"llvm.nvvm.setmaxnreg.dec.sync.aligned.u32",
       reinterpret_cast<void *>(emuSetMaxRegistersDec)},
      {"llvm.nvvm.fence.proxy.async.shared_cta",
       reinterpret_cast<void *>(emuFenceProxyAsync)},
      {"llvm.nvvm.wgmma.fence.sync.aligned",
       reinterpret_cast<void *>(emuNothing)},
      {"llvm.nvvm.wgmma.commit_group.sync.aligned",
       reinterpret_cast<void *>(emuCommitGroup)},
      {"llvm.nvvm.wgmma.wait_group.sync.aligned",
       reinterpret_cast<void *>(emuWaitGroup)},
      {"tessera.emu.wgmma.f32.bf16",
       reinterpret_cast<void *>(emuWgmma<emu::WgmmaType::BF16>)},
      {"tessera.emu.wgmma.f32.f16",
       reinterpret_cast<void *>(emuWgmma<emu::WgmmaType::F16>)},
      {"tessera.emu.wgmma.rs.f32.bf16",
       reinterpret_cast<void *>(emuWgmmaRegisterA<emu::WgmmaType::BF16>)},
      {"tessera.emu.wgmma.rs.f32.f16",
       reinterpret_cast<void *>(emuWgmmaRegisterA<emu::WgmmaType::F16>)},
      {"tessera.emu.wgmma.rs.f32.e4m3",
       reinterpret_cast<void *>(emuWgmmaRegisterA<emu::WgmmaType::E4M3>)},
  });
}
