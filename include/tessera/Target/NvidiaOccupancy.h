//===- NvidiaOccupancy.h - Blocks per SM and register caps ------*- C++ -*-===//
//
// How many blocks of a kernel one streaming multiprocessor of an NVIDIA chip
// runs at once, and the `.minnctapersm` directives that ask ptxas for one
// more block per SM where fewer registers would allow it.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TARGET_NVIDIAOCCUPANCY_H
#define TESSERA_TARGET_NVIDIAOCCUPANCY_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

/// Blocks per SM, and what each resource alone allows.
struct Occupancy {
  int64_t blocks = 0;
  int64_t byRegisters = 0;
  int64_t bySharedMemory = 0;
  int64_t byWarps = 0;
};

/// The blocks one SM of `chip` (sm_80, sm_90a) runs at once of a kernel of
/// `threads` threads per block, `registers` registers per thread and
/// `sharedBytes` of shared memory per block: registers are allocated per
/// warp in units of 256 from 64K, shared memory from the SM's largest
/// carveout (the chip's per-block maximum plus the 1 KiB per block the
/// driver keeps), at most 64 warps and 32 blocks. Null for chips that are
/// not NVIDIA's.
std::optional<Occupancy> nvidiaOccupancy(llvm::StringRef chip,
                                         int64_t registers, int64_t threads,
                                         int64_t sharedBytes);

/// The most registers per thread with which `blocks` blocks of `threads`
/// threads fit one SM's register file (a multiple of 8, at most 255).
int64_t registersForBlocks(int64_t blocks, int64_t threads);

/// The blocks per SM worth asking ptxas for: one more than a kernel using
/// `registers` registers runs, where shared memory and warps allow that
/// many and the registers it leaves are at least 80% of `registers` (a
/// deeper cut would likely spill or recompute more than the extra warps
/// hide). Null where there is no such step.
std::optional<int64_t> occupancyGoal(llvm::StringRef chip, int64_t registers,
                                     int64_t threads, int64_t sharedBytes);

/// `ptx` with a `.minnctapersm N` directive after the `.maxntid` directive
/// of each entry named in `goals` (N its value). Entries without `.maxntid`
/// are left as they are.
std::string withMinBlocksPerSm(llvm::StringRef ptx,
                               const llvm::StringMap<int64_t> &goals);

} // namespace tessera

#endif // TESSERA_TARGET_NVIDIAOCCUPANCY_H
