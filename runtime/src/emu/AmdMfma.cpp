//===- AmdMfma.cpp - AMD's 32x32 MFMAs as wave collectives ----------------===//
//
// Each lane stages its operands in the wave's rendezvous; the wave's last
// lane computes the 32x32 block (Fragments.cpp, written from AMD's matrix
// instruction calculator) and every lane takes its 16 accumulators back.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "Emulator.h"

#include <cstring>

using namespace tessera;
using namespace tessera::emu::detail;

namespace {

/// Stages this lane's MFMA operands (`c`: 16 32-bit accumulators) and
/// waits for the wave's last lane to run `compute`, then copies this lane's
/// 16 results to `d`.
template <typename Compute>
void mfmaLane(void *d, uint64_t a, uint64_t b, const void *c, uint32_t cbsz,
              uint32_t abid, uint32_t blgp, const char *kind, Compute compute) {
  if (cbsz || abid || blgp)
    return failThread("v_mfma with cbsz, abid or blgp set, which the emulator "
                      "does not implement");
  Warp &w = warp();
  uint32_t l = lane();
  w.mfmaA[l] = a;
  w.mfmaB[l] = b;
  std::memcpy(w.mfmaC[l], c, sizeof w.mfmaC[l]);
  collective(kind, compute);
  std::memcpy(d, warp().mfmaD[l], sizeof w.mfmaD[l]);
}

/// v_mfma_f32_32x32x8: the wave's last lane computes the 32x32 block.
template <bool F16>
void emuMfma32x32x8(float *d, uint64_t a, uint64_t b, const float *c,
                    uint32_t cbsz, uint32_t abid, uint32_t blgp) {
  mfmaLane(d, a, b, c, cbsz, abid, blgp,
           F16 ? "v_mfma_f32_32x32x8_f16" : "v_mfma_f32_32x32x8_bf16",
           [](Warp &w) {
             emu::mfma32x32x8(w.mfmaA, w.mfmaB, w.mfmaC, w.mfmaD, F16);
           });
}

/// v_mfma_i32_32x32x8i8 (`Bytes`: uint32_t, gfx90a) and
/// v_mfma_i32_32x32x16_i8 (uint64_t, gfx942): the operands are four or
/// eight bytes, the accumulators i32 (staged as their bits).
template <typename Bytes>
void emuMfmaI8(int32_t *d, Bytes a, Bytes b, const int32_t *c, uint32_t cbsz,
               uint32_t abid, uint32_t blgp) {
  constexpr unsigned k = 2 * sizeof(Bytes);
  mfmaLane(d, a, b, c, cbsz, abid, blgp,
           k == 8 ? "v_mfma_i32_32x32x8i8" : "v_mfma_i32_32x32x16_i8",
           [](Warp &w) {
             int32_t c[64][16], d[64][16];
             std::memcpy(c, w.mfmaC, sizeof c);
             emu::mfma32x32I8(w.mfmaA, w.mfmaB, c, d, k);
             std::memcpy(w.mfmaD, d, sizeof d);
           });
}

/// v_mfma_f32_32x32x16_fp8_fp8 (gfx942): eight FNUZ codes per lane.
void emuMfmaFp8(float *d, uint64_t a, uint64_t b, const float *c, uint32_t cbsz,
                uint32_t abid, uint32_t blgp) {
  mfmaLane(d, a, b, c, cbsz, abid, blgp, "v_mfma_f32_32x32x16_fp8_fp8",
           [](Warp &w) {
             emu::mfma32x32x16Fp8(w.mfmaA, w.mfmaB, w.mfmaC, w.mfmaD);
           });
}

} // namespace

void tessera::emu::detail::addAmdMfmaEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.amdgcn.mfma.f32.32x32x8bf16.1k",
       reinterpret_cast<void *>(emuMfma32x32x8<false>)},
      {"llvm.amdgcn.mfma.f32.32x32x8f16",
       reinterpret_cast<void *>(emuMfma32x32x8<true>)},
      {"llvm.amdgcn.mfma.i32.32x32x8i8",
       reinterpret_cast<void *>(emuMfmaI8<uint32_t>)},
      {"llvm.amdgcn.mfma.i32.32x32x16.i8",
       reinterpret_cast<void *>(emuMfmaI8<uint64_t>)},
      {"llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8",
       reinterpret_cast<void *>(emuMfmaFp8)},
  });
}
