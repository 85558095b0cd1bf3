//===- Cluster.cpp - sm_90a thread-block clusters -------------------------===//
//
// Written from the PTX ISA ("Cluster of Cooperative Thread Arrays", the
// %cluster_* special registers, mapa, barrier.cluster): the blocks of a
// cluster run together (Emulator.cpp's runCluster), so that
//  - the cluster special registers give the block's rank and position in
//    its cluster and the cluster's in the grid of clusters;
//  - mapa maps a shared address of the running block to the same offset
//    in another block of the cluster (distributed shared memory: the
//    emulator's shared addresses are host addresses, so the result is read
//    and written directly, and mbarrier operations and multicast copies on
//    it reach that block's state, Hopper.cpp);
//  - barrier.cluster.arrive and .wait are a split barrier of every thread
//    of the cluster that has not exited: a wait returns once every such
//    thread arrived in the phase the waiting thread arrived in.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

using namespace tessera;
using namespace tessera::emu::detail;

Block *tessera::emu::detail::sharedOwner(const void *address) {
  auto *at = static_cast<const char *>(address);
  auto holds = [&](const Block *b) {
    return at >= b->shared && at < b->shared + b->sharedBytes;
  };
  if (holds(block))
    return block;
  if (block->cluster)
    for (Block *member : block->cluster->blocks)
      if (holds(member))
        return member;
  return nullptr;
}

namespace {

/// Completes the current barrier.cluster phase once every live thread of
/// the cluster arrived.
void completeClusterPhase(Cluster &cluster) {
  if (!cluster.arrived || cluster.arrived < cluster.expected)
    return;
  cluster.arrived = 0;
  ++cluster.generation;
  ++block->progress;
}

void clusterArrive(const char *op) {
  Cluster &cluster = *block->cluster;
  Thread &self = *block->running;
  if (self.clusterArrival >= 0)
    return failThread(std::string(op) +
                      " again before barrier.cluster.wait: a thread waits "
                      "for its arrival before it arrives again");
  self.clusterArrival = int64_t(cluster.generation);
  ++cluster.arrived;
  ++block->progress;
  completeClusterPhase(cluster);
}

void emuClusterArrive() { clusterArrive("barrier.cluster.arrive"); }
void emuClusterArriveRelaxed() {
  clusterArrive("barrier.cluster.arrive.relaxed");
}

void emuClusterWait() {
  Cluster &cluster = *block->cluster;
  Thread &self = *block->running;
  if (self.clusterArrival < 0)
    return failThread("barrier.cluster.wait without a barrier.cluster.arrive "
                      "before it");
  uint64_t phase = uint64_t(self.clusterArrival);
  waitUntil("barrier.cluster.wait",
            [&] { return cluster.generation != phase; });
  self.clusterArrival = -1;
}

/// mapa: the address at the same shared offset in block `rank` of the
/// cluster.
void *emuMapa(void *address, uint32_t rank) {
  Cluster &cluster = *block->cluster;
  int64_t offset = static_cast<char *>(address) - block->shared;
  if (offset < 0 || offset >= block->sharedBytes) {
    failThread("mapa of an address outside the block's shared memory");
    return address;
  }
  if (rank >= cluster.blocks.size()) {
    failThread("mapa to rank " + std::to_string(rank) + " of a cluster of " +
               std::to_string(cluster.blocks.size()) + " blocks");
    return address;
  }
  return cluster.blocks[rank]->shared + offset;
}

uint32_t emuClusterCtarank() { return block->rank; }
uint32_t emuClusterNctarank() {
  return uint32_t(block->cluster->blocks.size());
}
template <int D> uint32_t emuClusterCtaid() { return block->clusterCtaid[D]; }
template <int D> uint32_t emuClusterNctaid() { return block->cluster->dims[D]; }
template <int D> uint32_t emuClusterId() { return block->cluster->id[D]; }
template <int D> uint32_t emuNclusterId() { return block->cluster->count[D]; }
/// fence.mbarrier_init: an initialization is visible to every block of
/// the cluster at once here.
void emuFenceMbarrierInit() {}
uint32_t emuZero() { return 0; }
uint32_t emuOne() { return 1; }

} // namespace

void tessera::emu::detail::clusterThreadExited() {
  Cluster &cluster = *block->cluster;
  --cluster.expected;
  completeClusterPhase(cluster);
}

void tessera::emu::detail::addClusterEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.nvvm.read.ptx.sreg.cluster.ctarank",
       reinterpret_cast<void *>(emuClusterCtarank)},
      {"llvm.nvvm.read.ptx.sreg.cluster.nctarank",
       reinterpret_cast<void *>(emuClusterNctarank)},
      {"llvm.nvvm.read.ptx.sreg.cluster.ctaid.x",
       reinterpret_cast<void *>(emuClusterCtaid<0>)},
      {"llvm.nvvm.read.ptx.sreg.cluster.ctaid.y",
       reinterpret_cast<void *>(emuClusterCtaid<1>)},
      {"llvm.nvvm.read.ptx.sreg.cluster.ctaid.z",
       reinterpret_cast<void *>(emuClusterCtaid<2>)},
      {"llvm.nvvm.read.ptx.sreg.cluster.ctaid.w",
       reinterpret_cast<void *>(emuZero)},
      {"llvm.nvvm.read.ptx.sreg.cluster.nctaid.x",
       reinterpret_cast<void *>(emuClusterNctaid<0>)},
      {"llvm.nvvm.read.ptx.sreg.cluster.nctaid.y",
       reinterpret_cast<void *>(emuClusterNctaid<1>)},
      {"llvm.nvvm.read.ptx.sreg.cluster.nctaid.z",
       reinterpret_cast<void *>(emuClusterNctaid<2>)},
      {"llvm.nvvm.read.ptx.sreg.cluster.nctaid.w",
       reinterpret_cast<void *>(emuOne)},
      {"llvm.nvvm.read.ptx.sreg.clusterid.x",
       reinterpret_cast<void *>(emuClusterId<0>)},
      {"llvm.nvvm.read.ptx.sreg.clusterid.y",
       reinterpret_cast<void *>(emuClusterId<1>)},
      {"llvm.nvvm.read.ptx.sreg.clusterid.z",
       reinterpret_cast<void *>(emuClusterId<2>)},
      {"llvm.nvvm.read.ptx.sreg.clusterid.w",
       reinterpret_cast<void *>(emuZero)},
      {"llvm.nvvm.read.ptx.sreg.nclusterid.x",
       reinterpret_cast<void *>(emuNclusterId<0>)},
      {"llvm.nvvm.read.ptx.sreg.nclusterid.y",
       reinterpret_cast<void *>(emuNclusterId<1>)},
      {"llvm.nvvm.read.ptx.sreg.nclusterid.z",
       reinterpret_cast<void *>(emuNclusterId<2>)},
      {"llvm.nvvm.read.ptx.sreg.nclusterid.w",
       reinterpret_cast<void *>(emuOne)},
      {"llvm.nvvm.mapa", reinterpret_cast<void *>(emuMapa)},
      {"llvm.nvvm.fence.mbarrier_init.release.cluster",
       reinterpret_cast<void *>(emuFenceMbarrierInit)},
      {"llvm.nvvm.mapa.shared.cluster", reinterpret_cast<void *>(emuMapa)},
      {"llvm.nvvm.barrier.cluster.arrive",
       reinterpret_cast<void *>(emuClusterArrive)},
      {"llvm.nvvm.barrier.cluster.arrive.aligned",
       reinterpret_cast<void *>(emuClusterArrive)},
      {"llvm.nvvm.barrier.cluster.arrive.relaxed",
       reinterpret_cast<void *>(emuClusterArriveRelaxed)},
      {"llvm.nvvm.barrier.cluster.arrive.relaxed.aligned",
       reinterpret_cast<void *>(emuClusterArriveRelaxed)},
      {"llvm.nvvm.barrier.cluster.wait",
       reinterpret_cast<void *>(emuClusterWait)},
      {"llvm.nvvm.barrier.cluster.wait.aligned",
       reinterpret_cast<void *>(emuClusterWait)},
  });
}
