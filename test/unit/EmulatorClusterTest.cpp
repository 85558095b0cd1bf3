//===- EmulatorClusterTest.cpp - Thread-block clusters in the emulator ----===//
//
// Grids run through the emulator's run_grid entry with a "kernel" written
// in C++ that calls the same entries an image's device code calls
// (cluster special registers, mapa, barrier.cluster, mbarriers, multicast
// bulk tensor copies), as sm_90a code would use them.
//
//===----------------------------------------------------------------------===//

#include "EmulatorEntry.h"
#include "tessera/runtime/kernel_abi.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace tessera;

namespace {

using test::emulatorEntry;

using Sreg = uint32_t (*)();
using Shared = void *(*)();
using Mapa = void *(*)(void *, uint32_t);
using Void = void (*)();
using Init = void (*)(void *, uint32_t);
using ArriveTx = uint64_t (*)(void *, uint32_t);
using RemoteArrive = void (*)(void *, uint32_t);
using TryWait = bool (*)(void *, uint32_t);
using Tma2d = void (*)(void *, void *, const void *, int32_t, int32_t, uint16_t,
                       uint64_t, uint32_t, uint32_t, uint32_t);

struct Entries {
  Sreg tid = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.tid.x");
  Sreg ctaidX = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.ctaid.x");
  Sreg ctaidY = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.ctaid.y");
  Sreg rank = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.cluster.ctarank");
  Sreg ranks = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.cluster.nctarank");
  Sreg clusterCtaidX =
      emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.cluster.ctaid.x");
  Sreg clusterIdX = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.clusterid.x");
  Sreg clusterIdY = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.clusterid.y");
  Sreg clustersX = emulatorEntry<Sreg>("llvm.nvvm.read.ptx.sreg.nclusterid.x");
  Shared shared = emulatorEntry<Shared>("tessera.emu.dynamic_shared");
  Mapa mapa = emulatorEntry<Mapa>("llvm.nvvm.mapa.shared.cluster");
  Void arrive = emulatorEntry<Void>("llvm.nvvm.barrier.cluster.arrive");
  Void wait = emulatorEntry<Void>("llvm.nvvm.barrier.cluster.wait");
  Void sync = emulatorEntry<Void>("llvm.nvvm.barrier0");
  Init init = emulatorEntry<Init>("llvm.nvvm.mbarrier.init.shared");
  ArriveTx arriveTx = emulatorEntry<ArriveTx>(
      "llvm.nvvm.mbarrier.arrive.expect.tx.scope.cta.space.cta");
  RemoteArrive remoteArrive = emulatorEntry<RemoteArrive>(
      "llvm.nvvm.mbarrier.arrive.scope.cluster.space.cluster");
  TryWait tryWait = emulatorEntry<TryWait>(
      "llvm.nvvm.mbarrier.try.wait.parity.scope.cluster.space.cta");
  Tma2d tma =
      emulatorEntry<Tma2d>("llvm.nvvm.cp.async.bulk.tensor.g2s.tile.2d");
};

void runGrid(void (*thread)(void *), void *args, int64_t gx, int64_t gy,
             int64_t threads, int64_t sharedBytes, int64_t cx) {
  auto run = emulatorEntry<tessera_emu_run_grid>(TESSERA_EMU_RUN_GRID);
  emu::beginLaunch();
  run(thread, args, gx, gy, 1, 0, gx * gy, threads, sharedBytes, cx, 1, 1);
}

/// What each thread of the first test saw.
struct Seen {
  uint32_t rank, ranks, clusterCtaid, clusterId[2], clusters, peerValue;
};

struct IdsArgs {
  Entries *e;
  std::vector<Seen> *seen;
};

void idsThread(void *raw) {
  auto &args = *static_cast<IdsArgs *>(raw);
  Entries &e = *args.e;
  uint32_t tid = e.tid(), x = e.ctaidX(), y = e.ctaidY();
  auto *mine = static_cast<uint32_t *>(e.shared());
  mine[tid] = x * 1000 + y * 100 + tid;
  // Every block's stores are done before any block reads a peer's.
  e.arrive();
  e.wait();
  uint32_t rank = e.rank();
  auto *peer = static_cast<uint32_t *>(e.mapa(mine, rank ^ 1));
  Seen &s = (*args.seen)[(y * 4 + x) * 64 + tid];
  s = {rank,
       e.ranks(),
       e.clusterCtaidX(),
       {e.clusterIdX(), e.clusterIdY()},
       e.clustersX(),
       peer[tid]};
  // No block exits while a peer may still read its shared memory.
  e.arrive();
  e.wait();
}

TEST(EmulatorCluster, IdsAndDistributedSharedMemory) {
  Entries e;
  std::vector<Seen> seen(4 * 2 * 64);
  IdsArgs args{&e, &seen};
  runGrid(idsThread, &args, 4, 2, 64, 256, 2);
  EXPECT_EQ(emu::takeError(), "");
  for (uint32_t y = 0; y < 2; ++y)
    for (uint32_t x = 0; x < 4; ++x)
      for (uint32_t t = 0; t < 64; ++t) {
        const Seen &s = seen[(y * 4 + x) * 64 + t];
        EXPECT_EQ(s.rank, x % 2);
        EXPECT_EQ(s.ranks, 2u);
        EXPECT_EQ(s.clusterCtaid, x % 2);
        EXPECT_EQ(s.clusterId[0], x / 2);
        EXPECT_EQ(s.clusterId[1], y);
        EXPECT_EQ(s.clusters, 2u);
        // The peer is the other block of the pair.
        EXPECT_EQ(s.peerValue, (x ^ 1) * 1000 + y * 100 + t)
            << "block (" << x << ", " << y << ") thread " << t;
      }
}

void waitWithoutArrive(void *raw) { static_cast<IdsArgs *>(raw)->e->wait(); }

TEST(EmulatorCluster, WaitWithoutArriveIsAnError) {
  Entries e;
  IdsArgs args{&e, nullptr};
  runGrid(waitWithoutArrive, &args, 2, 1, 32, 256, 2);
  EXPECT_NE(emu::takeError().find("barrier.cluster.wait without a "
                                  "barrier.cluster.arrive"),
            std::string::npos);
}

TEST(EmulatorCluster, PartialClustersAreAnError) {
  Entries e;
  IdsArgs args{&e, nullptr};
  auto run = emulatorEntry<tessera_emu_run_grid>(TESSERA_EMU_RUN_GRID);
  emu::beginLaunch();
  // Programs 0 to 2 of clusters of 2: the image and the launch disagree.
  run(waitWithoutArrive, &args, 4, 1, 1, 0, 3, 32, 256, 2, 1, 1);
  EXPECT_NE(emu::takeError().find("programs [0, 3) are not whole clusters "
                                  "of 2 blocks"),
            std::string::npos);
}

/// The multicast test: a 64x64 tile of 16-bit values, each block of a
/// cluster of 2 copying 32 of its rows into both blocks at once.
struct CastArgs {
  Entries *e;
  emu::TensorMap *map;
  std::vector<uint16_t> *out;
  /// Rank 1 skips its copy (a planted bug): rank 0's wait never completes.
  bool skip = false;
};

constexpr int64_t kTile = 1024; // the tile's shared offset
constexpr int64_t kFull = 0;    // the full barrier's
constexpr int64_t kEmpty = 8;   // the empty barrier's

void castThread(void *raw) {
  auto &args = *static_cast<CastArgs *>(raw);
  Entries &e = *args.e;
  auto *shared = static_cast<char *>(e.shared());
  uint32_t tid = e.tid(), rank = e.rank(), x = e.ctaidX();
  if (tid == 0) {
    e.init(shared + kFull, 1);
    // Released by both blocks' thread 0.
    e.init(shared + kEmpty, 2);
  }
  e.sync();
  // Peers' barriers are initialized before anything reaches them.
  e.arrive();
  e.wait();
  if (tid == 0) {
    // Both halves land here: expect the whole tile's bytes.
    e.arriveTx(shared + kFull, 64 * 64 * 2);
    if (!(args.skip && rank == 1))
      e.tma(shared + kTile + rank * 32 * 128, shared + kFull, args.map, 0,
            int32_t(rank * 32), /*mask=*/0b11, 0, /*useMask=*/1, 0, 0);
  }
  while (!e.tryWait(shared + kFull, 0)) {
  }
  auto *tile = reinterpret_cast<uint16_t *>(shared + kTile);
  // Thread t reads row t of the (swizzled) tile.
  for (uint32_t c = 0; c < 64; ++c) {
    // 128-byte swizzle: the 16-byte chunk index XOR the row mod 8.
    uint32_t chunk = (c / 8) ^ (tid % 8);
    (*args.out)[(x * 64 + tid) * 64 + c] = tile[tid * 64 + chunk * 8 + c % 8];
  }
  e.sync();
  if (tid == 0)
    for (uint32_t r = 0; r < 2; ++r)
      e.remoteArrive(e.mapa(shared + kEmpty, r), 1);
  while (!e.tryWait(shared + kEmpty, 0)) {
  }
  e.arrive();
  e.wait();
}

TEST(EmulatorCluster, MulticastCopiesAndRemoteArrivals) {
  Entries e;
  // A 64x64 matrix of 16-bit values (the copy's box: 64 wide, 32 high).
  std::vector<uint16_t> global(64 * 64);
  for (size_t i = 0; i < global.size(); ++i)
    global[i] = uint16_t(i * 7 + 3);
  emu::TensorMap map;
  uint64_t dims[2] = {64, 64}, strides[1] = {128};
  uint32_t box[2] = {64, 32};
  std::string why;
  ASSERT_TRUE(
      emu::encodeTensorMap(map, global.data(), 2, 2, dims, strides, box, &why))
      << why;
  for (bool races : {false, true}) {
    emu::setRaceDetection(races);
    std::vector<uint16_t> out(4 * 64 * 64, 0xFFFF);
    CastArgs args{&e, &map, &out};
    runGrid(castThread, &args, 4, 1, 64, kTile + 64 * 128, 2);
    EXPECT_EQ(emu::takeError(), "");
    // Every block holds the whole tile: its own half and its peer's.
    for (int b = 0; b < 4; ++b)
      for (int i = 0; i < 64 * 64; ++i)
        ASSERT_EQ(out[size_t(b * 64 * 64 + i)], global[size_t(i)])
            << "block " << b << " element " << i;
  }
  emu::setRaceDetection(false);

  // A block that does not send its half: its peer waits forever, which is
  // reported as a deadlock rather than hanging.
  std::vector<uint16_t> out(4 * 64 * 64);
  CastArgs skipped{&e, &map, &out, /*skip=*/true};
  runGrid(castThread, &skipped, 2, 1, 64, kTile + 64 * 128, 2);
  EXPECT_NE(emu::takeError().find("deadlock"), std::string::npos);
}

void badMask(void *raw) {
  auto &args = *static_cast<CastArgs *>(raw);
  Entries &e = *args.e;
  auto *shared = static_cast<char *>(e.shared());
  e.init(shared + kFull, 1);
  e.tma(shared + kTile, shared + kFull, args.map, 0, 0, /*mask=*/0b100, 0, 1, 0,
        0);
}

TEST(EmulatorCluster, MulticastOutsideTheClusterIsAnError) {
  Entries e;
  std::vector<uint16_t> global(64 * 64);
  emu::TensorMap map;
  uint64_t dims[2] = {64, 64}, strides[1] = {128};
  uint32_t box[2] = {64, 32};
  ASSERT_TRUE(emu::encodeTensorMap(map, global.data(), 2, 2, dims, strides, box,
                                   nullptr));
  CastArgs args{&e, &map, nullptr};
  runGrid(badMask, &args, 2, 1, 1, kTile + 64 * 128, 2);
  EXPECT_NE(emu::takeError().find("CTA mask 4 in a cluster of 2 blocks"),
            std::string::npos);
}

} // namespace
