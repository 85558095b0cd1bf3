//===- LinearLayout.cpp - Distributed layouts as F2 linear maps -----------===//

#include "tessera/Layout/LinearLayout.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <cassert>
#include <map>

using namespace tessera;

bool tessera::isPowerOfTwoShape(llvm::ArrayRef<int64_t> shape) {
  return llvm::all_of(shape, [](int64_t size) {
    return size > 0 && llvm::isPowerOf2_64(size);
  });
}

uint64_t LinearLayout::flatten(llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<int64_t> coord) {
  assert(shape.size() == coord.size() && "coordinate of another rank");
  uint64_t flat = 0;
  for (auto [size, c] : llvm::zip_equal(shape, coord))
    flat = flat * uint64_t(size) + uint64_t(c);
  return flat;
}

Coord LinearLayout::unflatten(llvm::ArrayRef<int64_t> shape, uint64_t flat) {
  Coord coord(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    coord[d] = int64_t(flat % uint64_t(shape[d]));
    flat /= uint64_t(shape[d]);
  }
  return coord;
}

LinearLayout::LinearLayout(llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<Coord> registerBases,
                           llvm::ArrayRef<Coord> laneBases,
                           llvm::ArrayRef<Coord> warpBases)
    : shape(shape) {
  assert(isPowerOfTwoShape(shape) && "layouts need power-of-two tiles");
  std::array<llvm::ArrayRef<Coord>, kNumInDims> in = {registerBases, laneBases,
                                                      warpBases};
  for (unsigned dim = 0; dim < kNumInDims; ++dim)
    for (const Coord &basis : in[dim]) {
      assert(basis.size() == shape.size() && "basis of another rank");
      for (auto [size, c] : llvm::zip_equal(shape, basis)) {
        (void)size;
        (void)c;
        assert(c >= 0 && c < size && "basis outside the tile");
      }
      bases[dim].push_back(flatten(shape, basis));
    }
}

llvm::SmallVector<Coord> LinearLayout::getBases(InDim dim) const {
  llvm::SmallVector<Coord> result;
  for (uint64_t flat : bases[dim])
    result.push_back(unflatten(shape, flat));
  return result;
}

int64_t LinearLayout::getNumElements() const {
  int64_t n = 1;
  for (int64_t size : shape)
    n *= size;
  return n;
}

uint64_t LinearLayout::applyFlat(uint64_t reg, uint64_t lane,
                                 uint64_t warp) const {
  std::array<uint64_t, kNumInDims> in = {reg, lane, warp};
  uint64_t flat = 0;
  for (unsigned dim = 0; dim < kNumInDims; ++dim)
    for (auto [bit, basis] : llvm::enumerate(bases[dim]))
      if ((in[dim] >> bit) & 1)
        flat ^= basis;
  return flat;
}

Coord LinearLayout::apply(uint64_t reg, uint64_t lane, uint64_t warp) const {
  return unflatten(shape, applyFlat(reg, lane, warp));
}

/// Reduces `vector` by the rows of an echelon basis (pivot = highest bit).
static uint64_t reduce(const std::map<unsigned, uint64_t> &echelon,
                       uint64_t vector) {
  for (auto it = echelon.rbegin(); it != echelon.rend(); ++it)
    if ((vector >> it->first) & 1)
      vector ^= it->second;
  return vector;
}

bool LinearLayout::coversExactly(std::string *why) const {
  auto fail = [&](const llvm::Twine &message) {
    if (why)
      *why = message.str();
    return false;
  };
  unsigned elementBits = llvm::Log2_64(uint64_t(getNumElements()));
  std::map<unsigned, uint64_t> echelon;
  static const char *names[] = {"register", "lane", "warp"};
  for (unsigned dim = 0; dim < kNumInDims; ++dim)
    for (auto [bit, basis] : llvm::enumerate(bases[dim])) {
      if (basis == 0)
        continue; // a declared broadcast
      uint64_t rest = reduce(echelon, basis);
      if (rest == 0) {
        Coord c = unflatten(shape, basis);
        return fail(
            llvm::Twine(names[dim]) + " bit " + llvm::Twine(bit) + " (basis [" +
            llvm::join(
                llvm::map_range(c, [](int64_t v) { return std::to_string(v); }),
                ", ") +
            "]) repeats elements other bits already reach");
      }
      echelon[llvm::Log2_64(rest)] = rest;
    }
  if (echelon.size() != elementBits)
    return fail(llvm::Twine("the bases reach ") +
                llvm::Twine(uint64_t(1) << echelon.size()) + " of the " +
                llvm::Twine(getNumElements()) + " elements");
  return true;
}

std::optional<uint64_t>
LinearLayout::findRegister(llvm::ArrayRef<int64_t> coord) const {
  // Gaussian elimination over the register bases, tracking which register
  // bits make up each echelon row.
  std::map<unsigned, std::pair<uint64_t, uint64_t>> echelon; // pivot -> (v, r)
  for (auto [bit, basis] : llvm::enumerate(bases[Register])) {
    uint64_t v = basis, r = uint64_t(1) << bit;
    for (auto it = echelon.rbegin(); it != echelon.rend(); ++it)
      if ((v >> it->first) & 1) {
        v ^= it->second.first;
        r ^= it->second.second;
      }
    if (v)
      echelon[llvm::Log2_64(v)] = {v, r};
  }
  uint64_t target = flatten(shape, coord), reg = 0;
  for (auto it = echelon.rbegin(); it != echelon.rend(); ++it)
    if ((target >> it->first) & 1) {
      target ^= it->second.first;
      reg ^= it->second.second;
    }
  if (target != 0)
    return std::nullopt;
  return reg;
}

LinearLayout LinearLayout::withBases(InDim dim,
                                     llvm::ArrayRef<Coord> extra) const {
  LinearLayout result = *this;
  for (const Coord &basis : extra)
    result.bases[dim].push_back(flatten(shape, basis));
  return result;
}

LinearLayout LinearLayout::withShape(llvm::ArrayRef<int64_t> newShape) const {
  std::array<llvm::SmallVector<Coord>, kNumInDims> coords;
  for (unsigned dim = 0; dim < kNumInDims; ++dim)
    coords[dim] = getBases(InDim(dim));
  return LinearLayout(newShape, coords[0], coords[1], coords[2]);
}

LinearLayout LinearLayout::transposed() const {
  assert(getRank() == 2 && "transposes 2-D layouts");
  std::array<llvm::SmallVector<Coord>, kNumInDims> coords;
  for (unsigned dim = 0; dim < kNumInDims; ++dim)
    for (Coord c : getBases(InDim(dim)))
      coords[dim].push_back({c[1], c[0]});
  return LinearLayout({shape[1], shape[0]}, coords[0], coords[1], coords[2]);
}

LinearLayout LinearLayout::sliced(llvm::ArrayRef<unsigned> dropped) const {
  llvm::SmallVector<int64_t> keptShape;
  for (unsigned d = 0; d < getRank(); ++d)
    if (!llvm::is_contained(dropped, d))
      keptShape.push_back(shape[d]);
  std::array<llvm::SmallVector<Coord>, kNumInDims> coords;
  for (unsigned dim = 0; dim < kNumInDims; ++dim)
    for (const Coord &c : getBases(InDim(dim))) {
      Coord kept;
      for (unsigned d = 0; d < getRank(); ++d)
        if (!llvm::is_contained(dropped, d))
          kept.push_back(c[d]);
      bool zero = llvm::all_of(kept, [](int64_t v) { return v == 0; });
      if (dim == Register && zero)
        continue;
      coords[dim].push_back(kept);
    }
  return LinearLayout(keptShape, coords[0], coords[1], coords[2]);
}

LinearLayout LinearLayout::withUnitDim(unsigned dim) const {
  assert(dim <= getRank() && "inserts a dimension at most after the last");
  llvm::SmallVector<int64_t> newShape(shape.begin(), shape.end());
  newShape.insert(newShape.begin() + dim, 1);
  std::array<llvm::SmallVector<Coord>, kNumInDims> coords;
  for (unsigned in = 0; in < kNumInDims; ++in)
    for (Coord c : getBases(InDim(in))) {
      c.insert(c.begin() + dim, 0);
      coords[in].push_back(c);
    }
  return LinearLayout(newShape, coords[0], coords[1], coords[2]);
}

LinearLayout LinearLayout::splitDim(unsigned dim, int64_t factor) const {
  assert(dim < getRank() && factor > 0 && (factor & (factor - 1)) == 0 &&
         shape[dim] % factor == 0 && "splits a dimension by a power of two");
  llvm::SmallVector<int64_t> newShape(shape.begin(), shape.end());
  newShape[dim] /= factor;
  newShape.push_back(factor);
  std::array<llvm::SmallVector<Coord>, kNumInDims> coords;
  for (unsigned in = 0; in < kNumInDims; ++in)
    for (Coord c : getBases(InDim(in))) {
      // Bitwise, so XORs of bases split the same way.
      c.push_back(c[dim] % factor);
      c[dim] /= factor;
      coords[in].push_back(c);
    }
  return LinearLayout(newShape, coords[0], coords[1], coords[2]);
}

LinearLayout LinearLayout::grouped(llvm::ArrayRef<int64_t> group,
                                   llvm::ArrayRef<int64_t> newShape) const {
  assert(group.size() == getRank() && newShape.size() == getRank() &&
         "one group per dimension");
  std::array<llvm::SmallVector<Coord>, kNumInDims> coords;
  for (unsigned in = 0; in < kNumInDims; ++in)
    for (Coord c : getBases(InDim(in))) {
      for (unsigned d = 0; d < getRank(); ++d) {
        assert(group[d] > 0 && (group[d] & (group[d] - 1)) == 0 &&
               "groups are powers of two");
        c[d] /= group[d];
      }
      coords[in].push_back(c);
    }
  return LinearLayout(newShape, coords[0], coords[1], coords[2]);
}

void LinearLayout::print(llvm::raw_ostream &os) const {
  static const char *names[] = {"register", "lane", "warp"};
  os << "["
     << llvm::join(
            llvm::map_range(shape, [](int64_t v) { return std::to_string(v); }),
            "x")
     << "]";
  for (unsigned dim = 0; dim < kNumInDims; ++dim) {
    os << " " << names[dim] << " = [";
    llvm::interleaveComma(getBases(InDim(dim)), os, [&](const Coord &c) {
      os << "[";
      llvm::interleaveComma(c, os);
      os << "]";
    });
    os << "]";
  }
}

std::string LinearLayout::str() const {
  std::string s;
  llvm::raw_string_ostream os(s);
  print(os);
  return s;
}

std::optional<llvm::SmallVector<int64_t>>
tessera::registerPermutation(const LinearLayout &from, const LinearLayout &to) {
  // Thread t holds R(r) ^ T(t) in both: one permutation serves every thread
  // exactly when T agrees.
  if (from.getShape() != to.getShape() ||
      from.getBases(LinearLayout::Lane) != to.getBases(LinearLayout::Lane) ||
      from.getBases(LinearLayout::Warp) != to.getBases(LinearLayout::Warp))
    return std::nullopt;
  llvm::SmallVector<int64_t> permutation;
  for (int64_t reg = 0; reg < to.getSize(LinearLayout::Register); ++reg) {
    std::optional<uint64_t> source = from.findRegister(to.apply(reg, 0, 0));
    if (!source)
      return std::nullopt;
    permutation.push_back(int64_t(*source));
  }
  return permutation;
}

//===----------------------------------------------------------------------===//
// Shared memory
//===----------------------------------------------------------------------===//

Swizzle tessera::chooseSwizzle(int64_t cols, unsigned elementBits) {
  int64_t rowBytes = cols * elementBits / 8;
  Swizzle swizzle;
  swizzle.vec = 128 / elementBits; // one 16-byte chunk
  int64_t chunksPerRow = rowBytes / 16;
  if (chunksPerRow <= 1 || !llvm::isPowerOf2_64(uint64_t(rowBytes)))
    return Swizzle{swizzle.vec, 1, 1};
  swizzle.perPhase = std::max<int64_t>(1, 128 / rowBytes);
  swizzle.maxPhase = std::min<int64_t>(8, chunksPerRow);
  return swizzle;
}

unsigned tessera::bankConflictDegree(llvm::ArrayRef<int64_t> byteAddresses,
                                     unsigned bytesPerAccess) {
  std::map<int64_t, llvm::SmallVector<int64_t>> wordsPerBank;
  for (int64_t address : byteAddresses)
    for (unsigned b = 0; b < std::max(1u, bytesPerAccess / 4); ++b) {
      int64_t word = address / 4 + b;
      auto &words = wordsPerBank[word % 32];
      if (!llvm::is_contained(words, word))
        words.push_back(word);
    }
  unsigned degree = 0;
  for (auto &entry : wordsPerBank)
    degree = std::max<unsigned>(degree, entry.second.size());
  return degree;
}
