//===- AmdLanes.cpp - AMD's lane collectives ------------------------------===//
//
// Written from AMD's CDNA3 ISA: v_mbcnt, ds_bpermute, ds_swizzle (bit-mask
// mode), v_readlane and v_readfirstlane, as wave collectives.
//
//===----------------------------------------------------------------------===//

#include "Block.h"

#include <cstring>
#include <string>

using namespace tessera;
using namespace tessera::emu::detail;

namespace {

/// v_mbcnt_lo/hi_u32_b32: `acc` plus the set bits of `mask` for the lanes
/// below this one among lanes 0-31 (lo) or 32-63 (hi).
uint32_t emuMbcntLo(uint32_t mask, uint32_t acc) {
  uint32_t l = lane();
  uint32_t below = l >= 32 ? ~0u : (1u << l) - 1;
  return acc + uint32_t(__builtin_popcount(mask & below));
}
uint32_t emuMbcntHi(uint32_t mask, uint32_t acc) {
  uint32_t l = lane();
  uint32_t below = l < 32 ? 0u : (1u << (l - 32)) - 1;
  return acc + uint32_t(__builtin_popcount(mask & below));
}

/// ds_bpermute_b32: lane l receives `data` of lane (address_l / 4) mod 64.
uint32_t emuDsBpermute(uint32_t address, uint32_t data) {
  return shuffle(
      "ds_bpermute", data, address,
      [](uint32_t, uint32_t key) { return (key / 4) % block->warpSize; },
      [](Warp &, uint32_t) { return 0u; });
}

/// ds_swizzle_b32 in its bit-mask mode (bit 15 of `pattern` clear): lane l
/// of each 32 takes lane ((l & and) | or) ^ xor of them, the masks being
/// bits 0-4, 5-9 and 10-14. The quad-permute mode is not modelled.
uint32_t emuDsSwizzle(uint32_t data, uint32_t pattern) {
  if (pattern & 0x8000) {
    failThread("ds_swizzle in quad-permute mode is not modelled");
    return 0;
  }
  return shuffle(
      "ds_swizzle", data, pattern,
      [](uint32_t i, uint32_t p) {
        uint32_t andMask = p & 31, orMask = (p >> 5) & 31,
                 xorMask = (p >> 10) & 31;
        return (i & ~31u) | (((i & andMask) | orMask) ^ xorMask);
      },
      [](Warp &, uint32_t) { return 0u; });
}

/// v_readlane_b32 (`from` >= 0) and v_readfirstlane_b32 (`from` < 0):
/// every lane of the wave receives `value` of lane `from`, or of the first
/// active lane (all of the wave's are: a collective has them all at one
/// call). The lane index is a scalar operand, so it must be the same in
/// every lane.
uint32_t readLane(const char *kind, uint32_t value, int64_t from) {
  Warp &w = warp();
  uint32_t l = lane();
  w.shuffled[l] = value;
  w.laneMask[l] = from < 0 ? 0 : uint32_t(from);
  collective(kind, [&](Warp &w) {
    unsigned lanes = lanesOfWarp();
    uint32_t source = w.laneMask[0];
    for (unsigned i = 1; i < lanes; ++i)
      if (w.laneMask[i] != source)
        return failBlock(std::string(kind) + " of wave " +
                         std::to_string(warpIndex()) +
                         " with lane indices that differ across the wave (" +
                         std::to_string(source) + " in lane 0, " +
                         std::to_string(w.laneMask[i]) + " in lane " +
                         std::to_string(i) + ")");
    if (source >= lanes)
      return failBlock(std::string(kind) + " of lane " +
                       std::to_string(source) + ", outside a wave of " +
                       std::to_string(lanes) + " lanes");
    for (unsigned i = 0; i < lanes; ++i)
      w.out[i][0] = w.shuffled[source];
  });
  return warp().out[l][0];
}
uint32_t emuReadlaneI32(uint32_t value, uint32_t from) {
  return readLane("v_readlane", value, from);
}
uint32_t emuReadfirstlaneI32(uint32_t value) {
  return readLane("v_readfirstlane", value, -1);
}
float readLaneF32(const char *kind, float value, int64_t from) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  bits = readLane(kind, bits, from);
  std::memcpy(&value, &bits, 4);
  return value;
}
float emuReadlaneF32(float value, uint32_t from) {
  return readLaneF32("v_readlane", value, from);
}
float emuReadfirstlaneF32(float value) {
  return readLaneF32("v_readfirstlane", value, -1);
}

} // namespace

void tessera::emu::detail::addAmdLaneEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.amdgcn.mbcnt.lo", reinterpret_cast<void *>(emuMbcntLo)},
      {"llvm.amdgcn.mbcnt.hi", reinterpret_cast<void *>(emuMbcntHi)},
      {"llvm.amdgcn.ds.bpermute", reinterpret_cast<void *>(emuDsBpermute)},
      {"llvm.amdgcn.ds.swizzle", reinterpret_cast<void *>(emuDsSwizzle)},
      {"llvm.amdgcn.readlane.i32", reinterpret_cast<void *>(emuReadlaneI32)},
      {"llvm.amdgcn.readlane.f32", reinterpret_cast<void *>(emuReadlaneF32)},
      {"llvm.amdgcn.readfirstlane.i32",
       reinterpret_cast<void *>(emuReadfirstlaneI32)},
      {"llvm.amdgcn.readfirstlane.f32",
       reinterpret_cast<void *>(emuReadfirstlaneF32)},
  });
}
