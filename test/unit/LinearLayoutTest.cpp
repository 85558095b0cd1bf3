//===- LinearLayoutTest.cpp - F2 layouts and the PTX fragment atoms -------===//
//
// Each atom is checked lane by lane against the formulas of the PTX ISA's
// fragment figures and AMD's MFMA register layouts, written here as the
// documents state them (groupID, threadID_in_group, element index ranges,
// lane and register formulas), not as bases.
//
//===----------------------------------------------------------------------===//

#include "tessera/Layout/LinearLayout.h"
#include "tessera/Layout/MmaLayouts.h"

#include "gtest/gtest.h"

#include <set>
#include <vector>

using namespace tessera;

namespace {

/// Checks `layout` against `expected(element, lane) -> (row, col)` for every
/// element and lane of one warp (`lanes` wide).
template <typename Fn>
void expectFragment(const LinearLayout &layout, int64_t elements, Fn expected,
                    int64_t lanes = 32) {
  ASSERT_EQ(layout.getSize(LinearLayout::Register), elements);
  ASSERT_EQ(layout.getSize(LinearLayout::Lane), lanes);
  for (int64_t e = 0; e < elements; ++e)
    for (int64_t lane = 0; lane < lanes; ++lane) {
      Coord want = expected(e, lane);
      EXPECT_EQ(layout.apply(e, lane, 0), want)
          << "element " << e << " lane " << lane;
    }
  std::string why;
  EXPECT_TRUE(layout.coversExactly(&why)) << why;
}

TEST(LinearLayoutAtoms, MmaM16N8K16A) {
  // PTX ISA, "Matrix Fragments for mma.m16n8k16" (.f16/.bf16 A):
  //   row = groupID            for a0, a1, a4, a5
  //         groupID + 8        for a2, a3, a6, a7
  //   col = threadID_in_group * 2 + (i & 0x1)        for a0..a3
  //         threadID_in_group * 2 + (i & 0x1) + 8    for a4..a7
  expectFragment(atoms::mmaM16N8K16A(), 8, [](int64_t i, int64_t lane) {
    int64_t g = lane >> 2, t = lane % 4;
    int64_t row = (i < 2 || (i >= 4 && i < 6)) ? g : g + 8;
    int64_t col = t * 2 + (i & 1) + (i >= 4 ? 8 : 0);
    return Coord{row, col};
  });
}

TEST(LinearLayoutAtoms, MmaM16N8K16B) {
  //   row = threadID_in_group * 2 + (i & 0x1)       for b0, b1
  //         threadID_in_group * 2 + (i & 0x1) + 8   for b2, b3
  //   col = groupID
  expectFragment(atoms::mmaM16N8K16B(), 4, [](int64_t i, int64_t lane) {
    int64_t g = lane >> 2, t = lane % 4;
    return Coord{t * 2 + (i & 1) + (i >= 2 ? 8 : 0), g};
  });
}

TEST(LinearLayoutAtoms, MmaM16N8Accumulator) {
  //   row = groupID        for c0, c1;  groupID + 8 for c2, c3
  //   col = threadID_in_group * 2 + (i & 0x1)
  expectFragment(atoms::mmaM16N8C(), 4, [](int64_t i, int64_t lane) {
    int64_t g = lane >> 2, t = lane % 4;
    return Coord{i < 2 ? g : g + 8, t * 2 + (i & 1)};
  });
}

TEST(LinearLayoutAtoms, MmaM16N8K32Int8) {
  // "Matrix Fragments for mma.m16n8k32" (.s8/.u8):
  //   A: row = groupID for a0..a3, a8..a11; groupID + 8 for a4..a7,
  //      a12..a15; col = threadID_in_group * 4 + (i & 0x3) for a0..a7,
  //      + 16 for a8..a15
  expectFragment(atoms::mmaM16N8K32A(), 16, [](int64_t i, int64_t lane) {
    int64_t g = lane >> 2, t = lane % 4;
    bool low = i < 4 || (i >= 8 && i < 12);
    return Coord{low ? g : g + 8, t * 4 + (i & 3) + (i >= 8 ? 16 : 0)};
  });
  //   B: row = threadID_in_group * 4 + (i & 0x3) for b0..b3, + 16 for
  //      b4..b7; col = groupID
  expectFragment(atoms::mmaM16N8K32B(), 8, [](int64_t i, int64_t lane) {
    int64_t g = lane >> 2, t = lane % 4;
    return Coord{t * 4 + (i & 3) + (i >= 4 ? 16 : 0), g};
  });
}

TEST(LinearLayoutAtoms, Ldmatrix) {
  // "ldmatrix": each 8x8 matrix of 16-bit elements is delivered to lane l
  // as row l / 4, elements 2 (l % 4) and 2 (l % 4) + 1; register j holds
  // matrix j. .trans delivers the transpose. Our x2/x4 place matrix j at
  // rows 8 (j & 1) and columns 8 (j >> 1).
  for (unsigned n : {1u, 2u, 4u})
    for (bool trans : {false, true})
      expectFragment(atoms::ldmatrix(n, trans), 2 * n,
                     [&](int64_t e, int64_t lane) {
                       int64_t j = e / 2, h = e % 2;
                       int64_t r = lane / 4, c = 2 * (lane % 4) + h;
                       if (trans)
                         std::swap(r, c);
                       return Coord{r + 8 * (j & 1), c + 8 * (j >> 1)};
                     });
  // x4 without .trans is exactly an m16n8k16 A fragment, and x2.trans a B
  // fragment: ldmatrix feeds mma.sync without shuffles.
  EXPECT_EQ(atoms::ldmatrix(4, false), atoms::mmaM16N8K16A());
  EXPECT_EQ(atoms::ldmatrix(2, true), atoms::mmaM16N8K16B());
}

TEST(LinearLayoutAtoms, WgmmaAccumulator) {
  // "wgmma register fragment" for D (m64nNk16, f32): warp w of the
  // warpgroup owns rows 16w..16w+15; d[i] of lane l is at
  //   row = 16w + groupID + 8 ((i / 2) % 2), col = 8 (i / 4) + 2t + (i % 2)
  LinearLayout layout = atoms::wgmmaAccumulator(64);
  ASSERT_EQ(layout.getSize(LinearLayout::Register), 32);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t i = 0; i < 32; ++i)
      for (int64_t lane = 0; lane < 32; ++lane) {
        int64_t g = lane >> 2, t = lane % 4;
        Coord want = {16 * w + g + 8 * ((i / 2) % 2),
                      8 * (i / 4) + 2 * t + (i % 2)};
        EXPECT_EQ(layout.apply(i, lane, w), want);
      }
  EXPECT_TRUE(layout.coversExactly());
}

TEST(LinearLayoutAtoms, WgmmaA8) {
  // "Register fragment of matrix A" for wgmma .m64nNk32 (.e4m3, .e5m2,
  // .s8, .u8): warp w of the warpgroup owns rows 16w..16w+15; a[i] of lane
  // l (i < 16, four bytes in each of four .b32 registers) is at
  //   row = 16w + groupID + 8 ((i / 4) % 2),
  //   col = threadID_in_group * 4 + (i % 4) + 16 (i / 8)
  LinearLayout layout = atoms::wgmmaA8();
  ASSERT_EQ(layout.getSize(LinearLayout::Register), 16);
  ASSERT_EQ(layout.getSize(LinearLayout::Warp), 4);
  for (int64_t w = 0; w < 4; ++w)
    for (int64_t i = 0; i < 16; ++i)
      for (int64_t lane = 0; lane < 32; ++lane) {
        int64_t g = lane >> 2, t = lane % 4;
        Coord want = {16 * w + g + 8 * ((i / 4) % 2),
                      t * 4 + (i % 4) + 16 * (i / 8)};
        EXPECT_EQ(layout.apply(i, lane, w), want)
            << "warp " << w << " element " << i << " lane " << lane;
      }
  EXPECT_TRUE(layout.coversExactly());
}

TEST(LinearLayoutAtoms, Mfma32x32x8) {
  // AMD's matrix instruction calculator (CDNA3, v_mfma_f32_32x32x8_bf16,
  // --detail-instruction), lane l, element e of the 4 16-bit A/B elements,
  // register g of the 16 accumulator registers:
  //   A[i][k]: lane = 32 * floor(k / 4) + i, e = k % 4
  expectFragment(
      atoms::mfmaA(32, 8), 4,
      [](int64_t e, int64_t lane) {
        return Coord{lane % 32, 4 * (lane / 32) + e};
      },
      64);
  //   B[k][j]: lane = 32 * floor(k / 4) + j, e = k % 4
  expectFragment(
      atoms::mfmaB(32, 8), 4,
      [](int64_t e, int64_t lane) {
        return Coord{4 * (lane / 32) + e, lane % 32};
      },
      64);
  //   D[i][j]: lane = 32 * (floor(i / 4) % 2) + j, g = 4 * floor(i / 8) +
  //   i % 4; so lane 0 holds rows 0-3, 8-11, 16-19 and 24-27 of column 0.
  expectFragment(
      atoms::mfmaC(32), 16,
      [](int64_t g, int64_t lane) {
        return Coord{8 * (g / 4) + 4 * (lane / 32) + g % 4, lane % 32};
      },
      64);
}

TEST(LinearLayoutAtoms, Mfma32x32x16I8) {
  // The calculator for CDNA3's v_mfma_i32_32x32x16_i8 (and its fp8 twin):
  // eight bytes per lane, A[i][k] at lane 32 * floor(k / 8) + i, byte
  // k % 8; B[k][j] at lane 32 * floor(k / 8) + j; D as for 32x32x8.
  expectFragment(
      atoms::mfmaA(32, 16), 8,
      [](int64_t e, int64_t lane) {
        return Coord{lane % 32, 8 * (lane / 32) + e};
      },
      64);
  expectFragment(
      atoms::mfmaB(32, 16), 8,
      [](int64_t e, int64_t lane) {
        return Coord{8 * (lane / 32) + e, lane % 32};
      },
      64);
}

TEST(LinearLayoutAtoms, Mfma16x16) {
  // The calculator for v_mfma_f32_16x16x16_{bf16,f16} (and gfx90a's
  // v_mfma_i32_16x16x16i8): A[i][k] at lane 16 * floor(k / 4) + i, element
  // k % 4; B[k][j] at lane 16 * floor(k / 4) + j; D[i][j] at lane
  // 16 * floor(i / 4) + j, register i % 4.
  expectFragment(
      atoms::mfmaA(16, 16), 4,
      [](int64_t e, int64_t lane) {
        return Coord{lane % 16, 4 * (lane / 16) + e};
      },
      64);
  expectFragment(
      atoms::mfmaB(16, 16), 4,
      [](int64_t e, int64_t lane) {
        return Coord{4 * (lane / 16) + e, lane % 16};
      },
      64);
  expectFragment(
      atoms::mfmaC(16), 4,
      [](int64_t g, int64_t lane) {
        return Coord{4 * (lane / 16) + g, lane % 16};
      },
      64);
  // gfx942's v_mfma_i32_16x16x32_i8 and v_mfma_f32_16x16x32_fp8_fp8: eight
  // bytes per lane, A[i][k] at lane 16 * floor(k / 8) + i, byte k % 8.
  expectFragment(
      atoms::mfmaA(16, 32), 8,
      [](int64_t e, int64_t lane) {
        return Coord{lane % 16, 8 * (lane / 16) + e};
      },
      64);
}

TEST(MmaLayouts, Mfma16x16TakesWhatThe32x32Cannot) {
  // 16 rows (a decode step's queries) by 64 columns on one wave: four
  // 16x16 blocks along N, A's 16 rows broadcast to each.
  std::string why;
  EXPECT_FALSE(getMfmaLayouts(16, 64, 32, 1, &why));
  std::optional<MfmaLayouts> l =
      getMfmaLayouts(16, 64, 32, 1, &why, false, /*atomM=*/16, /*atomK=*/16);
  ASSERT_TRUE(l) << why;
  for (const LinearLayout *layout : {&l->a, &l->b, &l->c})
    EXPECT_TRUE(layout->coversExactly(&why)) << why;
  EXPECT_EQ(l->c.getSize(LinearLayout::Register), 16);
  EXPECT_EQ(l->c.apply(4, 0, 0), (Coord{0, 16}));
  EXPECT_EQ(l->a.apply(4, 0, 0), (Coord{0, 16}));
  // 64x64 on 4 waves: a 2x2 grid of 32x32 parts, each four 16x16 blocks.
  l = getMfmaLayouts(64, 64, 16, 4, &why, false, 16, 16);
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->grid.warpsM * l->grid.warpsN, 4);
  for (const LinearLayout *layout : {&l->a, &l->b, &l->c})
    EXPECT_TRUE(layout->coversExactly(&why)) << why;
  EXPECT_FALSE(getMfmaLayouts(8, 64, 16, 1, &why, false, 16, 16));
  EXPECT_NE(why.find("16x16x16 MFMA needs M >= 16"), std::string::npos);
}

TEST(MmaLayouts, MfmaTilesWavesOverTheAccumulator) {
  // 128x128x64 by 4 waves: a 2x2 grid of 64x64 parts, each four 32x32
  // blocks; A broadcast across a row of the grid, B across a column.
  std::string why;
  std::optional<MfmaLayouts> l = getMfmaLayouts(128, 128, 64, 4, &why);
  ASSERT_TRUE(l) << why;
  EXPECT_EQ(l->grid.warpsM, 2);
  EXPECT_EQ(l->grid.warpsN, 2);
  for (const LinearLayout *layout : {&l->a, &l->b, &l->c})
    EXPECT_TRUE(layout->coversExactly(&why)) << why;
  // Wave 3 = (1, 1): its D block starts at (64, 64), its A rows at 64, its
  // B columns at 64; register 16 moves to the next 32 columns.
  EXPECT_EQ(l->c.apply(0, 0, 3), (Coord{64, 64}));
  EXPECT_EQ(l->c.apply(16, 0, 3), (Coord{64, 96}));
  EXPECT_EQ(l->a.apply(0, 0, 3), (Coord{64, 0}));
  EXPECT_EQ(l->a.apply(4, 0, 3), (Coord{64, 8}));
  EXPECT_EQ(l->b.apply(0, 0, 3), (Coord{0, 64}));
  EXPECT_EQ(l->a.apply(0, 0, 2), l->a.apply(0, 0, 3));
  EXPECT_EQ(l->b.apply(0, 0, 1), l->b.apply(0, 0, 3));
  // Too small for whole blocks per wave, or for the instruction at all.
  EXPECT_FALSE(getMfmaLayouts(32, 32, 8, 4, &why));
  EXPECT_NE(why.find("cannot each take a whole 32x32 block"),
            std::string::npos);
  EXPECT_FALSE(getMfmaLayouts(16, 64, 8, 1, &why));
  EXPECT_NE(why.find("needs M >= 32"), std::string::npos);
  EXPECT_FALSE(getMfmaLayouts(64, 64, 8, 1, &why, false, 32, /*atomK=*/16));
  EXPECT_NE(why.find("32x32x16 MFMA needs M >= 32, N >= 32 and K >= 16"),
            std::string::npos);
}

TEST(MmaLayouts, MfmaInt8TransposesTheAccumulator) {
  // gfx942's int8 atom (K = 16) with the accumulator transposed: each
  // thread holds, of D, the rows it holds of A (lanes 0-31 are rows in
  // both), on the same 2x2 grid of waves.
  std::string why;
  std::optional<MfmaLayouts> l =
      getMfmaLayouts(128, 128, 64, 4, &why, false, 32, 16, /*transposeC=*/true);
  ASSERT_TRUE(l) << why;
  EXPECT_TRUE(l->transposedC);
  EXPECT_EQ(l->grid.warpsM, 2);
  EXPECT_EQ(l->grid.warpsN, 2);
  for (const LinearLayout *layout : {&l->a, &l->b, &l->c})
    EXPECT_TRUE(layout->coversExactly(&why)) << why;
  // Eight k per lane, the next eight in lane 32; registers 8.. the next 16.
  EXPECT_EQ(l->a.apply(7, 0, 0), (Coord{0, 7}));
  EXPECT_EQ(l->a.apply(0, 32, 0), (Coord{0, 8}));
  EXPECT_EQ(l->a.apply(8, 0, 0), (Coord{0, 16}));
  for (int64_t wave = 0; wave < 4; ++wave)
    for (int64_t lane = 0; lane < 64; ++lane) {
      std::set<int64_t> rowsA, rowsC;
      for (int64_t r = 0; r < l->a.getSize(LinearLayout::Register); ++r)
        rowsA.insert(l->a.apply(r, lane, wave)[0]);
      for (int64_t r = 0; r < l->c.getSize(LinearLayout::Register); ++r)
        rowsC.insert(l->c.apply(r, lane, wave)[0]);
      EXPECT_EQ(rowsA, rowsC) << "lane " << lane << " wave " << wave;
    }
}

TEST(MmaLayouts, ContiguousRowRunsAreVectorLoads) {
  // An MFMA A operand holds four consecutive K elements per lane: one
  // 8-byte load inside a 16-byte swizzle chunk; B holds a column: none.
  std::optional<MfmaLayouts> l = getMfmaLayouts(128, 128, 64, 4, nullptr);
  ASSERT_TRUE(l);
  Swizzle chunks{8, 1, 8};
  EXPECT_EQ(contiguousRowRun(l->a, chunks, 16), 4);
  EXPECT_EQ(contiguousRowRun(l->b, chunks, 16), 1);
  // A swizzle chunk narrower than the run caps it.
  EXPECT_EQ(contiguousRowRun(l->a, Swizzle{2, 1, 8}, 16), 2);
  // mma.sync's A fragment: two elements per register pair.
  EXPECT_EQ(contiguousRowRun(atoms::mmaM16N8K16A(), chunks, 16), 2);
}

TEST(LinearLayoutAtoms, CoalescedCopy) {
  // 128x64 bf16 by 8 warps: 8 elements (16 bytes) per thread and step,
  // 8 lanes cover a 128-byte row, 32 lanes 4 rows, warps the next rows.
  LinearLayout copy = atoms::coalescedCopy(128, 64, 16, 8);
  EXPECT_TRUE(copy.coversExactly());
  for (int64_t lane = 0; lane < 32; ++lane)
    for (int64_t w = 0; w < 8; ++w)
      for (int64_t step = 0; step < 4; ++step)
        for (int64_t e = 0; e < 8; ++e)
          EXPECT_EQ(copy.apply(step * 8 + e, lane, w),
                    (Coord{step * 32 + w * 4 + lane / 8, (lane % 8) * 8 + e}));
  // A tile smaller than the threads: the surplus is a declared broadcast.
  LinearLayout tiny = atoms::coalescedCopy(2, 8, 16, 4);
  EXPECT_TRUE(tiny.coversExactly());
  EXPECT_EQ(tiny.apply(0, 5, 3), (Coord{1, 0}));
  // Wave64: 64 lanes take 8 rows of 64 bf16 per step.
  LinearLayout wave = atoms::coalescedCopy(64, 64, 16, 4, 64);
  EXPECT_TRUE(wave.coversExactly());
  EXPECT_EQ(wave.getSize(LinearLayout::Lane), 64);
  EXPECT_EQ(wave.apply(0, 63, 0), (Coord{7, 56}));
  EXPECT_EQ(wave.apply(0, 0, 1), (Coord{8, 0}));
}

TEST(LinearLayout, CoverageFindsHolesAndDuplicates) {
  std::string why;
  LinearLayout hole({4, 4}, {{0, 1}}, {{0, 2}, {1, 0}}, {});
  EXPECT_FALSE(hole.coversExactly(&why));
  EXPECT_EQ(why, "the bases reach 8 of the 16 elements");
  LinearLayout twice({2, 2}, {{0, 1}, {1, 0}}, {{1, 1}}, {});
  EXPECT_FALSE(twice.coversExactly(&why));
  EXPECT_EQ(why, "lane bit 0 (basis [1, 1]) repeats elements other bits "
                 "already reach");
  LinearLayout broadcast({2, 2}, {{0, 1}, {1, 0}}, {{0, 0}}, {});
  EXPECT_TRUE(broadcast.coversExactly());
}

TEST(LinearLayout, FindRegisterInvertsTheRegisterBases) {
  // An m16n8k16 A operand of a 64x32 warp tile: the atom, then two k steps
  // and two m steps.
  LinearLayout a = atoms::mmaM16N8K16A().withShape({64, 32}).withBases(
      LinearLayout::Register, {{0, 16}, {16, 0}, {32, 0}});
  for (int64_t reg = 0; reg < a.getSize(LinearLayout::Register); ++reg)
    EXPECT_EQ(a.findRegister(a.apply(reg, 0, 0)), uint64_t(reg));
  EXPECT_EQ(a.findRegister({16, 16}), uint64_t(8 + 16));
  EXPECT_FALSE(a.findRegister({1, 0})); // a lane holds it
}

TEST(LinearLayout, SplitDimHoldsTheSameElementsUnpacked) {
  // The B operand of a 64x32 (k x n) warp tile; its n dimension split into
  // byte pairs, as int4 codes are packed.
  LinearLayout b = atoms::mmaM16N8K16B().withShape({64, 32}).withBases(
      LinearLayout::Register, {{0, 8}, {16, 0}, {0, 16}, {32, 0}});
  LinearLayout packed = b.splitDim(1, 2);
  EXPECT_EQ(packed.getShape(), llvm::ArrayRef<int64_t>({64, 16, 2}));
  EXPECT_TRUE(packed.coversExactly());
  for (uint64_t reg = 0; reg < uint64_t(b.getSize(LinearLayout::Register));
       ++reg)
    for (uint64_t lane = 0; lane < 32; ++lane) {
      Coord c = b.apply(reg, lane, 0), p = packed.apply(reg, lane, 0);
      EXPECT_EQ(p, Coord({c[0], c[1] / 2, c[1] % 2}));
    }
}

TEST(LinearLayout, WithUnitDimInvertsTheSliceOfIt) {
  // The columns of an m16n8 accumulator (a row slice, [8]) seen as [8, 1]
  // and as [1, 8]: the same holders, a 0 coordinate inserted; slicing the
  // unit dimension away gives the layout back.
  LinearLayout columns = atoms::mmaM16N8C().sliced({0});
  for (unsigned dim : {0u, 1u}) {
    LinearLayout unit = columns.withUnitDim(dim);
    EXPECT_EQ(unit.getShape(),
              llvm::ArrayRef<int64_t>(dim ? std::vector<int64_t>{8, 1}
                                          : std::vector<int64_t>{1, 8}));
    EXPECT_TRUE(unit.coversExactly());
    for (uint64_t reg = 0;
         reg < uint64_t(columns.getSize(LinearLayout::Register)); ++reg)
      for (uint64_t lane = 0; lane < 32; ++lane) {
        Coord c = columns.apply(reg, lane, 0), u = unit.apply(reg, lane, 0);
        EXPECT_EQ(u, dim ? Coord({c[0], 0}) : Coord({0, c[0]}));
      }
    EXPECT_EQ(unit.sliced({dim}), columns);
  }
}

TEST(LinearLayout, GroupedPairsEveryRegisterWithItsGroup) {
  // Scales of 32 rows of k each over a 128x16 tile: a 4x16 tile in which
  // each element is held by every register that holds one of its codes.
  LinearLayout b = atoms::mmaM16N8K16B().withShape({128, 16}).withBases(
      LinearLayout::Register, {{16, 0}, {0, 8}, {32, 0}, {64, 0}});
  LinearLayout scales = b.grouped({32, 1}, {4, 16});
  EXPECT_TRUE(scales.coversExactly());
  EXPECT_EQ(scales.getSize(LinearLayout::Register),
            b.getSize(LinearLayout::Register));
  for (uint64_t reg = 0; reg < uint64_t(b.getSize(LinearLayout::Register));
       ++reg)
    for (uint64_t lane = 0; lane < 32; ++lane) {
      Coord c = b.apply(reg, lane, 0);
      EXPECT_EQ(scales.apply(reg, lane, 0), Coord({c[0] / 32, c[1]}));
    }
  // One group over the whole k: a row of scales, broadcast along k.
  LinearLayout row = b.grouped({128, 1}, {1, 16});
  EXPECT_TRUE(row.coversExactly());
  EXPECT_EQ(row.apply(5, 7, 0), Coord({0, b.apply(5, 7, 0)[1]}));
}

TEST(SharedSwizzle, NibbleReadsOfAnMmaOperandAreConflictFree) {
  // An int4 B operand of 64 rows of k and 128 codes (64 bytes per row), read
  // byte by byte in the mma.sync B layout: lanes 2 and 4 rows apart read
  // one bank without a swizzle, distinct banks with the byte tile's.
  LinearLayout b = atoms::mmaM16N8K16B().withShape({64, 128}).withBases(
      LinearLayout::Register,
      {{16, 0}, {32, 0}, {0, 8}, {0, 16}, {0, 32}, {0, 64}});
  LinearLayout bytes = b.splitDim(1, 2);
  EXPECT_EQ(elementConflictDegree(bytes, 1, Swizzle{}), 4u);
  EXPECT_EQ(elementConflictDegree(bytes, 1, chooseSwizzle(64, 8)), 1u);
}

TEST(SharedSwizzle, LdmatrixAndCopiesAreConflictFree) {
  // For rows of 64, 128 and 256 bytes: 8 lanes of an ldmatrix phase read
  // one 16-byte chunk of 8 consecutive rows; 8 lanes of a copy write the 8
  // chunks of consecutive rows. Both must touch 8 distinct bank groups.
  for (int64_t cols : {32, 64, 128}) {
    Swizzle s = chooseSwizzle(cols, 16);
    int64_t rowBytes = cols * 2;
    for (int64_t chunk = 0; chunk < cols / 8; ++chunk)
      for (int64_t row0 = 0; row0 < 32; row0 += 8) {
        llvm::SmallVector<int64_t> addresses;
        for (int64_t r = row0; r < row0 + 8; ++r)
          addresses.push_back(r * rowBytes + s.apply(r, chunk * 8) * 2);
        EXPECT_EQ(bankConflictDegree(addresses, 16), 1u)
            << cols << " columns, chunk " << chunk;
      }
    llvm::SmallVector<int64_t> writes;
    for (int64_t lane = 0; lane < 8; ++lane) {
      int64_t flat = lane * 8, r = flat / cols, c = flat % cols;
      writes.push_back(r * rowBytes + s.apply(r, c) * 2);
    }
    EXPECT_EQ(bankConflictDegree(writes, 16), 1u);
  }
  // Without a swizzle, 256-byte rows put one chunk of 8 rows in one bank
  // group: an 8-way conflict.
  llvm::SmallVector<int64_t> plain;
  for (int64_t r = 0; r < 8; ++r)
    plain.push_back(r * 256);
  EXPECT_EQ(bankConflictDegree(plain, 16), 8u);
}

TEST(LinearLayoutConversions, RegisterPermutation) {
  // The m16n8 accumulator with its register bits swapped: each register of
  // the result is found in the source, the same one in every thread.
  LinearLayout c = atoms::mmaM16N8C();
  LinearLayout swapped({16, 8}, {{8, 0}, {0, 1}},
                       c.getBases(LinearLayout::Lane), {});
  std::optional<llvm::SmallVector<int64_t>> p = registerPermutation(c, swapped);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(*p, (llvm::SmallVector<int64_t>{0, 2, 1, 3}));
  for (uint64_t lane = 0; lane < 32; ++lane)
    for (int64_t r = 0; r < 4; ++r)
      EXPECT_EQ(swapped.apply(r, lane, 0), c.apply((*p)[r], lane, 0));
  EXPECT_EQ(registerPermutation(c, c),
            (llvm::SmallVector<int64_t>{0, 1, 2, 3}));
  // The same elements per thread are not enough when lanes differ: the
  // A fragment's lanes hold other elements than the accumulator's.
  LinearLayout coalesced = atoms::coalescedCopy(16, 8, 32, 1);
  EXPECT_FALSE(registerPermutation(c, coalesced).has_value());
  // Nor when the result holds an element the source's registers do not.
  LinearLayout broadcast({16, 8}, {{0, 1}, {0, 0}},
                         c.getBases(LinearLayout::Lane), {});
  LinearLayout full({16, 8}, {{0, 1}, {8, 0}}, c.getBases(LinearLayout::Lane),
                    {});
  EXPECT_FALSE(registerPermutation(broadcast, full).has_value());
  EXPECT_TRUE(registerPermutation(full, broadcast).has_value());
}

} // namespace
