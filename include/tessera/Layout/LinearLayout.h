//===- LinearLayout.h - Distributed layouts as F2 linear maps --*- C++ -*-===//
//
// A layout says which element of a tile each (register, lane, warp) of a
// program instance holds. Every tile dimension is a power of two, so a tile
// coordinate is a bit vector (the last dimension in the low bits), and a
// layout is a linear map over F2 from the bits of the register index, the
// lane and the warp to the bits of the coordinate: the element held at
// (r, l, w) is the XOR of the bases of the set bits of r, l and w. A zero
// basis means the bit does not move the element (a broadcast: several
// threads or registers hold the same element).
//
// Shared-memory layouts (XOR swizzles) are F2 maps too; see Swizzle.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LAYOUT_LINEARLAYOUT_H
#define TESSERA_LAYOUT_LINEARLAYOUT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace tessera {

/// A tile coordinate, one entry per dimension.
using Coord = llvm::SmallVector<int64_t, 4>;

class LinearLayout {
public:
  /// The inputs of a layout, in the order their bits are listed.
  enum InDim : unsigned { Register = 0, Lane = 1, Warp = 2 };
  static constexpr unsigned kNumInDims = 3;

  LinearLayout() = default;
  /// A layout of a tile of `shape` (powers of two) with the given bases,
  /// each a coordinate of that tile.
  LinearLayout(llvm::ArrayRef<int64_t> shape,
               llvm::ArrayRef<Coord> registerBases,
               llvm::ArrayRef<Coord> laneBases,
               llvm::ArrayRef<Coord> warpBases);

  llvm::ArrayRef<int64_t> getShape() const { return shape; }
  unsigned getRank() const { return shape.size(); }
  /// The bases of one input, as coordinates.
  llvm::SmallVector<Coord> getBases(InDim dim) const;
  unsigned getNumBits(InDim dim) const { return bases[dim].size(); }
  int64_t getSize(InDim dim) const { return int64_t(1) << getNumBits(dim); }
  /// The number of elements of the tile.
  int64_t getNumElements() const;

  /// The element held by register `reg` of lane `lane` in warp `warp`.
  Coord apply(uint64_t reg, uint64_t lane, uint64_t warp) const;
  /// The same, as a flat row-major element index.
  uint64_t applyFlat(uint64_t reg, uint64_t lane, uint64_t warp) const;

  /// Whether the layout covers its tile exactly: every element is held by
  /// some (register, lane, warp), and two holders of one element differ only
  /// in bits whose basis is zero (declared broadcasts). Otherwise `why`
  /// says what is wrong.
  bool coversExactly(std::string *why = nullptr) const;

  /// The register whose element is `coord` for lane 0 of warp 0, using only
  /// register bits; none if no register holds it.
  std::optional<uint64_t> findRegister(llvm::ArrayRef<int64_t> coord) const;

  /// This layout with `extra` appended to the bases of `dim`.
  LinearLayout withBases(InDim dim, llvm::ArrayRef<Coord> extra) const;
  /// This layout over a tile of `shape` (every basis must fit in it).
  LinearLayout withShape(llvm::ArrayRef<int64_t> newShape) const;
  /// The layout of the transposed 2-D tile: the same holders, coordinates
  /// swapped.
  LinearLayout transposed() const;
  /// The layout of the tile without dimensions `dropped` (a reduction's
  /// result, a broadcast's input): every basis loses those coordinates;
  /// register bits left with nothing to move are removed, lane and warp
  /// bits stay as broadcasts.
  LinearLayout sliced(llvm::ArrayRef<unsigned> dropped) const;
  /// The layout of the same elements with a dimension of size 1 inserted
  /// at `dim` (every basis 0 there): the input of a reduction over a unit
  /// dimension, whose result has this layout.
  LinearLayout withUnitDim(unsigned dim) const;
  /// The layout of the same elements seen with dimension `dim` split in
  /// two, its low `factor` part (a power of two) moved to a new last
  /// dimension: element (.., c, ..) is held where (.., c / factor, .., c %
  /// factor) is. The inverse of `tile.unpack dim` with `factor` codes per
  /// unit (in its natural order).
  LinearLayout splitDim(unsigned dim, int64_t factor) const;
  /// The layout of the tile of `newShape` whose element c[d] / group[d]
  /// (groups are powers of two) is held wherever this layout holds c: the
  /// scales of a dequantization. Every basis keeps its place, register
  /// bits included, so that register r pairs with register r of this
  /// layout; bases left with nothing to move become broadcasts.
  LinearLayout grouped(llvm::ArrayRef<int64_t> group,
                       llvm::ArrayRef<int64_t> newShape) const;

  bool operator==(const LinearLayout &other) const {
    return shape == other.shape && bases == other.bases;
  }
  bool operator!=(const LinearLayout &other) const { return !(*this == other); }

  void print(llvm::raw_ostream &os) const;
  std::string str() const;

  /// A flat element index of a coordinate of `shape`, and back.
  static uint64_t flatten(llvm::ArrayRef<int64_t> shape,
                          llvm::ArrayRef<int64_t> coord);
  static Coord unflatten(llvm::ArrayRef<int64_t> shape, uint64_t flat);

private:
  llvm::SmallVector<int64_t, 4> shape;
  /// The bases of each input as flat element indices.
  std::array<llvm::SmallVector<uint64_t, 8>, kNumInDims> bases;
};

/// For each register of `to`, the register of `from` that holds the same
/// element in every thread: a conversion that only renames registers. None
/// when the two place their lane and warp bits differently (or `to` holds
/// an element `from`'s registers do not).
std::optional<llvm::SmallVector<int64_t>>
registerPermutation(const LinearLayout &from, const LinearLayout &to);

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const LinearLayout &layout) {
  layout.print(os);
  return os;
}

/// Whether every entry of `shape` is a positive power of two.
bool isPowerOfTwoShape(llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Atoms: the fragment layouts of single instructions, as documented in the
// PTX ISA ("Matrix Fragments for mma.m16n8k16", "... mma.m16n8k32",
// "ldmatrix", "wgmma register fragments") and AMD's MFMA register layouts
// (the matrix instruction calculator). Register bases count elements
// (a 32-bit register of two bf16 is two consecutive registers here).
//===----------------------------------------------------------------------===//

namespace atoms {
/// mma.sync.m16n8k16 with 16-bit A/B (f16, bf16): A is 16x16 (m x k), B is
/// 16x8 (k x n), C/D is 16x8 (m x n) of 32-bit elements.
LinearLayout mmaM16N8K16A();
LinearLayout mmaM16N8K16B();
LinearLayout mmaM16N8C();
/// mma.sync.m16n8k32 with 8-bit A/B (s8, u8): A is 16x32, B is 32x8.
LinearLayout mmaM16N8K32A();
LinearLayout mmaM16N8K32B();
/// ldmatrix.m8n8.x{1,2,4}.b16 as a thread receives it: matrix j of x2 sits
/// below matrix 0 (rows 8..15); x4 orders its matrices (0,0), (8,0), (0,8),
/// (8,8), the order of an m16n8k16 A fragment. `.trans` delivers the
/// transposed 8x8 matrices.
LinearLayout ldmatrix(unsigned numMatrices, bool transpose);
/// wgmma.m64nNk16 accumulator of one warpgroup (4 warps): 64 x n, f32.
LinearLayout wgmmaAccumulator(int64_t n);
/// wgmma.m64nNk32's A in registers (8-bit: e4m3, s8) of one warpgroup:
/// 64 x 32, warp w holding rows 16w..16w+15 as an m16n8k32 A fragment.
LinearLayout wgmmaA8();
/// A copy of a `rows` x `cols` tile of `elementBits`-bit elements by
/// `numWarps` warps of `warpSize` lanes, each thread moving 16 consecutive
/// bytes of a row per step, consecutive lanes along the row (coalesced).
LinearLayout coalescedCopy(int64_t rows, int64_t cols, unsigned elementBits,
                           unsigned numWarps, unsigned warpSize = 32);
/// AMD CDNA M x M MFMAs (wave64, M = 32 or 16), as AMD's matrix
/// instruction calculator documents them: A is M x K (m x k), B is K x M
/// (k x n), C/D is M x M of 32-bit accumulators, M * M / 64 registers per
/// lane. Each lane holds P = M K / 64 consecutive k of one row of A (one
/// column of B): lane l holds row l % M, k = P (l / M) .. + P - 1 (P = 4
/// for v_mfma_f32_32x32x8_{bf16,f16}, gfx90a's v_mfma_i32_32x32x8i8,
/// v_mfma_f32_16x16x16_{bf16,f16} and gfx90a's v_mfma_i32_16x16x16i8; 8
/// for gfx942's v_mfma_i32_32x32x16_i8, v_mfma_i32_16x16x32_i8 and their
/// fp8 MFMAs). Register g of lane l holds D[i][l % M] for
/// i = 4 (64 / M) (g / 4) + 4 ((l / M) % (64 / M)) + g % 4.
LinearLayout mfmaA(int64_t m, int64_t k);
LinearLayout mfmaB(int64_t m, int64_t k);
LinearLayout mfmaC(int64_t m);
} // namespace atoms

//===----------------------------------------------------------------------===//
// Shared memory: an XOR swizzle of 16-byte chunks within rows.
//===----------------------------------------------------------------------===//

/// Element (row, col) of a 2-D shared tile with `rowBytes` bytes per row is
/// stored at column chunk `col / vec ^ ((row / perPhase) % maxPhase)`
/// (chunks of `vec` elements), the same element within its chunk. With
/// maxPhase = 1 there is no swizzle.
struct Swizzle {
  int64_t vec = 1;
  int64_t perPhase = 1;
  int64_t maxPhase = 1;

  /// The stored column of element (row, col).
  int64_t apply(int64_t row, int64_t col) const {
    int64_t phase = (row / perPhase) % maxPhase;
    return ((col / vec) ^ phase) * vec + col % vec;
  }
  bool isIdentity() const { return maxPhase == 1; }
  bool operator==(const Swizzle &o) const {
    return vec == o.vec && perPhase == o.perPhase && maxPhase == o.maxPhase;
  }
};

/// The swizzle that spreads 16-byte chunks of a row-major tile of `cols`
/// `elementBits`-bit elements over the 32 banks: reads of one chunk from 8
/// consecutive rows (ldmatrix, coalesced copies) then hit distinct banks.
Swizzle chooseSwizzle(int64_t cols, unsigned elementBits);

/// The bank-conflict degree of one shared access wavefront: the most
/// distinct 4-byte words that fall in one of the 32 banks, where each
/// access reads `bytesPerAccess` bytes at the given byte addresses.
unsigned bankConflictDegree(llvm::ArrayRef<int64_t> byteAddresses,
                            unsigned bytesPerAccess);

} // namespace tessera

#endif // TESSERA_LAYOUT_LINEARLAYOUT_H
