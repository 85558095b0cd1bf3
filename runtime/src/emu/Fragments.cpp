//===- Fragments.cpp - ldmatrix and mma.sync as the PTX ISA defines them --===//
//
// Written from the PTX ISA's descriptions ("Warp-level matrix load
// instruction: ldmatrix", "Matrix Fragments for mma.m16n8k16 with
// floating point type"), not from the compiler's layout tables, so that a
// wrong table in one is caught by the other.
//
//===----------------------------------------------------------------------===//

#include "Emulator.h"

#include <cmath>
#include <cstring>

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
