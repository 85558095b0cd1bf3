//===- AmdMfma.cpp - AMD's MFMAs as wave collectives ---------------------===//
//
// Each lane stages its operands in the wave's rendezvous; the wave's last
// lane computes the 32x32 or 16x16 block (Fragments.cpp, written from AMD's
// matrix instruction calculator) and every lane takes its 16 or 4
// accumulators back.
//
//===----------------------------------------------------------------------===//

#include "Block.h"
#include "Emulator.h"

#include <cstring>

using namespace tessera;
using namespace tessera::emu::detail;

namespace {

/// Stages this lane's MFMA operands (`c`: the M M / 64 32-bit accumulators
/// of an M x M MFMA) and waits for the wave's last lane to run `compute`,
/// then copies this lane's results to `d`.
template <unsigned M, typename Compute>
void mfmaLane(void *d, uint64_t a, uint64_t b, const void *c, uint32_t cbsz,
              uint32_t abid, uint32_t blgp, const char *kind, Compute compute) {
  if (cbsz || abid || blgp)
    return failThread("v_mfma with cbsz, abid or blgp set, which the emulator "
                      "does not implement");
  constexpr size_t bytes = M * M / 64 * 4;
  static_assert(bytes <= sizeof(Warp::mfmaC[0]), "an MFMA's accumulators");
  Warp &w = warp();
  uint32_t l = lane();
  w.mfmaA[l] = a;
  w.mfmaB[l] = b;
  std::memcpy(w.mfmaC[l], c, bytes);
  collective(kind, compute);
  std::memcpy(d, warp().mfmaD[l], bytes);
}

/// v_mfma_f32_32x32x8_{bf16,f16} and v_mfma_f32_16x16x16_{bf16,f16}.
template <unsigned M, bool F16>
void emuMfmaF16(float *d, uint64_t a, uint64_t b, const float *c, uint32_t cbsz,
                uint32_t abid, uint32_t blgp) {
  static constexpr const char *kinds[2][2] = {
      {"v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x16_f16"},
      {"v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8_f16"}};
  mfmaLane<M>(d, a, b, c, cbsz, abid, blgp, kinds[M == 32][F16], [](Warp &w) {
    emu::mfmaF16(w.mfmaA, w.mfmaB, w.mfmaC, w.mfmaD, F16, M);
  });
}

/// v_mfma_i32_32x32x8i8 and v_mfma_i32_16x16x16i8 (`Bytes`: uint32_t,
/// gfx90a), v_mfma_i32_32x32x16_i8 and v_mfma_i32_16x16x32_i8 (uint64_t,
/// gfx942): the operands are four or eight bytes, the accumulators i32
/// (staged as their bits).
template <unsigned M, typename Bytes>
void emuMfmaI8(int32_t *d, Bytes a, Bytes b, const int32_t *c, uint32_t cbsz,
               uint32_t abid, uint32_t blgp) {
  constexpr unsigned k = 64 * sizeof(Bytes) / M;
  static constexpr const char *kinds[2][2] = {
      {"v_mfma_i32_16x16x16i8", "v_mfma_i32_16x16x32_i8"},
      {"v_mfma_i32_32x32x8i8", "v_mfma_i32_32x32x16_i8"}};
  mfmaLane<M>(d, a, b, c, cbsz, abid, blgp, kinds[M == 32][sizeof(Bytes) == 8],
              [](Warp &w) {
                int32_t c[64][16], d[64][16];
                std::memcpy(c, w.mfmaC, sizeof c);
                emu::mfmaI8(w.mfmaA, w.mfmaB, c, d, M, k);
                std::memcpy(w.mfmaD, d, sizeof d);
              });
}

/// v_mfma_f32_32x32x16_fp8_fp8 and v_mfma_f32_16x16x32_fp8_fp8 (gfx942):
/// eight FNUZ codes per lane.
template <unsigned M>
void emuMfmaFp8(float *d, uint64_t a, uint64_t b, const float *c, uint32_t cbsz,
                uint32_t abid, uint32_t blgp) {
  mfmaLane<M>(
      d, a, b, c, cbsz, abid, blgp,
      M == 32 ? "v_mfma_f32_32x32x16_fp8_fp8" : "v_mfma_f32_16x16x32_fp8_fp8",
      [](Warp &w) { emu::mfmaFp8(w.mfmaA, w.mfmaB, w.mfmaC, w.mfmaD, M); });
}

} // namespace

void tessera::emu::detail::addAmdMfmaEntries(
    std::unordered_map<std::string_view, void *> &table) {
  table.insert({
      {"llvm.amdgcn.mfma.f32.32x32x8bf16.1k",
       reinterpret_cast<void *>(emuMfmaF16<32, false>)},
      {"llvm.amdgcn.mfma.f32.32x32x8f16",
       reinterpret_cast<void *>(emuMfmaF16<32, true>)},
      {"llvm.amdgcn.mfma.f32.16x16x16bf16.1k",
       reinterpret_cast<void *>(emuMfmaF16<16, false>)},
      {"llvm.amdgcn.mfma.f32.16x16x16f16",
       reinterpret_cast<void *>(emuMfmaF16<16, true>)},
      {"llvm.amdgcn.mfma.i32.32x32x8i8",
       reinterpret_cast<void *>(emuMfmaI8<32, uint32_t>)},
      {"llvm.amdgcn.mfma.i32.32x32x16.i8",
       reinterpret_cast<void *>(emuMfmaI8<32, uint64_t>)},
      {"llvm.amdgcn.mfma.i32.16x16x16i8",
       reinterpret_cast<void *>(emuMfmaI8<16, uint32_t>)},
      {"llvm.amdgcn.mfma.i32.16x16x32.i8",
       reinterpret_cast<void *>(emuMfmaI8<16, uint64_t>)},
      {"llvm.amdgcn.mfma.f32.32x32x16.fp8.fp8",
       reinterpret_cast<void *>(emuMfmaFp8<32>)},
      {"llvm.amdgcn.mfma.f32.16x16x32.fp8.fp8",
       reinterpret_cast<void *>(emuMfmaFp8<16>)},
  });
}
