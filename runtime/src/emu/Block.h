//===- Block.h - The emulator's state of a running block --------*- C++ -*-===//
//
// Private to runtime/src/emu: the block an OS thread runs (its GPU threads
// as fibers, warps, shared memory, barriers) and the helpers the
// instruction implementations share. Emulator.cpp runs clusters of blocks
// and implements the sm_80 instructions and AMD's barrier, Hopper.cpp
// sm_90a's mbarriers, TMA and wgmma, Cluster.cpp sm_90a's cluster ids,
// mapa and cluster barriers, AmdBuffer.cpp AMD's buffer resources and
// buffer loads, AmdLanes.cpp AMD's lane collectives, AmdMfma.cpp AMD's
// MFMAs.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_EMU_BLOCK_H
#define TESSERA_RUNTIME_EMU_BLOCK_H

#include "Emulator.h"

#include <boost/context/fiber.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace tessera::emu::detail {

struct Copy {
  void *dst;
  const void *src;
  uint32_t bytes, srcBytes;
  uint64_t issueEpoch;
  /// The issuing instruction's source location, if known.
  const char *site;
};

/// What the race detector remembers of one 4-byte word of shared memory:
/// the last write and the reads since, by barrier epoch.
struct Shadow {
  int64_t writeEpoch = -1, readEpoch = -1;
  /// The writer's count of plain shared stores at this word's last write
  /// (0: written by an asynchronous copy), against its proxy fences.
  uint64_t writeSeq = 0;
  uint32_t writer = 0, reader = 0;
  bool manyReaders = false;
  /// The readers of the read epoch (up to 4; `readCount` 0 when more
  /// read) with their count of plain accesses at the read: a later write
  /// is ordered after the reads by mbarrier phases that released them.
  uint8_t readCount = 0;
  std::array<std::pair<uint32_t, uint64_t>, 4> readOrder;
  const char *writeOp = nullptr, *readOp = nullptr;
  /// Where in the kernel's source they are ("file:line:col"), if known.
  const char *writeSite = nullptr, *readSite = nullptr;
};

/// An sm_90a bulk tensor store (shared to global): its box is read from
/// shared offset `src` and written when its thread waits for its group
/// (cp.async.bulk.wait_group.read), so a kernel that overwrites the bytes
/// before stores what it overwrote with.
struct BulkStore {
  int64_t src;
  const TensorMap *map;
  int32_t c[3]; // innermost first
  const char *site;
};

struct Thread {
  boost::context::fiber self, sink;
  /// Plain shared accesses so far (stores, and reads: a write after them
  /// is ordered by their release), and how many of them its last
  /// fence.proxy.async made visible to the async proxy (wgmma, TMA).
  uint64_t genericWrites = 0, fencedWrites = 0;
  /// With race detection, per thread of the block: how many of that
  /// thread's plain shared stores are ordered before this thread's next
  /// access by the mbarrier phases it has waited for (a store counts once
  /// its thread has arrived after it, directly or through a chain of
  /// waits and arrivals).
  std::vector<uint64_t> acquired;
  uint32_t tid = 0;
  /// The source location of the intrinsic the thread runs, if known.
  const char *site = nullptr;
  bool done = false;
  /// barrier.cluster: the phase the thread arrived in and has not waited
  /// for yet (-1: none).
  int64_t clusterArrival = -1;
  const char *waitingFor = nullptr;
  std::vector<Copy> open;
  std::deque<std::vector<Copy>> groups;
  /// Bulk tensor stores (BulkStores.cpp) issued since the last
  /// cp.async.bulk.commit_group and those of the committed groups not yet
  /// waited for.
  std::vector<BulkStore> bulkOpen;
  std::deque<std::vector<BulkStore>> bulkGroups;
};

/// Lanes in the widest warp (AMD's wave64).
constexpr unsigned kMaxLanes = 64;

/// One warp's rendezvous for a collective.
struct Warp {
  unsigned arrived = 0;
  uint64_t generation = 0;
  const char *kind = nullptr;
  const void *address[kMaxLanes];
  uint32_t a[kMaxLanes][4], b[kMaxLanes][2], out[kMaxLanes][4];
  uint32_t shuffled[kMaxLanes], laneMask[kMaxLanes];
  float c[kMaxLanes][4], d[kMaxLanes][4];
  // MFMA operands: up to 64 bits of A and B per lane, 16 32-bit
  // accumulators (f32, or the bits of i32 ones).
  uint64_t mfmaA[kMaxLanes], mfmaB[kMaxLanes];
  float mfmaC[kMaxLanes][16], mfmaD[kMaxLanes][16];
};

/// An sm_90a bulk tensor copy issued onto an mbarrier, performed when a
/// thread polls that mbarrier (so a read without a wait sees no data).
struct BulkCopy {
  char *dst;
  const TensorMap *map;
  int32_t c[3]; // innermost first
};

/// An mbarrier's state: arrivals and transaction bytes still expected in
/// the current phase, and the copies that will complete them.
struct MBarrier {
  uint32_t expected = 0, pending = 0;
  int64_t tx = 0;
  uint32_t phase = 0;
  std::vector<BulkCopy> inFlight;
  /// With race detection: what the arrivals of the current phase release
  /// (Thread::acquired's form), and what each parity's last completed
  /// phase released to the threads that wait for it.
  std::vector<uint64_t> releasing, released[2];
};

/// One warpgroup's (128 threads') rendezvous for a wgmma.
struct Warpgroup {
  unsigned arrived = 0;
  uint64_t generation = 0;
  uint64_t descA = 0, descB = 0;
  uint32_t flags = 0;
  float in[128][128], out[128][128];
  /// Each thread's A registers, for wgmma with A in registers.
  uint32_t a[128][4];
  /// The 16-byte chunks of shared memory the wgmmas issued since the last
  /// commit read (open) and those of each committed group that not every
  /// thread of the warpgroup has waited for yet (oldest first, the first
  /// numbered `retired`: `retired + groups.size()` have been committed),
  /// and per chunk how many of those reads there are: until then the
  /// chunks must not be written.
  std::vector<int32_t> open;
  std::deque<std::vector<int32_t>> groups;
  uint64_t retired = 0;
  std::vector<uint16_t> readers;
  /// Per thread: the groups it committed and the groups it waited for.
  uint64_t commits[128] = {}, waited[128] = {};
};

constexpr uint32_t kBufferResourceMagic = 0x23565342; // "BSV#"
/// A buffer resource (V#) an AMD kernel made: the fields the raw buffer
/// instructions read.
struct BufferResource {
  uint32_t magic;
  const char *base;
  uint64_t records;
  uint32_t stride, flags;
};

/// A named barrier (`bar.sync id, count`): the threads waiting there.
struct NamedBarrier {
  uint32_t arrived = 0, count = 0;
  uint64_t generation = 0;
};

struct Block;

/// A thread-block cluster: its blocks run together, their threads' fibers
/// resumed round-robin by one OS thread, so that they can meet at
/// barrier.cluster and reach each other's shared memory (a launch without
/// a cluster runs clusters of one block).
struct Cluster {
  std::vector<Block *> blocks;
  /// The cluster's shape, its position in the grid of clusters, and that
  /// grid's size.
  uint32_t dims[3] = {1, 1, 1}, id[3] = {0, 0, 0}, count[3] = {1, 1, 1};
  /// barrier.cluster: the threads that have not exited, those arrived in
  /// the current phase, and the phase.
  uint32_t expected = 0, arrived = 0;
  uint64_t generation = 0;
};

struct Block {
  uint32_t ctaid[3], nctaid[3], ntid;
  /// The cluster, the block's rank in it and its position in it.
  Cluster *cluster = nullptr;
  uint32_t rank = 0, clusterCtaid[3] = {0, 0, 0};
  /// Lanes per warp: 32 (NVIDIA) or 64 (AMD's waves).
  uint32_t warpSize = 32;
  std::vector<Thread> threads;
  Thread *running = nullptr;
  char *shared = nullptr;
  unsigned barrierArrived = 0;
  uint64_t barrierGeneration = 0;
  std::array<NamedBarrier, 16> named;
  std::vector<Warp> warps;
  uint64_t progress = 0;
  int64_t sharedBytes = 0;
  std::vector<Shadow> shadow; // with race detection
  bool raced = false;         // one report per block
  /// After a deadlock or divergence: waits return at once so that every
  /// thread runs to its end; the launch reports the error.
  bool failed = false;
  /// sm_90a: mbarriers by shared offset, warpgroups (made on first use).
  std::map<int64_t, MBarrier> mbarriers;
  std::vector<std::unique_ptr<Warpgroup>> warpgroups;
  /// Bulk tensor stores issued and not yet performed, all threads'.
  uint32_t pendingBulkStores = 0;
  /// AMD: the buffer resources made so far (a kernel's pointers to them
  /// stand for the 128-bit descriptors), by their fields.
  std::map<std::tuple<const char *, uint64_t, uint32_t, uint32_t>,
           std::unique_ptr<BufferResource>>
      resources;
};

/// The block the calling OS thread runs.
extern thread_local Block *block;

/// Records the launch's first error.
void report(std::string message);
/// Reports a block's unrecoverable error and lets its threads finish
/// without waiting (the results are then meaningless; the launch fails).
void failBlock(const std::string &message);
/// failBlock for what the running thread's intrinsic call did: the message
/// names the thread and the call's source line (when known).
void failThread(const std::string &message);
/// "block (x, y, z): " + message, for the running block.
std::string inBlock(const std::string &message);
/// Records a race in the running block (its first is the one reported).
void reportRace(const std::string &message);
/// Switches to the next fiber of the block.
void yield();
/// "thread T (warp W, lane L)".
std::string who(uint32_t tid);
/// Whether the plain store `s` remembers is ordered before the next access
/// of thread `tid` through mbarrier phases (release by arrival, acquire by
/// a successful wait).
inline bool releasedTo(const Shadow &s, uint32_t tid) {
  const std::vector<uint64_t> &acquired = block->threads[tid].acquired;
  return s.writeSeq && !acquired.empty() && s.writeSeq <= acquired[s.writer];
}
/// Whether every read of the word's read epoch is ordered before the next
/// access of thread `tid` through mbarrier phases (or is its own).
inline bool readsReleasedTo(const Shadow &s, uint32_t tid) {
  const std::vector<uint64_t> &acquired = block->threads[tid].acquired;
  if (!s.readCount || acquired.empty())
    return false;
  for (uint8_t i = 0; i < s.readCount; ++i) {
    auto [reader, seq] = s.readOrder[i];
    if (reader != tid && seq > acquired[reader])
      return false;
  }
  return true;
}
/// Records a read of the word by `reader` at its access count `seq`, in
/// the read epoch `epoch`.
inline void recordRead(Shadow &s, int64_t epoch, uint32_t reader,
                       uint64_t seq) {
  if (s.readEpoch != epoch)
    s.readCount = 0;
  else if (!s.readCount)
    return; // more readers than are kept
  for (uint8_t i = 0; i < s.readCount; ++i)
    if (s.readOrder[i].first == reader) {
      s.readOrder[i].second = seq;
      return;
    }
  if (s.readCount == s.readOrder.size() && s.readEpoch == epoch) {
    s.readCount = 0;
    return;
  }
  s.readOrder[s.readCount++] = {reader, seq};
}
/// Checks a shared-memory access against the race detector's shadow;
/// `site` is its source location, if known.
void access(const void *address, size_t bytes, bool write, const char *op,
            uint32_t tid, int64_t since = -1, const char *site = nullptr);
/// With race detection: records a plain store (`op`) of `bytes` to global
/// memory by the running thread, reporting one to bytes another block
/// stored to.
void globalStore(void *address, int64_t bytes, const char *op,
                 const char *site);
/// " at <site>", or nothing when the site is unknown.
std::string at(const char *site);
uint32_t lane();
uint32_t warpIndex();
Warp &warp();
unsigned lanesOfWarp();

/// Yields until `ready()`; `what` names the wait in a deadlock report.
template <typename Ready> void waitUntil(const char *what, Ready ready) {
  while (!block->failed && !ready()) {
    block->running->waitingFor = what;
    yield();
  }
  block->running->waitingFor = nullptr;
}

/// Arrives at a collective of kind `kind`; the last lane runs `compute`.
template <typename Compute> void collective(const char *kind, Compute compute) {
  Warp &w = warp();
  if (block->failed)
    return;
  if (w.arrived && w.kind != kind)
    return failBlock(std::string("warp ") + std::to_string(warpIndex()) +
                     " diverged: lanes wait at '" + w.kind + "' and lane " +
                     std::to_string(lane()) + " reached '" + kind + "'");
  w.kind = kind;
  ++block->progress;
  uint64_t generation = w.generation;
  if (++w.arrived == lanesOfWarp()) {
    compute(w);
    w.arrived = 0;
    ++w.generation;
    return;
  }
  waitUntil(kind, [&] { return w.generation != generation; });
}

/// A warp shuffle: each lane offers `value` with `key`; once all have, lane
/// i receives the value of lane `source(i, key_i)`, or `missing(i)` when
/// that lane is not in the warp.
template <typename Source, typename Missing>
uint32_t shuffle(const char *kind, uint32_t value, uint32_t key, Source source,
                 Missing missing) {
  Warp &w = warp();
  uint32_t l = lane();
  w.shuffled[l] = value;
  w.laneMask[l] = key;
  collective(kind, [&](Warp &w) {
    unsigned lanes = lanesOfWarp();
    for (unsigned i = 0; i < lanes; ++i) {
      uint32_t from = source(i, w.laneMask[i]);
      w.out[i][0] = from < lanes ? w.shuffled[from] : missing(w, i);
    }
  });
  return warp().out[l][0];
}

/// The warpgroup (its first thread) one of whose wgmmas not yet waited for
/// reads shared memory of `owner` (by default the running block) in
/// [offset, offset + bytes), or -1 (Hopper.cpp).
int64_t wgmmaReader(int64_t offset, int64_t bytes,
                    const Block *owner = nullptr);

/// `map` as the tensor map of a `rank`-D `what` (bulk tensor copy or
/// store) without a cache `hint`, or null with the thread failed (one the
/// runtime did not encode, another rank, a hint) (Hopper.cpp).
const TensorMap *checkedTensorMap(const void *map, uint32_t rank, bool hint,
                                  const std::string &what);
/// The thread with a bulk tensor store not yet waited for that reads shared
/// memory of the running block in [offset, offset + bytes), or -1
/// (BulkStores.cpp).
int64_t bulkStoreReader(int64_t offset, int64_t bytes);
/// The running thread ends: a bulk tensor store it has not waited for is an
/// error (the block's shared memory goes away under it).
void bulkStoresAtExit();
/// Adds the bulk tensor store entries (BulkStores.cpp) to the table.
void addBulkStoreEntries(std::unordered_map<std::string_view, void *> &table);

/// The block of the running block's cluster whose shared memory holds
/// `address`, or null.
Block *sharedOwner(const void *address);

/// Adds the sm_90a entries (Hopper.cpp) to the emulator's table.
void addHopperEntries(std::unordered_map<std::string_view, void *> &table);
/// Adds the cluster entries (Cluster.cpp): cluster ids, mapa,
/// barrier.cluster.
void addClusterEntries(std::unordered_map<std::string_view, void *> &table);
/// A thread of the running block exits: barrier.cluster stops counting it.
void clusterThreadExited();
/// Adds AMD's lane collectives (AmdLanes.cpp) to the emulator's table.
void addAmdLaneEntries(std::unordered_map<std::string_view, void *> &table);
/// Adds AMD's buffer entries (AmdBuffer.cpp) to the emulator's table.
void addAmdBufferEntries(std::unordered_map<std::string_view, void *> &table);
/// Adds the float instructions of both vendors (Math.cpp) to the
/// emulator's table.
void addMathEntries(std::unordered_map<std::string_view, void *> &table);
/// Adds AMD's MFMA entries (AmdMfma.cpp) to the emulator's table.
void addAmdMfmaEntries(std::unordered_map<std::string_view, void *> &table);

} // namespace tessera::emu::detail

#endif // TESSERA_RUNTIME_EMU_BLOCK_H
