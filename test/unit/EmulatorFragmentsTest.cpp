//===- EmulatorFragmentsTest.cpp - The emulator's matrix instructions -----===//
//
// The emulator's fragment tables are written from the PTX ISA and AMD's
// MFMA layouts separately from the compiler's layout atoms. These tests check
// each against the other, lane by lane: a wrong entry in either shows up here.
//
//===----------------------------------------------------------------------===//

#include "emu/Emulator.h"
#include "tessera/Layout/LinearLayout.h"
#include "tessera/Layout/MmaLayouts.h"
#include "tessera/runtime/quantize.hpp"

#include "gtest/gtest.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <random>

using namespace tessera;

namespace {

uint16_t toBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return uint16_t(bits >> 16); // exact for the small integers used here
}

TEST(EmulatorFragments, LdmatrixDeliversTheAtomLayouts) {
  // A 16x16 matrix of distinct 16-bit values, stored row-major.
  uint16_t m[16][16];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 16; ++c)
      m[r][c] = uint16_t(r * 16 + c);
  for (bool trans : {false, true})
    for (unsigned n : {1u, 2u, 4u}) {
      LinearLayout atom = atoms::ldmatrix(n, trans);
      // Lane 8j + i addresses row i of matrix j: matrix j sits at rows
      // 8 (j & 1) and columns 8 (j >> 1) of the stored matrix.
      const void *rows[32];
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned j = (lane / 8) % n, i = lane % 8;
        rows[lane] = &m[8 * (j & 1) + i][8 * (j >> 1)];
      }
      uint32_t out[32][4];
      emu::ldmatrix(rows, n, trans, out);
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned e = 0; e < 2 * n; ++e) {
          uint16_t got = uint16_t(out[lane][e / 2] >> (16 * (e % 2)));
          // The atom gives the coordinate, in the stored matrix, of what
          // each lane receives (with .trans too).
          Coord c = atom.apply(e, lane, 0);
          EXPECT_EQ(got, m[c[0]][c[1]]) << "x" << n << (trans ? ".trans" : "")
                                        << " lane " << lane << " element " << e;
        }
    }
}

TEST(EmulatorFragments, StmatrixStoresTheAtomLayouts) {
  // Each lane's registers hold the coordinates the ldmatrix atom gives them;
  // stmatrix must put every one at that coordinate, and write nothing else.
  for (bool trans : {false, true})
    for (unsigned n : {1u, 2u, 4u}) {
      LinearLayout atom = atoms::ldmatrix(n, trans);
      uint16_t m[16][16];
      std::memset(m, 0xff, sizeof m);
      void *rows[32];
      for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned j = (lane / 8) % n, i = lane % 8;
        rows[lane] = &m[8 * (j & 1) + i][8 * (j >> 1)];
      }
      uint32_t in[32][4] = {};
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned e = 0; e < 2 * n; ++e) {
          Coord c = atom.apply(e, lane, 0);
          in[lane][e / 2] |= uint32_t(c[0] * 16 + c[1]) << (16 * (e % 2));
        }
      emu::stmatrix(rows, n, trans, in);
      int written = 0;
      for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) {
          if (m[r][c] == 0xffff)
            continue;
          ++written;
          EXPECT_EQ(m[r][c], r * 16 + c) << "x" << n << (trans ? ".trans" : "")
                                         << " at " << r << ", " << c;
        }
      EXPECT_EQ(written, int(64 * n));
    }
}

class EmulatorMma : public ::testing::TestWithParam<bool> {};

TEST_P(EmulatorMma, MatchesTheAtomLayouts) {
  bool f16 = GetParam();
  auto encode = [&](float v) -> uint32_t {
    return f16 ? tessera::toF16(v) : toBf16(v);
  };
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> small(-8, 8);
  float A[16][16], B[16][8], C[16][8];
  for (auto &row : A)
    for (float &v : row)
      v = float(small(rng));
  for (auto &row : B)
    for (float &v : row)
      v = float(small(rng));
  for (auto &row : C)
    for (float &v : row)
      v = float(small(rng));
  // Distribute A, B and C with the compiler's atoms.
  LinearLayout la = atoms::mmaM16N8K16A(), lb = atoms::mmaM16N8K16B(),
               lc = atoms::mmaM16N8C();
  uint32_t a[32][4] = {}, b[32][2] = {};
  float c[32][4], d[32][4];
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned e = 0; e < 8; ++e) {
      Coord x = la.apply(e, lane, 0);
      a[lane][e / 2] |= encode(A[x[0]][x[1]]) << (16 * (e % 2));
    }
    for (unsigned e = 0; e < 4; ++e) {
      Coord x = lb.apply(e, lane, 0);
      b[lane][e / 2] |= encode(B[x[0]][x[1]]) << (16 * (e % 2));
      Coord y = lc.apply(e, lane, 0);
      c[lane][e] = C[y[0]][y[1]];
    }
  }
  emu::mmaM16N8K16(a, b, c, d, f16);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < 4; ++e) {
      Coord y = lc.apply(e, lane, 0);
      float want = C[y[0]][y[1]];
      for (int k = 0; k < 16; ++k)
        want += A[y[0]][k] * B[k][y[1]];
      EXPECT_EQ(d[lane][e], want) << "lane " << lane << " element " << e;
    }
}

INSTANTIATE_TEST_SUITE_P(Bf16AndF16, EmulatorMma, ::testing::Bool());

TEST(EmulatorMmaS8, MatchesTheAtomLayouts) {
  // mma.sync m16n8k32 s8: the emulator's fragments (from the PTX ISA)
  // against the compiler's k32 atoms, over the whole int8 range and with
  // accumulators near the i32 limits (the sums wrap).
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_int_distribution<int32_t> word(INT32_MIN, INT32_MAX);
  int32_t A[16][32], B[32][8], C[16][8];
  for (auto &row : A)
    for (int32_t &v : row)
      v = byte(rng);
  for (auto &row : B)
    for (int32_t &v : row)
      v = byte(rng);
  for (auto &row : C)
    for (int32_t &v : row)
      v = word(rng);
  LinearLayout la = atoms::mmaM16N8K32A(), lb = atoms::mmaM16N8K32B(),
               lc = atoms::mmaM16N8C();
  uint32_t a[32][4] = {}, b[32][2] = {};
  int32_t c[32][4], d[32][4];
  for (unsigned lane = 0; lane < 32; ++lane) {
    for (unsigned e = 0; e < 16; ++e) {
      Coord x = la.apply(e, lane, 0);
      a[lane][e / 4] |= uint32_t(uint8_t(A[x[0]][x[1]])) << (8 * (e % 4));
    }
    for (unsigned e = 0; e < 8; ++e) {
      Coord x = lb.apply(e, lane, 0);
      b[lane][e / 4] |= uint32_t(uint8_t(B[x[0]][x[1]])) << (8 * (e % 4));
    }
    for (unsigned e = 0; e < 4; ++e) {
      Coord y = lc.apply(e, lane, 0);
      c[lane][e] = C[y[0]][y[1]];
    }
  }
  emu::mmaM16N8K32S8(a, b, c, d);
  for (unsigned lane = 0; lane < 32; ++lane)
    for (unsigned e = 0; e < 4; ++e) {
      Coord y = lc.apply(e, lane, 0);
      int64_t want = C[y[0]][y[1]];
      for (int k = 0; k < 32; ++k)
        want += int64_t(A[y[0]][k]) * B[k][y[1]];
      EXPECT_EQ(d[lane][e], int32_t(uint32_t(uint64_t(want))))
          << "lane " << lane << " element " << e;
    }
}

/// An m x m x k MFMA's registers as the compiler's atoms place the
/// elements: element e (`bits` wide) of lane l of a (b) is codeA (codeB) of
/// the A (B) element the atom puts there, register g of c the
/// accumulator's.
template <typename Acc, typename CodeA, typename CodeB, typename Accumulator>
void packMfma(int64_t m, int64_t k, unsigned bits, CodeA codeA, CodeB codeB,
              Accumulator accumulator, uint64_t a[64], uint64_t b[64],
              Acc c[64][16]) {
  LinearLayout la = atoms::mfmaA(m, k), lb = atoms::mfmaB(m, k),
               lc = atoms::mfmaC(m);
  for (unsigned lane = 0; lane < 64; ++lane) {
    a[lane] = b[lane] = 0;
    for (unsigned e = 0; e < m * k / 64; ++e) {
      a[lane] |= uint64_t(codeA(la.apply(e, lane, 0))) << (bits * e);
      b[lane] |= uint64_t(codeB(lb.apply(e, lane, 0))) << (bits * e);
    }
    for (unsigned g = 0; g < m * m / 64; ++g)
      c[lane][g] = accumulator(lc.apply(g, lane, 0));
  }
}

/// Calls check(lane, register, coordinate) for each accumulator register of
/// an m x m MFMA, with the coordinate the compiler's atom gives it.
template <typename Check> void forEachMfmaAccumulator(int64_t m, Check check) {
  LinearLayout lc = atoms::mfmaC(m);
  for (unsigned lane = 0; lane < 64; ++lane)
    for (unsigned g = 0; g < m * m / 64; ++g)
      check(lane, g, lc.apply(g, lane, 0));
}

/// (f16, M) of a 16-bit MFMA: 32x32x8 or 16x16x16.
class EmulatorMfma
    : public ::testing::TestWithParam<std::tuple<bool, int64_t>> {};

TEST_P(EmulatorMfma, MatchesTheAtomLayouts) {
  // v_mfma_f32_32x32x8 and v_mfma_f32_16x16x16 over a wave64: the
  // emulator's table (from AMD's calculator) against the compiler's atoms,
  // on exact small integers.
  auto [f16, m] = GetParam();
  int64_t k = 256 / m;
  auto encode = [&](float v) -> uint64_t {
    return f16 ? tessera::toF16(v) : toBf16(v);
  };
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> small(-8, 8);
  float A[32][32], B[32][32], C[32][32];
  for (auto *matrix : {&A, &B, &C})
    for (auto &row : *matrix)
      for (float &v : row)
        v = float(small(rng));
  uint64_t a[64], b[64];
  float c[64][16], d[64][16];
  packMfma(
      m, k, 16, [&](Coord x) { return encode(A[x[0]][x[1]]); },
      [&](Coord y) { return encode(B[y[0]][y[1]]); },
      [&](Coord z) { return C[z[0]][z[1]]; }, a, b, c);
  emu::mfmaF16(a, b, c, d, f16, unsigned(m));
  forEachMfmaAccumulator(m, [&](unsigned lane, unsigned g, Coord z) {
    float want = C[z[0]][z[1]];
    for (int64_t kk = 0; kk < k; ++kk)
      want += A[z[0]][kk] * B[kk][z[1]];
    EXPECT_EQ(d[lane][g], want) << "lane " << lane << " register " << g;
  });
}

INSTANTIATE_TEST_SUITE_P(Bf16AndF16, EmulatorMfma,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(32, 16)));

/// (M, K) of an int8 MFMA.
class EmulatorMfmaI8
    : public ::testing::TestWithParam<std::tuple<int64_t, int64_t>> {};

TEST_P(EmulatorMfmaI8, MatchesTheAtomLayoutsAndWraps) {
  // v_mfma_i32_32x32x8i8 and v_mfma_i32_16x16x16i8 (gfx90a),
  // v_mfma_i32_32x32x16_i8 and v_mfma_i32_16x16x32_i8 (gfx942) against the
  // compiler's atoms, over the whole int8 range with accumulators near the
  // i32 limits (sums wrap).
  auto [m, k] = GetParam();
  std::mt19937 rng{unsigned(m * k)};
  std::uniform_int_distribution<int> byte(-128, 127);
  std::uniform_int_distribution<int32_t> acc(INT32_MAX - 40000, INT32_MAX);
  int32_t A[32][32], B[32][32], C[32][32];
  for (auto *matrix : {&A, &B})
    for (auto &row : *matrix)
      for (int32_t &v : row)
        v = byte(rng);
  for (auto &row : C)
    for (int32_t &v : row)
      v = (rng() % 2 ? 1 : -1) * acc(rng);
  uint64_t a[64], b[64];
  int32_t c[64][16], d[64][16];
  packMfma(
      m, k, 8, [&](Coord x) { return uint8_t(A[x[0]][x[1]]); },
      [&](Coord y) { return uint8_t(B[y[0]][y[1]]); },
      [&](Coord z) { return C[z[0]][z[1]]; }, a, b, c);
  emu::mfmaI8(a, b, c, d, unsigned(m), unsigned(k));
  unsigned wrapped = 0;
  forEachMfmaAccumulator(m, [&](unsigned lane, unsigned g, Coord z) {
    int64_t exact = C[z[0]][z[1]];
    for (int64_t kk = 0; kk < k; ++kk)
      exact += int64_t(A[z[0]][kk]) * B[kk][z[1]];
    wrapped += exact != int64_t(int32_t(uint32_t(exact)));
    EXPECT_EQ(d[lane][g], int32_t(uint32_t(exact)))
        << "lane " << lane << " register " << g;
  });
  EXPECT_GT(wrapped, 0u) << "no sum left the i32 range";
}

INSTANTIATE_TEST_SUITE_P(Gfx90aAndGfx942, EmulatorMfmaI8,
                         ::testing::Values(std::make_tuple(32, 8),
                                           std::make_tuple(32, 16),
                                           std::make_tuple(16, 16),
                                           std::make_tuple(16, 32)));

TEST(EmulatorMfmaFp8, FnuzCodesAreHalfTheE4M3FnValues) {
  // What the compiler relies on to feed e4m3fn codes to gfx942's FNUZ
  // MFMA: the same bits are worth half, but for -0 (FNUZ's NaN) and the
  // NaNs (0x7F, 0xFF; 240 and -240 in FNUZ).
  for (int bits = 0; bits < 256; ++bits) {
    if (bits == 0x80 || (bits & 0x7F) == 0x7F)
      continue;
    EXPECT_EQ(emu::fromE4M3Fnuz(uint8_t(bits)),
              0.5f * tessera::fromE4M3(uint8_t(bits)))
        << "code " << bits;
  }
  EXPECT_TRUE(std::isnan(emu::fromE4M3Fnuz(0x80)));
  EXPECT_EQ(emu::fromE4M3Fnuz(0x7F), 240.0f);
  EXPECT_EQ(emu::fromE4M3Fnuz(0x01), 0.0009765625f); // 2^-10
}

class EmulatorMfmaFp8M : public ::testing::TestWithParam<int64_t> {};

TEST_P(EmulatorMfmaFp8M, MatchesTheAtomLayouts) {
  // v_mfma_f32_32x32x16_fp8_fp8 and v_mfma_f32_16x16x32_fp8_fp8 against
  // the compiler's atoms, on codes of small integers (exact products and
  // sums).
  int64_t m = GetParam(), k = 512 / m;
  std::mt19937 rng(9);
  std::uniform_int_distribution<int> small(-8, 8);
  float A[32][32], B[32][32], C[32][32];
  uint8_t codeA[32][32], codeB[32][32];
  // FNUZ codes of the integer v: those of e4m3fn for 2 v.
  for (int i = 0; i < 32; ++i)
    for (int kk = 0; kk < 32; ++kk) {
      A[i][kk] = float(small(rng));
      codeA[i][kk] = tessera::toE4M3(2 * A[i][kk]);
      B[kk][i] = float(small(rng));
      codeB[kk][i] = tessera::toE4M3(2 * B[kk][i]);
    }
  for (auto &row : C)
    for (float &v : row)
      v = float(small(rng));
  uint64_t a[64], b[64];
  float c[64][16], d[64][16];
  packMfma(
      m, k, 8, [&](Coord x) { return codeA[x[0]][x[1]]; },
      [&](Coord y) { return codeB[y[0]][y[1]]; },
      [&](Coord z) { return C[z[0]][z[1]]; }, a, b, c);
  emu::mfmaFp8(a, b, c, d, unsigned(m));
  forEachMfmaAccumulator(m, [&](unsigned lane, unsigned g, Coord z) {
    float want = C[z[0]][z[1]];
    for (int64_t kk = 0; kk < k; ++kk)
      want += A[z[0]][kk] * B[kk][z[1]];
    EXPECT_EQ(d[lane][g], want) << "lane " << lane << " register " << g;
  });
}

INSTANTIATE_TEST_SUITE_P(Gfx942, EmulatorMfmaFp8M, ::testing::Values(32, 16));

class EmulatorWgmma : public ::testing::TestWithParam<emu::WgmmaType> {};

TEST_P(EmulatorWgmma, MatchesTheAccumulatorAtom) {
  // wgmma.m64nNk16's (m64nNk32's for e4m3) accumulator registers (the
  // emulator's table, from the PTX ISA) against the compiler's atom: thread
  // l = 32 w + lane, register i.
  emu::WgmmaType type = GetParam();
  unsigned kSteps = type == emu::WgmmaType::E4M3 ? 32 : 16;
  auto encode = [&](float v) -> uint16_t {
    switch (type) {
    case emu::WgmmaType::F16:
      return tessera::toF16(v);
    case emu::WgmmaType::E4M3:
      return tessera::toE4M3(v);
    default:
      return toBf16(v);
    }
  };
  for (unsigned n : {64u, 128u, 256u}) {
    std::mt19937 rng(n);
    std::uniform_int_distribution<int> small(-8, 8);
    static uint16_t a[64][32], b[32][256];
    static float A[64][32], B[32][256], C[64][256];
    static float c[128][128], d[128][128];
    for (unsigned m = 0; m < 64; ++m)
      for (unsigned k = 0; k < kSteps; ++k)
        a[m][k] = encode(A[m][k] = float(small(rng)));
    for (unsigned k = 0; k < kSteps; ++k)
      for (unsigned j = 0; j < n; ++j)
        b[k][j] = encode(B[k][j] = float(small(rng)));
    LinearLayout lc = atoms::wgmmaAccumulator(n);
    for (unsigned t = 0; t < 128; ++t)
      for (unsigned i = 0; i < n / 2; ++i) {
        Coord x = lc.apply(i, t % 32, t / 32);
        c[t][i] = C[x[0]][x[1]] = float(small(rng));
      }
    for (bool accumulate : {true, false}) {
      emu::wgmmaM64N(a, b, n, type, 1, -1, accumulate, c, d);
      for (unsigned t = 0; t < 128; ++t)
        for (unsigned i = 0; i < n / 2; ++i) {
          Coord x = lc.apply(i, t % 32, t / 32);
          float want = accumulate ? C[x[0]][x[1]] : 0.0f;
          for (unsigned k = 0; k < kSteps; ++k)
            want -= A[x[0]][k] * B[k][x[1]];
          ASSERT_EQ(d[t][i], want)
              << "n " << n << " thread " << t << " register " << i;
        }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Bf16F16AndE4M3, EmulatorWgmma,
                         ::testing::Values(emu::WgmmaType::BF16,
                                           emu::WgmmaType::F16,
                                           emu::WgmmaType::E4M3));

TEST(EmulatorWgmmaRegisterA, MatchesTheCompilersFragments) {
  // wgmma's register A (the emulator's gathering, from the PTX ISA) against
  // the layout tile-assign-layouts gives an A in registers and the
  // lowering's packing: per K step, registers 2i and 2i + 1 of the eight
  // from the one holding (row 0, k0) make 32-bit register i, low half
  // first. Every element of each 64 x 16 step lands where it belongs.
  for (int64_t warps : {4, 8})
    for (int64_t m : {64, 128, 256}) {
      std::string why;
      std::optional<WgmmaLayouts> l = getWgmmaLayouts(m, 64, 64, warps, &why);
      if (!l)
        continue; // 8 warps cannot split 64 rows
      const LinearLayout &la = l->a;
      std::mt19937 rng(unsigned(m * warps));
      std::uniform_int_distribution<int> code(0, 0xFFFF);
      std::vector<uint16_t> A(size_t(m * 64));
      for (uint16_t &x : A)
        x = uint16_t(code(rng));
      for (int64_t group = 0; group < l->warpgroups; ++group)
        for (int64_t rep = 0; rep < l->repetitions; ++rep)
          for (int64_t k0 = 0; k0 < 64; k0 += 16) {
            int64_t row0 = rep * 64 * l->warpgroups;
            std::optional<uint64_t> first = la.findRegister({row0, k0});
            ASSERT_TRUE(first.has_value());
            static uint32_t regs[128][4];
            static uint16_t a[64][32];
            for (unsigned t = 0; t < 128; ++t)
              for (unsigned i = 0; i < 4; ++i) {
                int64_t warp = 4 * group + t / 32;
                Coord lo = la.apply(int64_t(*first + 2 * i), t % 32, warp);
                Coord hi = la.apply(int64_t(*first + 2 * i + 1), t % 32, warp);
                regs[t][i] = A[size_t(lo[0] * 64 + lo[1])] |
                             uint32_t(A[size_t(hi[0] * 64 + hi[1])]) << 16;
              }
            emu::wgmmaRegisterA(regs, a);
            int64_t rowBase = row0 + 64 * group;
            for (int64_t r = 0; r < 64; ++r)
              for (int64_t k = 0; k < 16; ++k)
                ASSERT_EQ(a[r][k], A[size_t((rowBase + r) * 64 + k0 + k)])
                    << "m " << m << " warps " << warps << " row " << r << " k "
                    << k0 + k;
          }
    }
}

TEST(EmulatorWgmmaRegisterA8, MatchesTheCompilersFragments) {
  // The same for m64nNk32's 8-bit A: per K step of 32, registers 4i..4i + 3
  // of the sixteen from the one holding (row 0, k0) make 32-bit register
  // i, lowest byte first.
  for (int64_t warps : {4, 8})
    for (int64_t m : {64, 128, 256})
      for (int64_t k : {64, 128}) {
        std::string why;
        std::optional<WgmmaLayouts> l =
            getWgmmaLayouts(m, 64, k, warps, &why, /*elementBits=*/8);
        if (!l)
          continue; // 8 warps cannot split 64 rows
        const LinearLayout &la = l->a;
        std::string holes;
        ASSERT_TRUE(la.coversExactly(&holes)) << holes;
        std::mt19937 rng(unsigned(m * warps + k));
        std::uniform_int_distribution<int> code(0, 0xFF);
        std::vector<uint8_t> A(size_t(m * k));
        for (uint8_t &x : A)
          x = uint8_t(code(rng));
        for (int64_t group = 0; group < l->warpgroups; ++group)
          for (int64_t rep = 0; rep < l->repetitions; ++rep)
            for (int64_t k0 = 0; k0 < k; k0 += 32) {
              int64_t row0 = rep * 64 * l->warpgroups;
              std::optional<uint64_t> first = la.findRegister({row0, k0});
              ASSERT_TRUE(first.has_value());
              static uint32_t regs[128][4];
              static uint16_t a[64][32];
              for (unsigned t = 0; t < 128; ++t)
                for (unsigned i = 0; i < 4; ++i) {
                  int64_t warp = 4 * group + t / 32;
                  regs[t][i] = 0;
                  for (unsigned v = 0; v < 4; ++v) {
                    Coord x =
                        la.apply(int64_t(*first + 4 * i + v), t % 32, warp);
                    regs[t][i] |= uint32_t(A[size_t(x[0] * k + x[1])])
                                  << (8 * v);
                  }
                }
              emu::wgmmaRegisterA8(regs, a);
              int64_t rowBase = row0 + 64 * group;
              for (int64_t r = 0; r < 64; ++r)
                for (int64_t kk = 0; kk < 32; ++kk)
                  ASSERT_EQ(a[r][kk], A[size_t((rowBase + r) * k + k0 + kk)])
                      << "m " << m << " k " << k << " warps " << warps
                      << " row " << r << " k " << k0 + kk;
            }
      }
}

TEST(EmulatorTensorMap, EncodesWhatTmaCanRead) {
  alignas(16) static char data[4096];
  uint64_t dims[3] = {64, 32, 2}, strides[2] = {128, 4096};
  uint32_t box[3] = {64, 128, 1};
  emu::TensorMap map;
  std::string why;
  ASSERT_TRUE(emu::encodeTensorMap(map, data, 2, 2, dims, strides, box, &why))
      << why;
  EXPECT_EQ(map.magic, emu::kTensorMapMagic);
  EXPECT_EQ(map.dims[0], 64u);
  EXPECT_EQ(map.dims[2], 1u); // a 2-D map is one deep
  EXPECT_EQ(map.strideBytes[0], 128u);
  ASSERT_TRUE(emu::encodeTensorMap(map, data, 2, 3, dims, strides, box, &why))
      << why;
  EXPECT_EQ(map.dims[2], 2u);
  EXPECT_EQ(map.strideBytes[1], 4096u);
  // TMA's rules: an aligned base, 16-byte multiple strides, non-empty
  // dimensions, boxes whose rows are a swizzle span and at most 256 elements.
  EXPECT_FALSE(
      emu::encodeTensorMap(map, data + 2, 2, 2, dims, strides, box, &why));
  EXPECT_EQ(why, "the base address is not 16-byte aligned");
  uint64_t odd[2] = {200, 4096};
  EXPECT_FALSE(emu::encodeTensorMap(map, data, 2, 2, dims, odd, box, &why));
  EXPECT_EQ(why, "the stride of dimension 1 (200 bytes) is not a multiple "
                 "of 16 bytes below 2^40");
  uint64_t oddOuter[2] = {128, 4100};
  EXPECT_FALSE(
      emu::encodeTensorMap(map, data, 2, 3, dims, oddOuter, box, &why));
  EXPECT_EQ(why, "the stride of dimension 2 (4100 bytes) is not a multiple "
                 "of 16 bytes below 2^40");
  uint64_t empty[3] = {0, 32, 1};
  EXPECT_FALSE(
      emu::encodeTensorMap(map, data, 2, 2, empty, strides, box, &why));
  EXPECT_EQ(why, "dimension 0 has size 0, outside [1, 2^32]");
  uint32_t tall[3] = {64, 512, 1};
  EXPECT_FALSE(
      emu::encodeTensorMap(map, data, 2, 2, dims, strides, tall, &why));
  EXPECT_EQ(why, "the box is not 1 to 256 elements wide");
  // Box rows of 64 and 32 bytes take the 64- and 32-byte swizzles; 16
  // bytes is none of the spans.
  for (uint32_t cols : {32u, 16u}) {
    uint32_t narrow[3] = {cols, 128, 1};
    EXPECT_TRUE(
        emu::encodeTensorMap(map, data, 2, 2, dims, strides, narrow, &why))
        << why;
  }
  uint32_t tooNarrow[3] = {8, 128, 1};
  EXPECT_FALSE(
      emu::encodeTensorMap(map, data, 2, 2, dims, strides, tooNarrow, &why));
  EXPECT_EQ(why, "a box row of 16 bytes is not a swizzle span (128, 64 or 32 "
                 "bytes)");
  EXPECT_FALSE(emu::encodeTensorMap(map, data, 2, 4, dims, strides, box, &why));
  EXPECT_EQ(why, "a tensor map of rank 4 (the emulator's are 2-D or 3-D)");
}

} // namespace
