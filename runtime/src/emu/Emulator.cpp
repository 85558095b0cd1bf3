//===- Emulator.cpp - Threads of a block as fibers
//-------------------------===//
//
// One OS thread runs one block at a time: each GPU thread of the block is a
// fiber (Boost.Context), resumed round-robin. A thread that must wait (a
// barrier, a warp collective whose lanes have not all arrived) yields.
// Warp collectives run when the last lane of the warp arrives; lanes that
// reach different collectives are a divergence error, and a round in which
// no thread makes progress is a deadlock, reported with what each thread
// waits for. cp.async copies are queued per thread and performed when a
// wait retires their group, so a missing wait reads stale shared memory.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include "tessera/runtime/kernel_abi.h"

#include <boost/context/fiber.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <memory>
#include <mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace tessera;
namespace ctx = boost::context;

namespace {

constexpr size_t kStackBytes = 256 * 1024;

/// Fiber stacks, reused across blocks (one mmap per stack per OS thread).
struct StackPool {
  std::vector<void *> free;
  ~StackPool() {
    for (void *stack : free)
      std::free(stack);
  }
};
thread_local StackPool stackPool;

struct PooledStack {
  ctx::stack_context allocate() {
    void *memory;
    if (!stackPool.free.empty()) {
      memory = stackPool.free.back();
      stackPool.free.pop_back();
    } else {
      memory = std::malloc(kStackBytes);
      if (!memory) {
        std::fprintf(stderr, "tessera emulator: out of memory for stacks\n");
        std::abort();
      }
    }
    ctx::stack_context sc;
    sc.size = kStackBytes;
    sc.sp = static_cast<char *>(memory) + kStackBytes;
    return sc;
  }
  void deallocate(ctx::stack_context &sc) {
    stackPool.free.push_back(static_cast<char *>(sc.sp) - sc.size);
  }
};

std::atomic<bool> raceDetection{false};

/// With race detection: which block (linear id) first wrote each global
/// byte in this launch, and with which thread. Plain stores of two blocks
/// to one address have no order a kernel can rely on.
struct GlobalWrite {
  uint64_t block;
  uint32_t tid;
  const char *site;
};
std::mutex globalMutex;
std::unordered_map<uintptr_t, GlobalWrite> globalWrites;
std::mutex errorMutex;
std::string firstError;

} // namespace

namespace tessera::emu::detail {

thread_local Block *block;

void report(std::string message) {
  std::lock_guard<std::mutex> lock(errorMutex);
  if (firstError.empty())
    firstError = std::move(message);
}

/// Reports a block's unrecoverable error and lets its threads finish
/// without waiting (the results are then meaningless; the launch fails).
void failBlock(const std::string &message) {
  report(inBlock(message));
  // The blocks of a cluster may wait for each other: all of them finish.
  if (block->cluster)
    for (Block *member : block->cluster->blocks)
      member->failed = true;
  block->failed = true;
}

void failThread(const std::string &message) {
  const Thread *self = block->running;
  failBlock(who(self->tid) + at(self->site) + ": " + message);
}

std::string inBlock(const std::string &message) {
  return "block (" + std::to_string(block->ctaid[0]) + ", " +
         std::to_string(block->ctaid[1]) + ", " +
         std::to_string(block->ctaid[2]) + "): " + message;
}

void reportRace(const std::string &message) {
  block->raced = true;
  report(inBlock(message));
}

void yield() {
  Thread *self = block->running;
  self->sink = std::move(self->sink).resume();
}

std::string who(uint32_t tid) {
  uint32_t size = block->warpSize;
  return "thread " + std::to_string(tid) + " (warp " +
         std::to_string(tid / size) + ", lane " + std::to_string(tid % size) +
         ")";
}

std::string at(const char *site) {
  return site ? std::string(" at ") + site : std::string();
}

/// Checks an access of `bytes` at `address` by thread `tid` against the
/// shadow of shared memory. Writes by cp.async land at their wait but may
/// happen any time after their issue (`since`). A plain store is ordered
/// before an access by a later barrier epoch or by mbarrier phases
/// (releasedTo).
void access(const void *address, size_t bytes, bool write, const char *op,
            uint32_t tid, int64_t since, const char *site) {
  Block &b = *block;
  if (b.shadow.empty() || b.raced)
    return;
  int64_t offset = static_cast<const char *>(address) - b.shared;
  if (offset < 0 || offset + int64_t(bytes) > b.sharedBytes)
    return reportRace(who(tid) + " " + op + at(site) + " accesses " +
                      std::to_string(bytes) + " bytes at shared offset " +
                      std::to_string(offset) + ", outside the kernel's " +
                      std::to_string(b.sharedBytes) + " bytes");
  if (int64_t group = write ? wgmmaReader(offset, int64_t(bytes)) : -1;
      group >= 0)
    return reportRace(who(tid) + " " + op + at(site) + " writes shared byte " +
                      std::to_string(offset) + " that a wgmma of warpgroup " +
                      std::to_string(group / 128) +
                      " may still read: not every thread of the warpgroup "
                      "has waited for its group (wgmma.wait_group)");
  if (int64_t reader = write ? bulkStoreReader(offset, int64_t(bytes)) : -1;
      reader >= 0)
    return reportRace(who(tid) + " " + op + at(site) + " writes shared byte " +
                      std::to_string(offset) + " that a bulk tensor store " +
                      "of " + who(uint32_t(reader)) +
                      " may still read: it has not waited for the store's "
                      "group (cp.async.bulk.wait_group.read)");
  int64_t epoch = int64_t(b.barrierGeneration);
  if (since < 0)
    since = epoch;
  for (int64_t word = offset / 4; word < (offset + int64_t(bytes) + 3) / 4;
       ++word) {
    Shadow &s = b.shadow[size_t(word)];
    std::string byte =
        " shared byte " + std::to_string(4 * word) + " with no barrier between";
    if (s.writeEpoch >= since && s.writer != tid && !releasedTo(s, tid))
      return reportRace(who(tid) + " " + op + at(site) +
                        (write ? " writes" : " reads") + byte + " after " +
                        who(s.writer) + " " + s.writeOp + at(s.writeSite) +
                        " wrote it");
    if (write && s.readEpoch >= since && (s.reader != tid || s.manyReaders) &&
        !readsReleasedTo(s, tid))
      return reportRace(who(tid) + " " + op + at(site) + " writes" + byte +
                        " while " + who(s.reader) + " " + s.readOp +
                        at(s.readSite) + " reads it");
    if (write) {
      s.writeEpoch = epoch;
      s.writer = tid;
      s.writeOp = op;
      s.writeSite = site;
      s.writeSeq =
          std::strcmp(op, "st.shared") == 0 || std::strcmp(op, "stmatrix") == 0
              ? ++b.threads[tid].genericWrites
              : 0;
    } else if (s.readEpoch == epoch) {
      s.manyReaders |= s.reader != tid;
      recordRead(s, epoch, tid, ++b.threads[tid].genericWrites);
    } else {
      recordRead(s, epoch, tid, ++b.threads[tid].genericWrites);
      s.readEpoch = epoch;
      s.reader = tid;
      s.manyReaders = false;
      s.readOp = op;
      s.readSite = site;
    }
  }
}

void globalStore(void *address, int64_t bytes, const char *op,
                 const char *site) {
  if (!raceDetection || block->raced)
    return;
  Block &b = *block;
  uint64_t id =
      b.ctaid[0] +
      uint64_t(b.nctaid[0]) * (b.ctaid[1] + uint64_t(b.nctaid[1]) * b.ctaid[2]);
  uint32_t tid = b.running->tid;
  std::unique_lock<std::mutex> lock(globalMutex);
  for (int64_t i = 0; i < bytes; ++i) {
    auto [it, inserted] = globalWrites.try_emplace(
        reinterpret_cast<uintptr_t>(address) + uintptr_t(i),
        GlobalWrite{id, tid, site});
    if (inserted || it->second.block == id)
      continue;
    GlobalWrite other = it->second;
    lock.unlock();
    uint64_t x = b.nctaid[0], xy = x * b.nctaid[1];
    reportRace(who(tid) + " " + op + at(site) +
               " writes global memory that block (" +
               std::to_string(other.block % x) + ", " +
               std::to_string(other.block / x % b.nctaid[1]) + ", " +
               std::to_string(other.block / xy) + ") " + who(other.tid) +
               at(other.site) +
               " also wrote: two blocks store to one address without atomics");
    return;
  }
}

uint32_t lane() { return block->running->tid % block->warpSize; }
/// The running thread's warp, its index and how many lanes it has (the
/// last warp of a block may be partial).
uint32_t warpIndex() { return block->running->tid / block->warpSize; }
Warp &warp() { return block->warps[warpIndex()]; }
unsigned lanesOfWarp() {
  return std::min(block->warpSize, block->ntid - block->warpSize * warpIndex());
}

} // namespace tessera::emu::detail

using namespace tessera::emu::detail;

namespace {

/// Runs the blocks of one cluster to their end: every thread of every
/// block a fiber, resumed round-robin with `block` set to its own.
void runCluster(Cluster &cluster, void (*thread)(void *), void *args) {
  size_t live = 0;
  for (Block *b : cluster.blocks)
    for (uint32_t t = 0; t < b->ntid; ++t) {
      Thread &th = b->threads[t];
      th.tid = t;
      th.self = ctx::fiber(std::allocator_arg, PooledStack(),
                           [&th, thread, args](ctx::fiber &&sink) {
                             th.sink = std::move(sink);
                             thread(args);
                             bulkStoresAtExit();
                             th.done = true;
                             ++block->progress;
                             clusterThreadExited();
                             return std::move(th.sink);
                           });
      ++live;
    }
  cluster.expected = uint32_t(live);
  auto progress = [&] {
    uint64_t sum = 0;
    for (Block *b : cluster.blocks)
      sum += b->progress;
    return sum;
  };
  while (live) {
    uint64_t before = progress();
    for (Block *b : cluster.blocks)
      for (Thread &th : b->threads) {
        if (th.done)
          continue;
        block = b;
        b->running = &th;
        th.self = std::move(th.self).resume();
        if (th.done)
          --live;
      }
    if (live && progress() == before) {
      std::string report = "deadlock: no thread can proceed;";
      Block *waiting = cluster.blocks.front();
      for (Block *b : cluster.blocks)
        for (Thread &th : b->threads)
          if (!th.done && th.waitingFor && waiting == cluster.blocks.front() &&
              report.back() == ';') {
            waiting = b;
            report += " thread " + std::to_string(th.tid) + " waits at '" +
                      th.waitingFor + "'" +
                      (th.site ? std::string(" (") + th.site + ")" : "");
          }
      block = waiting;
      failBlock(report);
    }
  }
  for (Block *b : cluster.blocks)
    b->running = nullptr;
}

void performGroup(std::vector<Copy> &group) {
  for (const Copy &copy : group) {
    access(copy.dst, copy.bytes, true, "cp.async", block->running->tid,
           int64_t(copy.issueEpoch), copy.site);
    if (copy.srcBytes)
      std::memcpy(copy.dst, copy.src, copy.srcBytes);
    if (copy.srcBytes < copy.bytes)
      std::memset(static_cast<char *>(copy.dst) + copy.srcBytes, 0,
                  copy.bytes - copy.srcBytes);
  }
}

//===----------------------------------------------------------------------===//
// The entries an image calls
//===----------------------------------------------------------------------===//

template <uint32_t WarpSize>
void emuRunGrid(void (*thread)(void *), void *args, int64_t gx, int64_t gy,
                int64_t gz, int64_t begin, int64_t end, int64_t threads,
                int64_t sharedBytes, int64_t cx, int64_t cy, int64_t cz) {
  // Programs [begin, end), numbered cluster by cluster (clusters x fastest
  // in the grid of clusters, then the rank within the cluster): whole
  // clusters of cx x cy x cz blocks.
  int64_t size = cx * cy * cz;
  if (begin % size || end % size) {
    report("programs [" + std::to_string(begin) + ", " + std::to_string(end) +
           ") are not whole clusters of " + std::to_string(size) +
           " blocks: the launch's metadata and its image disagree on the "
           "cluster");
    return;
  }
  // 1024-byte aligned: TMA and wgmma swizzle on address bits 4 to 9.
  int64_t stride = (sharedBytes + 1023) / 1024 * 1024;
  std::vector<char> shared(size_t(stride * size) + 1024);
  char *aligned = reinterpret_cast<char *>(
      (reinterpret_cast<uintptr_t>(shared.data()) + 1023) & ~uintptr_t(1023));
  int64_t clusters[3] = {gx / cx, gy / cy, gz / cz};
  for (int64_t c = begin / size; c < end / size; ++c) {
    Cluster cluster;
    int64_t id[3] = {c % clusters[0], (c / clusters[0]) % clusters[1],
                     c / (clusters[0] * clusters[1])};
    int64_t dims[3] = {cx, cy, cz};
    for (int d = 0; d < 3; ++d) {
      cluster.dims[d] = uint32_t(dims[d]);
      cluster.id[d] = uint32_t(id[d]);
      cluster.count[d] = uint32_t(clusters[d]);
    }
    std::vector<Block> blocks(static_cast<size_t>(size));
    for (int64_t r = 0; r < size; ++r) {
      Block &b = blocks[size_t(r)];
      int64_t local[3] = {r % cx, (r / cx) % cy, r / (cx * cy)};
      for (int d = 0; d < 3; ++d) {
        b.clusterCtaid[d] = uint32_t(local[d]);
        b.ctaid[d] = uint32_t(id[d] * dims[d] + local[d]);
      }
      b.nctaid[0] = uint32_t(gx);
      b.nctaid[1] = uint32_t(gy);
      b.nctaid[2] = uint32_t(gz);
      b.cluster = &cluster;
      b.rank = uint32_t(r);
      b.ntid = uint32_t(threads);
      b.threads.resize(size_t(threads));
      b.warpSize = WarpSize;
      b.warps.resize((size_t(threads) + WarpSize - 1) / WarpSize);
      // Shared memory starts as garbage on a GPU: poison it.
      b.shared = aligned + r * stride;
      std::memset(b.shared, 0xA5, size_t(sharedBytes));
      b.sharedBytes = sharedBytes;
      if (raceDetection) {
        b.shadow.assign(size_t(sharedBytes + 3) / 4, Shadow());
        for (Thread &t : b.threads)
          t.acquired.assign(size_t(threads), 0);
      }
      cluster.blocks.push_back(&b);
    }
    runCluster(cluster, thread, args);
    block = nullptr;
  }
}
static_assert(std::is_same_v<decltype(&emuRunGrid<32>), tessera_emu_run_grid>,
              "the run_grid entry has the signature kernel_abi.h gives");

void *emuDynamicShared() { return block->shared; }

void emuGlobalStore(void *address, int64_t bytes, const char *site) {
  globalStore(address, bytes, "st.global", site);
}

void emuSite(const char *site) { block->running->site = site; }

void emuSharedAccess(void *address, int64_t bytes, int32_t write,
                     const char *site) {
  access(address, size_t(bytes), write != 0, write ? "st.shared" : "ld.shared",
         block->running->tid, -1, site);
}

uint32_t emuTidX() { return block->running->tid; }
uint32_t emuZero() { return 0; }
uint32_t emuNtidX() { return block->ntid; }
uint32_t emuOne() { return 1; }
uint32_t emuCtaidX() { return block->ctaid[0]; }
uint32_t emuCtaidY() { return block->ctaid[1]; }
uint32_t emuCtaidZ() { return block->ctaid[2]; }
uint32_t emuNctaidX() { return block->nctaid[0]; }
uint32_t emuNctaidY() { return block->nctaid[1]; }
uint32_t emuNctaidZ() { return block->nctaid[2]; }
uint32_t emuLaneId() { return lane(); }

/// Every thread of the block (a stricter rule than AMD's, which counts
/// waves: a barrier under divergence deadlocks here and is reported).
void barrier(const char *name) {
  Block &b = *block;
  ++b.progress;
  uint64_t generation = b.barrierGeneration;
  if (++b.barrierArrived == b.ntid) {
    b.barrierArrived = 0;
    ++b.barrierGeneration;
    return;
  }
  waitUntil(name, [&] { return b.barrierGeneration != generation; });
}
void emuBarrier(uint32_t) { barrier("bar.sync"); }
/// `bar.sync id, count`: the first `count` threads to arrive at barrier
/// `id` meet there (warp-specialized kernels' consumers). For the race
/// detector the meeting starts a barrier epoch as a block barrier does:
/// the threads that do not take part make no plain shared accesses in the
/// kernels the compiler emits (a producer role only issues bulk copies).
/// Arrival at named barrier `id` for `count` threads (`bar.sync` when
/// `wait`, else `bar.arrive`, which does not wait for the others); null
/// when the barrier completed or this thread need not wait.
static NamedBarrier *arriveNamed(uint32_t id, uint32_t count, bool wait,
                                 uint64_t &generation) {
  Block &b = *block;
  const char *name = wait ? "bar.sync " : "bar.arrive ";
  if (id >= b.named.size() || count == 0 || count % b.warpSize ||
      count > b.ntid) {
    failThread(name + std::to_string(id) + ", " + std::to_string(count) +
               ": the id must be below 16 and the count a multiple "
               "of the warp size up to the block's threads");
    return nullptr;
  }
  NamedBarrier &named = b.named[id];
  if (named.arrived && named.count != count) {
    failThread(name + std::to_string(id) + " with " + std::to_string(count) +
               " threads while others wait there for " +
               std::to_string(named.count));
    return nullptr;
  }
  named.count = count;
  ++b.progress;
  generation = named.generation;
  if (++named.arrived == count) {
    named.arrived = 0;
    ++named.generation;
    ++b.barrierGeneration;
    return nullptr;
  }
  return wait ? &named : nullptr;
}

void emuNamedBarrier(uint32_t id, uint32_t count) {
  Block &b = *block;
  if (id == 0 && count == b.ntid)
    return barrier("bar.sync");
  uint64_t generation = 0;
  if (NamedBarrier *named = arriveNamed(id, count, true, generation))
    waitUntil("bar.sync (named)",
              [&] { return named->generation != generation; });
}
/// `bar.arrive id, count` (ping-pong consumers' turns): counts towards
/// the barrier's completion without waiting; the threads that wait there
/// with `bar.sync` are ordered after this thread's earlier accesses.
void emuNamedArrive(uint32_t id, uint32_t count) {
  uint64_t generation = 0;
  if (id == 0)
    return failThread("bar.arrive 0: barrier 0 is the block's bar.sync");
  arriveNamed(id, count, false, generation);
}
void emuBarrier0() { barrier("bar.sync"); }
void emuSBarrier() { barrier("s_barrier"); }

void emuCpAsync16(void *dst, const void *src, uint32_t srcBytes) {
  if (srcBytes > 16)
    return failThread("cp.async with a source size above 16 bytes");
  block->running->open.push_back(
      {dst, src, 16, srcBytes, block->barrierGeneration, block->running->site});
}
void emuCpAsync16Full(void *dst, const void *src) {
  emuCpAsync16(dst, src, 16);
}
void emuCommitGroup() {
  Thread &t = *block->running;
  t.groups.push_back(std::move(t.open));
  t.open.clear();
}
void emuWaitGroup(uint32_t pending) {
  Thread &t = *block->running;
  while (t.groups.size() > pending) {
    performGroup(t.groups.front());
    t.groups.pop_front();
  }
}
void emuWaitAll() {
  emuCommitGroup();
  emuWaitGroup(0);
}

template <unsigned N, bool Trans> void emuLdmatrix(uint32_t *out, void *row) {
  // Lanes beyond 8N give addresses the instruction does not use.
  if (lane() < 8 * N)
    access(row, 16, false, Trans ? "ldmatrix.trans" : "ldmatrix",
           block->running->tid, -1, block->running->site);
  warp().address[lane()] = row;
  uint32_t l = lane();
  collective(Trans ? "ldmatrix.trans" : "ldmatrix",
             [](Warp &w) { emu::ldmatrix(w.address, N, Trans, w.out); });
  std::memcpy(out, warp().out[l], 4 * N);
}
uint32_t emuLdmatrixX1(void *row) {
  uint32_t r;
  emuLdmatrix<1, false>(&r, row);
  return r;
}
uint32_t emuLdmatrixX1Trans(void *row) {
  uint32_t r;
  emuLdmatrix<1, true>(&r, row);
  return r;
}

/// stmatrix (no .trans): this lane's row address and registers staged in
/// the warp, the rows written once every lane is there.
template <unsigned N> void stmatrixLane(void *row, const uint32_t r[N]) {
  if (lane() < 8 * N)
    access(row, 16, true, "stmatrix", block->running->tid, -1,
           block->running->site);
  Warp &w = warp();
  uint32_t l = lane();
  w.address[l] = row;
  std::memcpy(w.a[l], r, 4 * N);
  collective("stmatrix", [](Warp &w) {
    emu::stmatrix(const_cast<void *const *>(w.address), N, false, w.a);
  });
}
void emuStmatrixX1(void *row, uint32_t r0) {
  uint32_t r[1] = {r0};
  stmatrixLane<1>(row, r);
}
void emuStmatrixX2(void *row, uint32_t r0, uint32_t r1) {
  uint32_t r[2] = {r0, r1};
  stmatrixLane<2>(row, r);
}
void emuStmatrixX4(void *row, uint32_t r0, uint32_t r1, uint32_t r2,
                   uint32_t r3) {
  uint32_t r[4] = {r0, r1, r2, r3};
  stmatrixLane<4>(row, r);
}

/// shfl.sync.bfly: lane l receives the value of lane l xor laneMask (its
/// own when that lane is outside the warp's segment `clamp`).
uint32_t shuffleXor(uint32_t value, uint32_t mask, uint32_t clamp) {
  (void)clamp; // full-warp segments (c = 0x1f) are what the lowering emits
  return shuffle(
      "shfl.sync.bfly", value, mask,
      [](uint32_t i, uint32_t key) { return i ^ key; },
      [](Warp &w, uint32_t i) { return w.shuffled[i]; });
}
uint32_t emuShflBflyI32(uint32_t, uint32_t value, uint32_t mask,
                        uint32_t clamp) {
  return shuffleXor(value, mask, clamp);
}
float emuShflBflyF32(uint32_t, float value, uint32_t mask, uint32_t clamp) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = shuffleXor(bits, mask, clamp);
  std::memcpy(&value, &bits, 4);
  return value;
}

/// One lane's part of an mma.sync: its A and B registers and accumulators
/// (f32, or i32 bits in the warp's f32 registers) staged in the warp, the
/// warp's instruction run once all lanes are there, this lane's D read back.
template <typename Acc, typename Compute>
void mmaLane(Acc *d, const uint32_t a[4], uint32_t b0, uint32_t b1,
             const Acc c[4], const char *kind, Compute compute) {
  static_assert(sizeof(Acc) == sizeof(float), "accumulators are 32-bit");
  Warp &w = warp();
  uint32_t l = lane();
  std::memcpy(w.a[l], a, 4 * sizeof(uint32_t));
  w.b[l][0] = b0;
  w.b[l][1] = b1;
  std::memcpy(w.c[l], c, 4 * sizeof(Acc));
  collective(kind, compute);
  std::memcpy(d, warp().d[l], 4 * sizeof(Acc));
}

template <bool F16>
void emuMma(float *d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
            uint32_t b0, uint32_t b1, float c0, float c1, float c2, float c3) {
  uint32_t a[4] = {a0, a1, a2, a3};
  float c[4] = {c0, c1, c2, c3};
  mmaLane(d, a, b0, b1, c, F16 ? "mma.m16n8k16.f16" : "mma.m16n8k16.bf16",
          [](Warp &w) { emu::mmaM16N8K16(w.a, w.b, w.c, w.d, F16); });
}

void emuMmaS8(int32_t *d, uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
              uint32_t b0, uint32_t b1, int32_t c0, int32_t c1, int32_t c2,
              int32_t c3) {
  uint32_t a[4] = {a0, a1, a2, a3};
  int32_t c[4] = {c0, c1, c2, c3};
  mmaLane(d, a, b0, b1, c, "mma.m16n8k32.s8", [](Warp &w) {
    int32_t c[kMaxLanes][4], d[kMaxLanes][4];
    std::memcpy(c, w.c, sizeof c);
    emu::mmaM16N8K32S8(w.a, w.b, c, d);
    std::memcpy(w.d, d, sizeof d);
  });
}

const std::unordered_map<std::string_view, void *> &registry() {
  static const std::unordered_map<std::string_view, void *> table = [] {
    std::unordered_map<std::string_view, void *> table = {
        {TESSERA_EMU_RUN_GRID, reinterpret_cast<void *>(emuRunGrid<32>)},
        {TESSERA_EMU_RUN_GRID_WAVE64, reinterpret_cast<void *>(emuRunGrid<64>)},
        {"tessera.emu.dynamic_shared",
         reinterpret_cast<void *>(emuDynamicShared)},
        {"tessera.emu.shared_access",
         reinterpret_cast<void *>(emuSharedAccess)},
        {"tessera.emu.global_store", reinterpret_cast<void *>(emuGlobalStore)},
        {"tessera.emu.site", reinterpret_cast<void *>(emuSite)},
        {"llvm.nvvm.read.ptx.sreg.tid.x", reinterpret_cast<void *>(emuTidX)},
        {"llvm.nvvm.read.ptx.sreg.tid.y", reinterpret_cast<void *>(emuZero)},
        {"llvm.nvvm.read.ptx.sreg.tid.z", reinterpret_cast<void *>(emuZero)},
        {"llvm.nvvm.read.ptx.sreg.ntid.x", reinterpret_cast<void *>(emuNtidX)},
        {"llvm.nvvm.read.ptx.sreg.ntid.y", reinterpret_cast<void *>(emuOne)},
        {"llvm.nvvm.read.ptx.sreg.ntid.z", reinterpret_cast<void *>(emuOne)},
        {"llvm.nvvm.read.ptx.sreg.ctaid.x",
         reinterpret_cast<void *>(emuCtaidX)},
        {"llvm.nvvm.read.ptx.sreg.ctaid.y",
         reinterpret_cast<void *>(emuCtaidY)},
        {"llvm.nvvm.read.ptx.sreg.ctaid.z",
         reinterpret_cast<void *>(emuCtaidZ)},
        {"llvm.nvvm.read.ptx.sreg.nctaid.x",
         reinterpret_cast<void *>(emuNctaidX)},
        {"llvm.nvvm.read.ptx.sreg.nctaid.y",
         reinterpret_cast<void *>(emuNctaidY)},
        {"llvm.nvvm.read.ptx.sreg.nctaid.z",
         reinterpret_cast<void *>(emuNctaidZ)},
        {"llvm.nvvm.read.ptx.sreg.laneid", reinterpret_cast<void *>(emuLaneId)},
        {"llvm.nvvm.barrier.cta.sync.aligned.all",
         reinterpret_cast<void *>(emuBarrier)},
        {"llvm.nvvm.barrier0", reinterpret_cast<void *>(emuBarrier0)},
        {"llvm.nvvm.barrier.cta.sync.aligned.count",
         reinterpret_cast<void *>(emuNamedBarrier)},
        {"llvm.nvvm.barrier.cta.arrive.aligned.count",
         reinterpret_cast<void *>(emuNamedArrive)},
        {"llvm.nvvm.cp.async.cg.shared.global.16.s",
         reinterpret_cast<void *>(emuCpAsync16)},
        {"llvm.nvvm.cp.async.ca.shared.global.16.s",
         reinterpret_cast<void *>(emuCpAsync16)},
        {"llvm.nvvm.cp.async.cg.shared.global.16",
         reinterpret_cast<void *>(emuCpAsync16Full)},
        {"llvm.nvvm.cp.async.ca.shared.global.16",
         reinterpret_cast<void *>(emuCpAsync16Full)},
        {"llvm.nvvm.cp.async.commit.group",
         reinterpret_cast<void *>(emuCommitGroup)},
        {"llvm.nvvm.cp.async.wait.group",
         reinterpret_cast<void *>(emuWaitGroup)},
        {"llvm.nvvm.cp.async.wait.all", reinterpret_cast<void *>(emuWaitAll)},
        {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.b16.p3",
         reinterpret_cast<void *>(emuLdmatrixX1)},
        {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x1.trans.b16.p3",
         reinterpret_cast<void *>(emuLdmatrixX1Trans)},
        {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.b16.p3",
         reinterpret_cast<void *>(emuLdmatrix<2, false>)},
        {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x2.trans.b16.p3",
         reinterpret_cast<void *>(emuLdmatrix<2, true>)},
        {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3",
         reinterpret_cast<void *>(emuLdmatrix<4, false>)},
        {"llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.trans.b16.p3",
         reinterpret_cast<void *>(emuLdmatrix<4, true>)},
        {"llvm.nvvm.stmatrix.sync.aligned.m8n8.x1.b16.p3",
         reinterpret_cast<void *>(emuStmatrixX1)},
        {"llvm.nvvm.stmatrix.sync.aligned.m8n8.x2.b16.p3",
         reinterpret_cast<void *>(emuStmatrixX2)},
        {"llvm.nvvm.stmatrix.sync.aligned.m8n8.x4.b16.p3",
         reinterpret_cast<void *>(emuStmatrixX4)},
        {"llvm.nvvm.shfl.sync.bfly.i32",
         reinterpret_cast<void *>(emuShflBflyI32)},
        {"llvm.nvvm.shfl.sync.bfly.f32",
         reinterpret_cast<void *>(emuShflBflyF32)},
        {"llvm.nvvm.mma.m16n8k16.row.col.bf16",
         reinterpret_cast<void *>(emuMma<false>)},
        {"llvm.nvvm.mma.m16n8k16.row.col.f32.f32",
         reinterpret_cast<void *>(emuMma<true>)},
        {"llvm.nvvm.mma.m16n8k32.row.col.s8",
         reinterpret_cast<void *>(emuMmaS8)},
        {"llvm.amdgcn.workitem.id.x", reinterpret_cast<void *>(emuTidX)},
        {"llvm.amdgcn.workitem.id.y", reinterpret_cast<void *>(emuZero)},
        {"llvm.amdgcn.workitem.id.z", reinterpret_cast<void *>(emuZero)},
        {"llvm.amdgcn.workgroup.id.x", reinterpret_cast<void *>(emuCtaidX)},
        {"llvm.amdgcn.workgroup.id.y", reinterpret_cast<void *>(emuCtaidY)},
        {"llvm.amdgcn.workgroup.id.z", reinterpret_cast<void *>(emuCtaidZ)},
        {"llvm.amdgcn.s.barrier", reinterpret_cast<void *>(emuSBarrier)},
    };
    addHopperEntries(table);
    addBulkStoreEntries(table);
    addClusterEntries(table);
    addAmdBufferEntries(table);
    addAmdLaneEntries(table);
    addAmdMfmaEntries(table);
    addMathEntries(table);
    return table;
  }();
  return table;
}

} // namespace

void emu::setRaceDetection(bool enabled) { raceDetection = enabled; }

void emu::beginLaunch() {
  std::lock_guard<std::mutex> lock(globalMutex);
  globalWrites.clear();
}

std::string emu::takeError() {
  std::lock_guard<std::mutex> lock(errorMutex);
  return std::exchange(firstError, std::string());
}

void *emu::lookup(std::string_view name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second;
}

bool emu::bindImage(void *library, std::string &missing) {
  auto table = static_cast<void **>(dlsym(library, TESSERA_EMU_TABLE_SYMBOL));
  auto names = static_cast<const char *const *>(
      dlsym(library, TESSERA_EMU_NAMES_SYMBOL));
  auto count =
      static_cast<const int64_t *>(dlsym(library, TESSERA_EMU_COUNT_SYMBOL));
  if (!table || !names || !count) {
    missing = TESSERA_EMU_TABLE_SYMBOL;
    return false;
  }
  for (int64_t i = 0; i < *count; ++i) {
    void *entry = lookup(names[i]);
    if (!entry) {
      missing = names[i];
      return false;
    }
    table[i] = entry;
  }
  return true;
}
