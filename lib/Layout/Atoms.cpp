//===- Atoms.cpp - Fragment layouts of single instructions ---------------===//
//
// Each table transcribes one fragment figure of the PTX ISA (or one of
// AMD's MFMA register layouts) into bases: element e of lane l (for PTX,
// groupID g = l / 4, thread-in-group t = l % 4) holds the coordinate
// obtained by XOR-ing the bases of the set bits of e and l.
// test/unit/LinearLayoutTest.cpp checks each table lane by lane against the
// figures' own formulas.
//
//===----------------------------------------------------------------------===//

#include "tessera/Layout/LinearLayout.h"

#include "llvm/Support/MathExtras.h"

#include <cassert>

using namespace tessera;

/// Lanes of an m16n8 fragment whose rows follow g and columns follow t
/// (`colsPerThread` consecutive columns per t).
static llvm::SmallVector<Coord> rowGroupLanes(int64_t colsPerThread) {
  return {{0, colsPerThread}, {0, 2 * colsPerThread}, {1, 0}, {2, 0}, {4, 0}};
}

/// Lanes whose t selects rows (k) and g columns (n): B fragments.
static llvm::SmallVector<Coord> colGroupLanes(int64_t rowsPerThread) {
  return {{rowsPerThread, 0}, {2 * rowsPerThread, 0}, {0, 1}, {0, 2}, {0, 4}};
}

LinearLayout atoms::mmaM16N8K16A() {
  // a0..a7: row g (+8 for a2, a3, a6, a7), column 2t + (e % 2) (+8 for
  // a4..a7).
  return LinearLayout({16, 16}, {{0, 1}, {8, 0}, {0, 8}}, rowGroupLanes(2), {});
}

LinearLayout atoms::mmaM16N8K16B() {
  // b0..b3: row (k) 2t + (e % 2) (+8 for b2, b3), column (n) g.
  return LinearLayout({16, 8}, {{1, 0}, {8, 0}}, colGroupLanes(2), {});
}

LinearLayout atoms::mmaM16N8C() {
  // c0..c3: row g (+8 for c2, c3), column 2t + (e % 2).
  return LinearLayout({16, 8}, {{0, 1}, {8, 0}}, rowGroupLanes(2), {});
}

LinearLayout atoms::mmaM16N8K32A() {
  // a0..a15: row g (+8 for a4..a7, a12..a15), column 4t + (e % 4) (+16 for
  // a8..a15).
  return LinearLayout({16, 32}, {{0, 1}, {0, 2}, {8, 0}, {0, 16}},
                      rowGroupLanes(4), {});
}

LinearLayout atoms::mmaM16N8K32B() {
  // b0..b7: row (k) 4t + (e % 4) (+16 for b4..b7), column (n) g.
  return LinearLayout({32, 8}, {{1, 0}, {2, 0}, {16, 0}}, colGroupLanes(4), {});
}

LinearLayout atoms::ldmatrix(unsigned numMatrices, bool transpose) {
  assert((numMatrices == 1 || numMatrices == 2 || numMatrices == 4) &&
         "ldmatrix loads 1, 2 or 4 matrices");
  // Lane l receives row l / 4, columns 2 (l % 4) + {0, 1} of each 8x8
  // matrix; with .trans, column l / 4, rows 2 (l % 4) + {0, 1}.
  llvm::SmallVector<Coord> regs = {transpose ? Coord{1, 0} : Coord{0, 1}};
  llvm::SmallVector<Coord> lanes =
      transpose ? colGroupLanes(2) : rowGroupLanes(2);
  llvm::SmallVector<int64_t> shape = {8, 8};
  if (numMatrices >= 2) {
    regs.push_back({8, 0});
    shape[0] = 16;
  }
  if (numMatrices == 4) {
    regs.push_back({0, 8});
    shape[1] = 16;
  }
  return LinearLayout(shape, regs, lanes, {});
}

LinearLayout atoms::wgmmaAccumulator(int64_t n) {
  assert(n >= 8 && n <= 256 && llvm::isPowerOf2_64(n) && "wgmma N");
  // Warp w of the warpgroup holds rows 16w..16w+15 as an m16n8 C fragment
  // repeated over the N / 8 column blocks.
  llvm::SmallVector<Coord> regs = {{0, 1}, {8, 0}};
  for (int64_t col = 8; col < n; col *= 2)
    regs.push_back({0, col});
  return LinearLayout({64, n}, regs, rowGroupLanes(2), {{16, 0}, {32, 0}});
}

LinearLayout atoms::wgmmaA8() {
  // Register fragment of wgmma.m64nNk32 for 8-bit A: a0..a15 of lane l of
  // warp w at row 16w + g (+8 for a4..a7, a12..a15), column 4t + (e % 4)
  // (+16 for a8..a15).
  return mmaM16N8K32A().withShape({64, 32}).withBases(LinearLayout::Warp,
                                                      {{16, 0}, {32, 0}});
}

LinearLayout atoms::mfmaA(int64_t m, int64_t k) {
  assert((m == 32 || m == 16) && m * k >= 256 && m * k <= 512 &&
         "an MFMA atom");
  // A[i][k]: lane M (k / P) + i, element k % P, P = M K / 64.
  int64_t perLane = m * k / 64;
  llvm::SmallVector<Coord> regs, lanes;
  for (int64_t e = 1; e < perLane; e *= 2)
    regs.push_back({0, e});
  for (int64_t i = 1; i < m; i *= 2)
    lanes.push_back({i, 0});
  for (int64_t kk = perLane; kk < k; kk *= 2)
    lanes.push_back({0, kk});
  return LinearLayout({m, k}, regs, lanes, {});
}

LinearLayout atoms::mfmaB(int64_t m, int64_t k) {
  // B[k][j]: lane M (k / P) + j, element k % P.
  return mfmaA(m, k).transposed();
}

LinearLayout atoms::mfmaC(int64_t m) {
  assert((m == 32 || m == 16) && "an MFMA atom");
  // D[i][j]: lane M ((i / 4) % (64 / M)) + j, register 4 (i / (256 / M)) +
  // i % 4.
  llvm::SmallVector<Coord> regs = {{1, 0}, {2, 0}}, lanes;
  for (int64_t j = 1; j < m; j *= 2)
    lanes.push_back({0, j});
  for (int64_t i = 4; i < 256 / m; i *= 2)
    lanes.push_back({i, 0});
  for (int64_t i = 256 / m; i < m; i *= 2)
    regs.push_back({i, 0});
  return LinearLayout({m, m}, regs, lanes, {});
}

LinearLayout atoms::coalescedCopy(int64_t rows, int64_t cols,
                                  unsigned elementBits, unsigned numWarps,
                                  unsigned warpSize) {
  int64_t vec = std::min<int64_t>(cols, 128 / elementBits);
  llvm::SmallVector<Coord> regs, lanes, warps;
  for (int64_t c = 1; c < vec; c *= 2)
    regs.push_back({0, c});
  // Remaining column bits, then row bits, in the order lanes, warps and
  // registers take them; what is left over is broadcast.
  llvm::SmallVector<Coord> free;
  for (int64_t c = vec; c < cols; c *= 2)
    free.push_back({0, c});
  for (int64_t r = 1; r < rows; r *= 2)
    free.push_back({r, 0});
  unsigned next = 0;
  auto take = [&]() -> Coord {
    return next < free.size() ? free[next++] : Coord{0, 0};
  };
  for (unsigned lane = 1; lane < warpSize; lane *= 2)
    lanes.push_back(take());
  for (unsigned w = 1; w < numWarps; w *= 2)
    warps.push_back(take());
  while (next < free.size())
    regs.push_back(take());
  return LinearLayout({rows, cols}, regs, lanes, warps);
}
