//===- Raster.h - The order persistent kernels walk their tiles -*- C++ -*-===//
//
// A persistent kernel's program instances loop over the tiles of the grid
// the caller launched, instance w taking tiles w, w + P, w + 2P, ... of a
// linear order. That order is defined here once, over any integer-like
// arithmetic: tile.tile_coords expands it with IR builders, the unit
// tests with int64_t (every tile exactly once, for any grid and group).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TILE_RASTER_H
#define TESSERA_DIALECT_TILE_RASTER_H

#include <array>

namespace tessera {

/// The grid coordinates (x, y, z) of tile `t` of a grid of `gx` x `gy` x
/// `gz` tiles walked in grouped order: z slowest; within one z, groups of
/// `group` consecutive x coordinates (the last group takes what is left),
/// and within a group x fastest, then y. Tiles t and t + 1 thus share a y
/// (a column of output tiles) where they can, and the tiles of one group
/// share the x rows: the instances running at once touch `group` rows and
/// about P / group columns. `Ops` provides div, rem, mul, add, sub and min
/// on `Int` (operands non-negative).
template <typename Int, typename Ops>
std::array<Int, 3> rasterTile(Ops &ops, Int t, Int gx, Int gy, Int group) {
  Int perZ = ops.mul(gx, gy);
  Int z = ops.div(t, perZ);
  Int r = ops.rem(t, perZ);
  Int groupTiles = ops.mul(group, gy);
  Int first = ops.mul(ops.div(r, groupTiles), group);
  Int rows = ops.min(ops.sub(gx, first), group);
  Int local = ops.rem(r, groupTiles);
  return {ops.add(first, ops.rem(local, rows)), ops.div(local, rows), z};
}

/// Plain integers, for the host side and the tests.
struct IntegerRasterOps {
  static long long div(long long a, long long b) { return a / b; }
  static long long rem(long long a, long long b) { return a % b; }
  static long long mul(long long a, long long b) { return a * b; }
  static long long add(long long a, long long b) { return a + b; }
  static long long sub(long long a, long long b) { return a - b; }
  static long long min(long long a, long long b) { return a < b ? a : b; }
};

} // namespace tessera

#endif // TESSERA_DIALECT_TILE_RASTER_H
