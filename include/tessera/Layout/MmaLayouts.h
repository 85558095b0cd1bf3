//===- MmaLayouts.h - Operand layouts of warp-tiled MMAs -------*- C++ -*-===//
//
// A tile-level MMA D[M x N] += A[M x K] B[K x N] run by the warps of a
// program instance: the warps form a grid over (M, N), each warp repeats the
// instruction's fragments over its part, and the layouts of A, B and D are
// the instruction's atoms extended by those repetitions (register bits) and
// by the warp grid (warp bits; A is broadcast across the warps of one row of
// the grid, B across a column).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LAYOUT_MMALAYOUTS_H
#define TESSERA_LAYOUT_MMALAYOUTS_H

#include "tessera/Layout/LinearLayout.h"

#include <optional>
#include <string>

namespace tessera {

struct WarpGrid {
  int64_t warpsM = 1, warpsN = 1;
};

/// The layouts of an mma.sync m16n8k16 (16-bit operands) or m16n8k32
/// (8-bit integer operands) tile MMA.
struct MmaSyncLayouts {
  WarpGrid grid;
  /// Per warp: the M x N part it computes.
  int64_t warpM = 0, warpN = 0;
  /// ldmatrix matrices per B load: 4 (two n8 atoms at once) or 2.
  unsigned bMatrices = 4;
  LinearLayout a, b, c;
};

/// The layouts for an M x N x K MMA of 16-bit operands (or, with `int8`,
/// of 8-bit integers: the m16n8k32 fragments) run by `numWarps` warps;
/// none (with `why`) when the shape does not split into whole fragments
/// per warp.
/// With `warpsAlongM`, every warp takes whole rows (a grid of numWarps x 1)
/// when M allows: the accumulator's rows can then be reduced within a warp
/// and it has the layout of a next MMA's A operand (attention's P).
/// With `moreAlongM` (implied by `int8`), warp grids of equal perimeter are
/// broken towards more warps along M: fewer rows of A per warp, for A
/// tiles quantized in registers from a wider tile.
std::optional<MmaSyncLayouts>
getMmaSyncLayouts(int64_t m, int64_t n, int64_t k, int64_t numWarps,
                  std::string *why, bool warpsAlongM = false, bool int8 = false,
                  bool moreAlongM = false);

/// The layouts of an AMD MFMA tile MMA (wave64).
struct MfmaLayouts {
  WarpGrid grid;
  int64_t warpM = 0, warpN = 0;
  /// Whether the accumulator blocks are the instruction's D transposed
  /// (computed as B^T A^T): lanes along rows, registers along columns.
  bool transposedC = false;
  LinearLayout a, b, c;
};

/// The layouts for an M x N x K MMA run by `numWarps` waves with `atomM` x
/// `atomM` x `atomK` MFMAs (32x32x8: 16-bit operands, or int8 on gfx90a;
/// 32x32x16: int8 and fp8 on gfx942; 16x16x16: 16-bit operands, or int8 on
/// gfx90a; 16x16x32: int8 and fp8 on gfx942): each wave computes whole
/// atomM x atomM blocks; none (with `why`) when the shape does not split
/// that way.
/// `warpsAlongM` as for getMmaSyncLayouts; it also transposes the
/// accumulator blocks, whose rows then reduce within a lane group and which
/// then have the layout of a next MMA's A operand. `transposeC` transposes
/// them alone: each thread then holds the rows of the accumulator that it
/// holds of A.
std::optional<MfmaLayouts> getMfmaLayouts(int64_t m, int64_t n, int64_t k,
                                          int64_t numWarps, std::string *why,
                                          bool warpsAlongM = false,
                                          int64_t atomM = 32, int64_t atomK = 8,
                                          bool transposeC = false);

/// The layouts of an sm_90a wgmma m64nNk16 (16-bit operands) or m64nNk32
/// (8-bit) tile MMA whose A ([M, K], K-major) and B ([K, N], N-major, or
/// K-major) are read from shared memory through matrix descriptors: only
/// the accumulator lives in registers.
struct WgmmaLayouts {
  /// Warpgroups (4 warps each); warpgroup g computes rows 64 g + 64 G r of
  /// the accumulator for each repetition r (G warpgroups), all N columns.
  int64_t warpgroups = 1;
  int64_t repetitions = 1;
  LinearLayout c;
  /// A held in registers (wgmma's register operand, K <= 256): warp w of
  /// a warpgroup holds rows 16 w..16 w + 15 of each 64-row block as
  /// m16n8k16 A fragments repeated over K / 16 (16-bit: the accumulator's
  /// layout over [M, K]), or as m16n8k32 A fragments repeated over K / 32
  /// (8-bit).
  LinearLayout a;
};

/// The layouts for an M x N x K MMA of `elementBits`-bit operands (16 or
/// 8) run by `numWarps` warps as wgmma.m64nNk16 or m64nNk32 over swizzled
/// shared tiles; none (with `why`) when the shape does not split that way:
/// M a multiple of 64 per warpgroup, 64 <= N <= 256 and K a multiple of 64
/// (rows of 64 bytes or whole 128-byte swizzle rows).
std::optional<WgmmaLayouts> getWgmmaLayouts(int64_t m, int64_t n, int64_t k,
                                            int64_t numWarps, std::string *why,
                                            unsigned elementBits = 16);

/// How a register tile is read from shared memory with ldmatrix.
struct LdmatrixPlan {
  unsigned numMatrices = 4;
  bool transpose = false;
  /// Maps (register, lane, warp) to the tile coordinate of the 16-byte
  /// matrix row that `lane` addresses in the load whose first register is
  /// `register`; evaluated at run time for the addresses.
  LinearLayout rowAddress;
  /// Registers (16-bit elements) one load fills.
  int64_t registersPerLoad() const { return 2 * numMatrices; }
};

/// The ldmatrix loads that produce `layout` (16-bit elements), if its
/// register and lane bases are those of ldmatrix.x{1,2,4}[.trans]
/// fragments. The plan is checked by simulating the instruction as the PTX
/// ISA defines it over the row addresses: what each lane receives must be
/// exactly what `layout` says it holds; otherwise none, with `why`.
std::optional<LdmatrixPlan> planLdmatrix(const LinearLayout &layout,
                                         std::string *why);

/// The byte offset of element (row, col) of a row-major 2-D shared tile of
/// `cols` elements of `elementBytes` bytes, after `swizzle`.
int64_t sharedByteOffset(int64_t row, int64_t col, int64_t cols,
                         int64_t elementBytes, const Swizzle &swizzle);

/// Elements of one vector access in a layout conversion's round trip
/// through shared memory under `layout`: its registers' run along a row
/// (2-D tiles of elements of at least 8 bits), else 1.
int64_t conversionRun(const LinearLayout &layout, unsigned elementBits);
/// The bits each element takes in the round trip's scratch buffer from
/// `from`: its own, or a 32-bit slot when `from`'s runs are narrower than a
/// word (two threads would store into one word).
unsigned conversionSlotBits(const LinearLayout &from, unsigned elementBits);

/// The longest run (a power of two, at most 16 bytes) of registers of
/// `layout` (2-D) whose elements lie consecutively along a row within one
/// chunk of `swizzle`: they can be read with one vector load. 1 when the low
/// register bases do not step the column by 1, 2, 4, ... or another basis
/// moves it by less than the run.
int64_t contiguousRowRun(const LinearLayout &layout, const Swizzle &swizzle,
                         unsigned elementBits);

/// The worst bank-conflict degree of reading `layout` with `plan` from a
/// shared tile (8 lanes of a warp form one 128-byte wavefront).
unsigned ldmatrixConflictDegree(const LinearLayout &layout,
                                const LdmatrixPlan &plan, int64_t elementBytes,
                                const Swizzle &swizzle);

/// The worst bank-conflict degree of reading `layout` from a shared tile one
/// element per register (a warp's 32 lanes form one wavefront), the element
/// at (row, col) of rows of `layout.getShape()[1]` elements. For int4 nibble
/// pairs, a [rows, bytes, 2] layout with `elementBytes` 1: each lane reads
/// its code's byte.
unsigned elementConflictDegree(const LinearLayout &layout, int64_t elementBytes,
                               const Swizzle &swizzle);

/// The worst bank-conflict degree of writing a shared tile with `copy`
/// (atoms::coalescedCopy), 16 bytes per lane and 8 lanes per wavefront.
unsigned copyConflictDegree(const LinearLayout &copy, int64_t elementBytes,
                            const Swizzle &swizzle);

} // namespace tessera

#endif // TESSERA_LAYOUT_MMALAYOUTS_H
