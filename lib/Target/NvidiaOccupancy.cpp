//===- NvidiaOccupancy.cpp - Blocks per SM and register caps --------------===//

#include "tessera/Target/NvidiaOccupancy.h"
#include "tessera/Target/TargetInfo.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace tessera;

namespace {
constexpr int64_t kRegistersPerSm = 64 * 1024;
constexpr int64_t kRegisterUnit = 256; // registers per warp, allocated in
constexpr int64_t kMaxRegisters = 255; // per thread
constexpr int64_t kWarpsPerSm = 64;
constexpr int64_t kBlocksPerSm = 32;
constexpr int64_t kReservedSharedBytes = 1024; // per block, the driver's

/// An SM's largest shared-memory carveout: what one block may use (the
/// chip registry's figure) and the driver's reserve of that block.
std::optional<int64_t> sharedBytesPerSm(llvm::StringRef chip) {
  const TargetInfo *target = lookupTarget(chip);
  if (!target || target->vendor != Vendor::Nvidia)
    return std::nullopt;
  return target->maxSharedBytes + kReservedSharedBytes;
}

int64_t warpsOf(int64_t threads) { return (threads + 31) / 32; }
} // namespace

std::optional<Occupancy> tessera::nvidiaOccupancy(llvm::StringRef chip,
                                                  int64_t registers,
                                                  int64_t threads,
                                                  int64_t sharedBytes) {
  std::optional<int64_t> perSm = sharedBytesPerSm(chip);
  if (!perSm || threads <= 0)
    return std::nullopt;
  int64_t warps = warpsOf(threads);
  Occupancy o;
  int64_t perWarp = (std::max<int64_t>(registers, 1) * 32 + kRegisterUnit - 1) /
                    kRegisterUnit * kRegisterUnit;
  o.byRegisters = kRegistersPerSm / perWarp / warps;
  o.bySharedMemory = *perSm / (sharedBytes + kReservedSharedBytes);
  o.byWarps = kWarpsPerSm / warps;
  o.blocks =
      std::min({o.byRegisters, o.bySharedMemory, o.byWarps, kBlocksPerSm});
  return o;
}

int64_t tessera::registersForBlocks(int64_t blocks, int64_t threads) {
  int64_t warps = blocks * warpsOf(threads);
  if (warps <= 0)
    return kMaxRegisters;
  int64_t perWarp = kRegistersPerSm / warps / kRegisterUnit * kRegisterUnit;
  return std::min(perWarp / 32 / 8 * 8, kMaxRegisters);
}

std::optional<int64_t> tessera::occupancyGoal(llvm::StringRef chip,
                                              int64_t registers,
                                              int64_t threads,
                                              int64_t sharedBytes) {
  std::optional<Occupancy> now =
      nvidiaOccupancy(chip, registers, threads, sharedBytes);
  if (!now || now->blocks != now->byRegisters)
    return std::nullopt; // registers are not what limits it
  int64_t goal = now->blocks + 1;
  if (goal > std::min({now->bySharedMemory, now->byWarps, kBlocksPerSm}))
    return std::nullopt;
  int64_t cap = registersForBlocks(goal, threads);
  if (cap >= registers || cap * 5 < registers * 4)
    return std::nullopt;
  return goal;
}

std::string tessera::withMinBlocksPerSm(llvm::StringRef ptx,
                                        const llvm::StringMap<int64_t> &goals) {
  llvm::SmallVector<llvm::StringRef> lines;
  ptx.split(lines, '\n');
  std::string out;
  out.reserve(ptx.size() + 32 * goals.size());
  std::optional<int64_t> pending; // the goal of the entry being declared
  for (auto [i, line] : llvm::enumerate(lines)) {
    out += line;
    if (i + 1 < lines.size())
      out += '\n';
    llvm::StringRef text = line.trim();
    if (text.consume_front(".visible .entry ") ||
        text.consume_front(".entry ")) {
      auto goal = goals.find(text.take_until([](char c) { return c == '('; }));
      pending = goal == goals.end() ? std::nullopt
                                    : std::optional<int64_t>(goal->second);
      continue;
    }
    if (text == "{")
      pending.reset(); // the body starts: no .maxntid for this entry
    if (pending && text.starts_with(".maxntid")) {
      out += ".minnctapersm " + std::to_string(*pending) + "\n";
      pending.reset();
    }
  }
  return out;
}
