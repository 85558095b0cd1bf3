//===- Fragments.cpp - Matrix instructions as their ISAs define them ------===//
//
// Written from the PTX ISA's descriptions ("Warp-level matrix load
// instruction: ldmatrix", "Matrix Fragments for mma.m16n8k16 with
// floating point type") and AMD's MFMA register layouts (the matrix
// instruction calculator's v_mfma_f32_32x32x8 and i8 tables), not from the
// compiler's layout tables, so that a wrong table in one is caught by the
// other.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include "tessera/runtime/quantize.hpp"

#include <cassert>
#include <cmath>
#include <cstring>
#include <limits>

using namespace tessera;

static float bf16ToFloat(uint16_t bits) {
  uint32_t word = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &word, 4);
  return value;
}

void emu::ldmatrix(const void *const rowAddress[32], unsigned n, bool transpose,
                   uint32_t out[32][4]) {
  // Matrix j's eight rows are addressed by threads 8j..8j+7; each row is
  // eight contiguous 16-bit elements. Without .trans, thread l receives
  // row l/4, elements 2(l%4) and 2(l%4)+1 of each matrix; with .trans, it
  // receives element l/4 of rows 2(l%4) and 2(l%4)+1.
  for (unsigned j = 0; j < n; ++j)
    for (unsigned lane = 0; lane < 32; ++lane) {
      uint16_t half[2];
      for (unsigned h = 0; h < 2; ++h) {
        unsigned row = transpose ? 2 * (lane % 4) + h : lane / 4;
        unsigned col = transpose ? lane / 4 : 2 * (lane % 4) + h;
        const char *base = static_cast<const char *>(rowAddress[8 * j + row]);
        std::memcpy(&half[h], base + 2 * col, 2);
      }
      out[lane][j] = uint32_t(half[0]) | (uint32_t(half[1]) << 16);
    }
}

void emu::stmatrix(void *const rowAddress[32], unsigned n, bool transpose,
                   const uint32_t in[32][4]) {
  // The lanes' registers go where ldmatrix would have read them from.
  for (unsigned j = 0; j < n; ++j)
    for (unsigned lane = 0; lane < 32; ++lane)
      for (unsigned h = 0; h < 2; ++h) {
        unsigned row = transpose ? 2 * (lane % 4) + h : lane / 4;
        unsigned col = transpose ? lane / 4 : 2 * (lane % 4) + h;
        auto half = uint16_t(in[lane][j] >> (16 * h));
        std::memcpy(static_cast<char *>(rowAddress[8 * j + row]) + 2 * col,
                    &half, 2);
      }
}

/// An IEEE binary16 value as a float (exact).
static float f16ToFloat(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -24)
                    : exponent == 31
                        ? (mantissa ? NAN : INFINITY)
                        : std::ldexp(float(mantissa | 0x400), exponent - 25);
  return bits & 0x8000 ? -magnitude : magnitude;
}

void emu::mmaM16N8K16(const uint32_t a[32][4], const uint32_t b[32][2],
                      const float c[32][4], float d[32][4], bool f16) {
  auto toFloat = [f16](uint16_t bits) {
    return f16 ? f16ToFloat(bits) : bf16ToFloat(bits);
  };
  // groupID = lane >> 2, threadID_in_group = lane % 4. Register i holds
  // elements 2i (low half) and 2i + 1.
  float A[16][16], B[16][8];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane % 4;
    for (unsigned i = 0; i < 8; ++i) { // a0..a7
      uint16_t bits = uint16_t(a[lane][i / 2] >> (16 * (i % 2)));
      unsigned row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
      unsigned col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
      A[row][col] = toFloat(bits);
    }
    for (unsigned i = 0; i < 4; ++i) { // b0..b3
      uint16_t bits = uint16_t(b[lane][i / 2] >> (16 * (i % 2)));
      unsigned row = t * 2 + (i & 1) + (i >= 2 ? 8 : 0);
      B[row][g] = toFloat(bits);
    }
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane % 4;
    for (unsigned i = 0; i < 4; ++i) { // c0..c3 / d0..d3
      unsigned row = i < 2 ? g : g + 8;
      unsigned col = t * 2 + (i & 1);
      // Products are exact in double; the sum is rounded once. Tensor
      // cores round differently: compare with a tolerance.
      double sum = c[lane][i];
      for (unsigned k = 0; k < 16; ++k)
        sum += double(A[row][k]) * double(B[k][col]);
      d[lane][i] = float(sum);
    }
  }
}

void emu::mmaM16N8K32S8(const uint32_t a[32][4], const uint32_t b[32][2],
                        const int32_t c[32][4], int32_t d[32][4]) {
  // "Matrix Fragments for mma.m16n8k32": element i of a lane's A is byte
  // i % 4 of register i / 4, at row groupID (+ 8 for 4 <= i < 8 and
  // i >= 12), column 4 threadID_in_group + i % 4 (+ 16 for i >= 8); B's
  // element i at row 4 threadID_in_group + i % 4 (+ 16 for i >= 4),
  // column groupID; C and D as for m16n8k16.
  int32_t A[16][32], B[32][8];
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane % 4;
    for (unsigned i = 0; i < 16; ++i) {
      auto byte = int8_t(uint8_t(a[lane][i / 4] >> (8 * (i % 4))));
      unsigned row = g + ((i / 4) % 2 ? 8 : 0);
      unsigned col = 4 * t + i % 4 + (i >= 8 ? 16 : 0);
      A[row][col] = byte;
    }
    for (unsigned i = 0; i < 8; ++i) {
      auto byte = int8_t(uint8_t(b[lane][i / 4] >> (8 * (i % 4))));
      B[4 * t + i % 4 + (i >= 4 ? 16 : 0)][g] = byte;
    }
  }
  for (unsigned lane = 0; lane < 32; ++lane) {
    unsigned g = lane >> 2, t = lane % 4;
    for (unsigned i = 0; i < 4; ++i) {
      unsigned row = i < 2 ? g : g + 8, col = t * 2 + (i & 1);
      // Wrapping 32-bit sums (.satfinite is not used).
      uint32_t sum = uint32_t(c[lane][i]);
      for (unsigned k = 0; k < 32; ++k)
        sum += uint32_t(A[row][k] * B[k][col]);
      d[lane][i] = int32_t(sum);
    }
  }
}

/// An m x m x k MFMA over a wave's operands, with the layouts the
/// calculator's tables give every type and size: element e (`bits` wide,
/// from the low end) of lane l is A[l % m][P (l / m) + e] and
/// B[P (l / m) + e][l % m], P = m k / 64, decoded by `decode`; register g
/// of lane l holds D[4 (64 / m) (g / 4) + 4 ((l / m) % (64 / m)) + g % 4]
/// [l % m], which `dot` computes from the accumulator and the row of A and
/// column of B (as arrays of k).
template <typename Element, typename Acc, typename Decode, typename Dot>
static void mfma(const uint64_t a[64], const uint64_t b[64], unsigned m,
                 unsigned k, unsigned bits, const Acc c[64][16], Acc d[64][16],
                 Decode decode, Dot dot) {
  assert((m == 32 || m == 16) && m * k <= 512 && "an MFMA atom");
  unsigned perLane = m * k / 64, groups = 64 / m;
  uint64_t mask = (uint64_t(1) << bits) - 1;
  Element A[32][32], Bt[32][32]; // B transposed: its columns as rows
  for (unsigned lane = 0; lane < 64; ++lane)
    for (unsigned e = 0; e < perLane; ++e) {
      unsigned kk = perLane * (lane / m) + e;
      A[lane % m][kk] = decode((a[lane] >> (bits * e)) & mask);
      Bt[lane % m][kk] = decode((b[lane] >> (bits * e)) & mask);
    }
  for (unsigned lane = 0; lane < 64; ++lane)
    for (unsigned g = 0; g < m * m / 64; ++g) {
      unsigned i = 4 * groups * (g / 4) + 4 * ((lane / m) % groups) + g % 4;
      d[lane][g] = dot(c[lane][g], A[i], Bt[lane % m], k);
    }
}

/// Exact products, one rounding, as for mma.sync.
static float exactDot(float c, const double *row, const double *column,
                      unsigned k) {
  double sum = c;
  for (unsigned kk = 0; kk < k; ++kk)
    sum += row[kk] * column[kk];
  return float(sum);
}

void emu::mfmaF16(const uint64_t a[64], const uint64_t b[64],
                  const float c[64][16], float d[64][16], bool f16,
                  unsigned m) {
  mfma<double>(
      a, b, m, 256 / m, 16, c, d,
      [f16](uint64_t bits) {
        return double(f16 ? f16ToFloat(uint16_t(bits))
                          : bf16ToFloat(uint16_t(bits)));
      },
      exactDot);
}

void emu::mfmaI8(const uint64_t a[64], const uint64_t b[64],
                 const int32_t c[64][16], int32_t d[64][16], unsigned m,
                 unsigned k) {
  mfma<int32_t>(
      a, b, m, k, 8, c, d,
      [](uint64_t bits) { return int32_t(int8_t(uint8_t(bits))); },
      [](int32_t c, const int32_t *row, const int32_t *column, unsigned k) {
        // Wrapping 32-bit sums.
        uint32_t sum = uint32_t(c);
        for (unsigned kk = 0; kk < k; ++kk)
          sum += uint32_t(row[kk] * column[kk]);
        return int32_t(sum);
      });
}

float emu::fromE4M3Fnuz(uint8_t bits) {
  if (bits == 0x80)
    return std::numeric_limits<float>::quiet_NaN();
  int exponent = (bits >> 3) & 0xF, mantissa = bits & 7;
  float magnitude = exponent == 0
                        ? std::ldexp(float(mantissa), -10)
                        : std::ldexp(1.0f + float(mantissa) / 8, exponent - 8);
  return bits & 0x80 ? -magnitude : magnitude;
}

void emu::mfmaFp8(const uint64_t a[64], const uint64_t b[64],
                  const float c[64][16], float d[64][16], unsigned m) {
  mfma<double>(
      a, b, m, 512 / m, 8, c, d,
      [](uint64_t bits) { return double(fromE4M3Fnuz(uint8_t(bits))); },
      exactDot);
}

void emu::wgmmaM64N(const uint16_t a[64][32], const uint16_t b[32][256],
                    unsigned n, WgmmaType type, int scaleA, int scaleB,
                    bool accumulate, const float c[128][128],
                    float d[128][128]) {
  auto toFloat = [type](uint16_t bits) {
    switch (type) {
    case WgmmaType::F16:
      return double(f16ToFloat(bits));
    case WgmmaType::E4M3:
      return double(tessera::fromE4M3(uint8_t(bits)));
    default:
      return double(bf16ToFloat(bits));
    }
  };
  unsigned k = type == WgmmaType::E4M3 ? 32 : 16;
  // "Matrix Fragments for wgmma.mma_async.m64nNk16" (and k32), accumulator
  // D: warp w = l / 32 of the warpgroup holds rows 16w..16w+15; register i
  // of thread l holds row 16w + (l % 32) / 4 + 8 ((i / 2) % 2), column
  // 8 (i / 4) + 2 (l % 4) + i % 2.
  for (unsigned l = 0; l < 128; ++l)
    for (unsigned i = 0; i < n / 2; ++i) {
      unsigned row = 16 * (l / 32) + (l % 32) / 4 + 8 * ((i / 2) % 2);
      unsigned col = 8 * (i / 4) + 2 * (l % 4) + i % 2;
      double sum = accumulate ? c[l][i] : 0.0;
      for (unsigned kk = 0; kk < k; ++kk)
        sum += scaleA * toFloat(a[row][kk]) * scaleB * toFloat(b[kk][col]);
      d[l][i] = float(sum);
    }
}

void emu::wgmmaRegisterA(const uint32_t regs[128][4], uint16_t a[64][32]) {
  for (unsigned l = 0; l < 128; ++l)
    for (unsigned r = 0; r < 4; ++r) {
      unsigned row = 16 * (l / 32) + (l % 32) / 4 + 8 * (r % 2);
      unsigned col = 2 * (l % 4) + 8 * (r / 2);
      a[row][col] = uint16_t(regs[l][r]);
      a[row][col + 1] = uint16_t(regs[l][r] >> 16);
    }
}

void emu::wgmmaRegisterA8(const uint32_t regs[128][4], uint16_t a[64][32]) {
  // "Matrix Fragments for wgmma.mma_async.m64nNk32", A of 8-bit types:
  // byte v0 of register r of thread l holds row 16 (l / 32) + (l % 32) / 4
  // + 8 (r % 2), column 4 (l % 4) + v0 + 16 (r / 2).
  for (unsigned l = 0; l < 128; ++l)
    for (unsigned r = 0; r < 4; ++r)
      for (unsigned v = 0; v < 4; ++v) {
        unsigned row = 16 * (l / 32) + (l % 32) / 4 + 8 * (r % 2);
        unsigned col = 4 * (l % 4) + v + 16 * (r / 2);
        a[row][col] = uint16_t((regs[l][r] >> (8 * v)) & 0xFF);
      }
}
