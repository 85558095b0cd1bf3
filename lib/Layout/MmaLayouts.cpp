//===- MmaLayouts.cpp - Operand layouts of warp-tiled MMAs ----------------===//

#include "tessera/Layout/MmaLayouts.h"

#include "llvm/Support/MathExtras.h"

using namespace tessera;

/// Bases doubling from `first` up to (excluding) `limit` along `dim`.
static llvm::SmallVector<Coord> steps(unsigned dim, int64_t first,
                                      int64_t limit) {
  llvm::SmallVector<Coord> bases;
  for (int64_t v = first; v < limit; v *= 2) {
    Coord c = {0, 0};
    c[dim] = v;
    bases.push_back(c);
  }
  return bases;
}

/// Bases of `count` (a power of two) zero entries: declared broadcasts.
static llvm::SmallVector<Coord> broadcast(int64_t count) {
  return llvm::SmallVector<Coord>(llvm::Log2_64(uint64_t(count)), {0, 0});
}

/// The warp grid with the smallest per-warp perimeter (operand traffic),
/// each warp keeping at least one atomM x atomN block; with `warpsAlongM`,
/// one column of warps when M allows. Ties go to fewer warps along M, or
/// with `moreAlongM` to more (fewer rows of A per warp: int8 A tiles are
/// usually quantized in registers from a wider tile).
static std::optional<WarpGrid> chooseWarpGrid(int64_t m, int64_t n,
                                              int64_t numWarps, int64_t atomM,
                                              int64_t atomN, bool warpsAlongM,
                                              bool moreAlongM = false) {
  std::optional<WarpGrid> best;
  for (int64_t wm = 1; wm <= numWarps; wm *= 2) {
    int64_t wn = numWarps / wm;
    if (m / wm < atomM || n / wn < atomN)
      continue;
    if (warpsAlongM && m / numWarps >= atomM && wn != 1)
      continue;
    int64_t perimeter = m / wm + n / wn;
    int64_t bestPerimeter = best ? m / best->warpsM + n / best->warpsN : 0;
    if (best && (perimeter > bestPerimeter ||
                 (perimeter == bestPerimeter && !moreAlongM)))
      continue;
    best = WarpGrid{wm, wn};
  }
  return best;
}

std::optional<WgmmaLayouts>
tessera::getWgmmaLayouts(int64_t m, int64_t n, int64_t k, int64_t numWarps,
                         std::string *why, unsigned elementBits) {
  auto fail = [&](const std::string &message) -> std::optional<WgmmaLayouts> {
    if (why)
      *why = message;
    return std::nullopt;
  };
  if (!isPowerOfTwoShape({m, n, k, numWarps}))
    return fail("MMA sizes and the warp count must be powers of two");
  if (numWarps % 4)
    return fail("wgmma needs whole warpgroups of 4 warps, not " +
                std::to_string(numWarps) + " warps");
  int64_t groups = numWarps / 4;
  if (m % (64 * groups))
    return fail("the " + std::to_string(groups) +
                " warpgroups cannot each take whole 64-row blocks of " +
                std::to_string(m) + " rows");
  if (n < 64 || n > 256)
    return fail("wgmma from swizzled tiles needs 64 <= N <= 256, not " +
                std::to_string(n));
  // Rows along K of 64 bytes (64-byte swizzle, 8-bit) or of whole
  // 128-byte swizzle rows.
  if (k % 64)
    return fail("wgmma from swizzled tiles needs K a multiple of 64, not " +
                std::to_string(k));
  WgmmaLayouts l;
  l.warpgroups = groups;
  l.repetitions = m / (64 * groups);
  // The warpgroup's m64nN fragment, its 64-row repetitions (register bits)
  // above the warpgroups' blocks (warp bits above the atom's two).
  auto tiled = [&](int64_t cols) {
    return atoms::wgmmaAccumulator(cols)
        .withShape({m, cols})
        .withBases(LinearLayout::Register, steps(0, 64 * groups, m))
        .withBases(LinearLayout::Warp, steps(0, 64, 64 * groups));
  };
  l.c = tiled(n);
  if (k > 256)
    return l;
  if (elementBits == 16) {
    l.a = tiled(k);
    return l;
  }
  // 8-bit A: the m64k32 fragment, its K steps, then as the accumulator.
  l.a = atoms::wgmmaA8()
            .withShape({m, k})
            .withBases(LinearLayout::Register, steps(1, 32, k))
            .withBases(LinearLayout::Register, steps(0, 64 * groups, m))
            .withBases(LinearLayout::Warp, steps(0, 64, 64 * groups));
  return l;
}

std::optional<MmaSyncLayouts>
tessera::getMmaSyncLayouts(int64_t m, int64_t n, int64_t k, int64_t numWarps,
                           std::string *why, bool warpsAlongM, bool int8,
                           bool moreAlongM) {
  auto fail = [&](const std::string &message) -> std::optional<MmaSyncLayouts> {
    if (why)
      *why = message;
    return std::nullopt;
  };
  if (!isPowerOfTwoShape({m, n, k, numWarps}))
    return fail("MMA sizes and the warp count must be powers of two");
  // The instruction's K: 16 for 16-bit operands, 32 for 8-bit integers.
  int64_t atomK = int8 ? 32 : 16;
  if (m < 16 || n < 8 || k < atomK)
    return fail(int8 ? "mma.sync m16n8k32 needs M >= 16, N >= 8 and K >= 32"
                     : "mma.sync m16n8k16 needs M >= 16, N >= 8 and K >= 16");
  std::optional<WarpGrid> grid =
      chooseWarpGrid(m, n, numWarps, 16, 8, warpsAlongM, int8 || moreAlongM);
  if (!grid)
    return fail("the " + std::to_string(numWarps) +
                " warps cannot each take "
                "a whole 16x8 fragment of a " +
                std::to_string(m) + "x" + std::to_string(n) + " accumulator");
  std::optional<MmaSyncLayouts> best = MmaSyncLayouts();
  best->grid = *grid;
  best->warpM = m / grid->warpsM;
  best->warpN = n / grid->warpsN;
  MmaSyncLayouts &l = *best;
  int64_t wm = l.grid.warpsM, wn = l.grid.warpsN;
  l.bMatrices = l.warpN >= 16 ? 4 : 2;
  // Warp w sits at (w / wn, w % wn) of the grid: low warp bits move along N.
  llvm::SmallVector<Coord> warpN = steps(1, l.warpN, n);
  llvm::SmallVector<Coord> warpM = steps(0, l.warpM, m);

  // D: the m16n8 atom, then the n8 repetitions, then the m16 ones.
  l.c = atoms::mmaM16N8C()
            .withShape({m, n})
            .withBases(LinearLayout::Register, steps(1, 8, l.warpN))
            .withBases(LinearLayout::Register, steps(0, 16, l.warpM))
            .withBases(LinearLayout::Warp, warpN)
            .withBases(LinearLayout::Warp, warpM);
  // A: the 16x16 atom (one ldmatrix.x4; 16x32 for int8), the K steps, the
  // m16 ones; broadcast over the warps that share a row of the grid.
  l.a = (int8 ? atoms::mmaM16N8K32A() : atoms::mmaM16N8K16A())
            .withShape({m, k})
            .withBases(LinearLayout::Register, steps(1, atomK, k))
            .withBases(LinearLayout::Register, steps(0, 16, l.warpM))
            .withBases(LinearLayout::Warp, broadcast(wn))
            .withBases(LinearLayout::Warp, warpM);
  // B: one ldmatrix.x{4,2}.trans block (two n8 atoms or one), the k16
  // steps, the remaining n repetitions; broadcast over the grid's columns.
  // (int8: the 32x8 atom, whose k runs ldmatrix cannot transpose.)
  LinearLayout b =
      (int8 ? atoms::mmaM16N8K32B() : atoms::mmaM16N8K16B()).withShape({k, n});
  int64_t nBlock = 8;
  if (l.bMatrices == 4) {
    b = b.withBases(LinearLayout::Register, {{0, 8}});
    nBlock = 16;
  }
  l.b = b.withBases(LinearLayout::Register, steps(0, atomK, k))
            .withBases(LinearLayout::Register, steps(1, nBlock, l.warpN))
            .withBases(LinearLayout::Warp, warpN)
            .withBases(LinearLayout::Warp, broadcast(wm));
  return best;
}

std::optional<MfmaLayouts>
tessera::getMfmaLayouts(int64_t m, int64_t n, int64_t k, int64_t numWarps,
                        std::string *why, bool warpsAlongM, int64_t atomM,
                        int64_t atomK, bool transposeC) {
  auto fail = [&](const std::string &message) -> std::optional<MfmaLayouts> {
    if (why)
      *why = message;
    return std::nullopt;
  };
  if (!isPowerOfTwoShape({m, n, k, numWarps}))
    return fail("MMA sizes and the wave count must be powers of two");
  std::string atom = std::to_string(atomM) + "x" + std::to_string(atomM);
  if (m < atomM || n < atomM || k < atomK)
    return fail("a " + atom + "x" + std::to_string(atomK) +
                " MFMA needs M >= " + std::to_string(atomM) + ", N >= " +
                std::to_string(atomM) + " and K >= " + std::to_string(atomK));
  std::optional<WarpGrid> grid =
      chooseWarpGrid(m, n, numWarps, atomM, atomM, warpsAlongM);
  if (!grid)
    return fail("the " + std::to_string(numWarps) +
                " waves cannot each take a whole " + atom + " block of a " +
                std::to_string(m) + "x" + std::to_string(n) + " accumulator");
  MfmaLayouts l;
  l.grid = *grid;
  l.warpM = m / grid->warpsM;
  l.warpN = n / grid->warpsN;
  // Wave w sits at (w / wn, w % wn) of the grid: low wave bits move along N.
  llvm::SmallVector<Coord> warpN = steps(1, l.warpN, n);
  llvm::SmallVector<Coord> warpM = steps(0, l.warpM, m);
  // With warpsAlongM the accumulator is computed transposed (D^T = B^T
  // A^T): each lane then holds a row, whose elements sit in registers and
  // lane bit 5, the layout of an A operand over K = N. `transposeC` asks
  // for the same without the grid: a thread then holds the accumulator's
  // rows that it holds of A (row scales of quantized activations).
  l.transposedC = warpsAlongM || transposeC;
  LinearLayout atomC = atoms::mfmaC(atomM);
  if (l.transposedC)
    atomC = atomC.transposed();
  l.c = atomC.withShape({m, n})
            .withBases(LinearLayout::Register, steps(1, atomM, l.warpN))
            .withBases(LinearLayout::Register, steps(0, atomM, l.warpM))
            .withBases(LinearLayout::Warp, warpN)
            .withBases(LinearLayout::Warp, warpM);
  l.a = atoms::mfmaA(atomM, atomK)
            .withShape({m, k})
            .withBases(LinearLayout::Register, steps(1, atomK, k))
            .withBases(LinearLayout::Register, steps(0, atomM, l.warpM))
            .withBases(LinearLayout::Warp, broadcast(grid->warpsN))
            .withBases(LinearLayout::Warp, warpM);
  l.b = atoms::mfmaB(atomM, atomK)
            .withShape({k, n})
            .withBases(LinearLayout::Register, steps(0, atomK, k))
            .withBases(LinearLayout::Register, steps(1, atomM, l.warpN))
            .withBases(LinearLayout::Warp, warpN)
            .withBases(LinearLayout::Warp, broadcast(grid->warpsM));
  return l;
}

//===----------------------------------------------------------------------===//
// ldmatrix
//===----------------------------------------------------------------------===//

std::optional<LdmatrixPlan> tessera::planLdmatrix(const LinearLayout &layout,
                                                  std::string *why) {
  auto fail = [&](const std::string &message) -> std::optional<LdmatrixPlan> {
    if (why)
      *why = message;
    return std::nullopt;
  };
  if (layout.getRank() != 2)
    return fail("ldmatrix loads 2-D tiles");
  llvm::SmallVector<Coord> regs = layout.getBases(LinearLayout::Register);
  llvm::SmallVector<Coord> lanes = layout.getBases(LinearLayout::Lane);
  if (lanes.size() != 5 || regs.empty())
    return fail("the layout is not a warp fragment");
  LdmatrixPlan plan;
  plan.transpose = regs[0] == Coord{1, 0};
  // Lane l addresses row i = l % 8 of matrix j = l / 8. Without .trans, row
  // i is what lanes 4i..4i+3 hold (lane bits 2..4); with .trans, it is
  // element i % 2 of lanes 2 (i / 2).. (register bit 0, lane bits 0..1).
  plan.numMatrices = 1;
  while (plan.numMatrices < 4 &&
         2 * plan.numMatrices <
             uint64_t(layout.getSize(LinearLayout::Register)))
    plan.numMatrices *= 2;
  llvm::SmallVector<Coord> addressLanes;
  Coord zero(2, 0);
  for (unsigned bit = 0; bit < 5; ++bit) {
    if (bit >= 3) {
      unsigned matrixBit = bit - 3;
      addressLanes.push_back(
          (1u << matrixBit) < plan.numMatrices ? regs[1 + matrixBit] : zero);
      continue;
    }
    if (plan.transpose)
      addressLanes.push_back(bit == 0 ? regs[0] : lanes[bit - 1]);
    else
      addressLanes.push_back(lanes[bit + 2]);
  }
  plan.rowAddress = LinearLayout(layout.getShape(), regs, addressLanes,
                                 layout.getBases(LinearLayout::Warp));
  // Simulate: lane l receives, in register j, element h of its slot of
  // matrix j: M_j[l / 4][2 (l % 4) + h], or M_j[2 (l % 4) + h][l / 4] with
  // .trans, where row r of M_j starts at the address lane 8j + r gave.
  int64_t perLoad = plan.registersPerLoad();
  for (int64_t block = 0; block < layout.getSize(LinearLayout::Register);
       block += perLoad)
    for (unsigned j = 0; j < plan.numMatrices; ++j)
      for (unsigned lane = 0; lane < 32; ++lane)
        for (unsigned h = 0; h < 2; ++h) {
          unsigned row = plan.transpose ? 2 * (lane % 4) + h : lane / 4;
          unsigned col = plan.transpose ? lane / 4 : 2 * (lane % 4) + h;
          Coord start = plan.rowAddress.apply(block, 8 * j + row, 0);
          if (start[1] % 8)
            return fail("matrix rows do not start at 16-byte chunks");
          Coord got = {start[0], start[1] + col};
          Coord want = layout.apply(block + 2 * j + h, lane, 0);
          if (got != want)
            return fail("ldmatrix would deliver element (" +
                        std::to_string(got[0]) + ", " + std::to_string(got[1]) +
                        ") where lane " + std::to_string(lane) + " holds (" +
                        std::to_string(want[0]) + ", " +
                        std::to_string(want[1]) + ")");
        }
  return plan;
}

int64_t tessera::sharedByteOffset(int64_t row, int64_t col, int64_t cols,
                                  int64_t elementBytes,
                                  const Swizzle &swizzle) {
  return (row * cols + swizzle.apply(row, col)) * elementBytes;
}

unsigned tessera::ldmatrixConflictDegree(const LinearLayout &layout,
                                         const LdmatrixPlan &plan,
                                         int64_t elementBytes,
                                         const Swizzle &swizzle) {
  unsigned worst = 0;
  int64_t cols = layout.getShape()[1];
  for (int64_t block = 0; block < layout.getSize(LinearLayout::Register);
       block += plan.registersPerLoad())
    for (int64_t warp = 0; warp < layout.getSize(LinearLayout::Warp); ++warp)
      for (unsigned phase = 0; phase < plan.numMatrices; ++phase) {
        llvm::SmallVector<int64_t> addresses;
        for (unsigned lane = 8 * phase; lane < 8 * phase + 8; ++lane) {
          Coord c = plan.rowAddress.apply(block, lane, warp);
          addresses.push_back(
              sharedByteOffset(c[0], c[1], cols, elementBytes, swizzle));
        }
        worst = std::max(worst, bankConflictDegree(addresses, 16));
      }
  return worst;
}

unsigned tessera::elementConflictDegree(const LinearLayout &layout,
                                        int64_t elementBytes,
                                        const Swizzle &swizzle) {
  unsigned worst = 0;
  int64_t cols = layout.getShape()[1];
  for (int64_t reg = 0; reg < layout.getSize(LinearLayout::Register); ++reg)
    for (int64_t warp = 0; warp < layout.getSize(LinearLayout::Warp); ++warp) {
      llvm::SmallVector<int64_t> addresses;
      for (unsigned lane = 0; lane < 32; ++lane) {
        Coord c = layout.apply(reg, lane, warp);
        addresses.push_back(
            sharedByteOffset(c[0], c[1], cols, elementBytes, swizzle));
      }
      worst = std::max(worst, bankConflictDegree(addresses, 4));
    }
  return worst;
}

unsigned tessera::copyConflictDegree(const LinearLayout &copy,
                                     int64_t elementBytes,
                                     const Swizzle &swizzle) {
  unsigned worst = 0;
  int64_t cols = copy.getShape()[1];
  int64_t vec = std::max<int64_t>(1, 16 / elementBytes);
  for (int64_t reg = 0; reg < copy.getSize(LinearLayout::Register); reg += vec)
    for (int64_t warp = 0; warp < copy.getSize(LinearLayout::Warp); ++warp)
      for (unsigned phase = 0; phase < 4; ++phase) {
        llvm::SmallVector<int64_t> addresses;
        for (unsigned lane = 8 * phase; lane < 8 * phase + 8; ++lane) {
          Coord c = copy.apply(reg, lane, warp);
          int64_t address =
              sharedByteOffset(c[0], c[1], cols, elementBytes, swizzle);
          if (!llvm::is_contained(addresses, address))
            addresses.push_back(address); // broadcast lanes share a chunk
        }
        worst = std::max(worst, bankConflictDegree(addresses, 16));
      }
  return worst;
}

int64_t tessera::contiguousRowRun(const LinearLayout &layout,
                                  const Swizzle &swizzle,
                                  unsigned elementBits) {
  if (layout.getRank() != 2)
    return 1;
  int64_t limit = 128 / elementBits;
  if (!swizzle.isIdentity())
    limit = std::min<int64_t>(limit, swizzle.vec);
  llvm::SmallVector<Coord> regs = layout.getBases(LinearLayout::Register);
  int64_t run = 1;
  unsigned bits = 0;
  while (bits < regs.size() && 2 * run <= limit &&
         regs[bits] == Coord{0, run}) {
    run *= 2;
    ++bits;
  }
  auto aligned = [&](const Coord &basis) { return basis[1] % run == 0; };
  for (auto in : {LinearLayout::Lane, LinearLayout::Warp})
    if (!llvm::all_of(layout.getBases(in), aligned))
      return 1;
  if (!llvm::all_of(llvm::ArrayRef<Coord>(regs).drop_front(bits), aligned))
    return 1;
  return run;
}

int64_t tessera::conversionRun(const LinearLayout &layout,
                               unsigned elementBits) {
  if (layout.getRank() != 2 || elementBits < 8)
    return 1;
  return contiguousRowRun(layout, Swizzle{}, elementBits);
}

unsigned tessera::conversionSlotBits(const LinearLayout &from,
                                     unsigned elementBits) {
  return conversionRun(from, elementBits) * elementBits < 32 ? 32 : elementBits;
}
