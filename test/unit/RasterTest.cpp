//===- RasterTest.cpp - The tile order of persistent kernels --------------===//
//
// rasterTile (what tile.tile_coords computes) must be a bijection from
// 0 .. gx gy gz - 1 onto the grid, for any grid and group: a persistent
// kernel's instances then write every output tile exactly once. tag-check
// assumes only the coordinates' range; these tests check the rest.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tile/Raster.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <tuple>

using namespace tessera;

namespace {
using Coords = std::array<long long, 3>;

Coords coordsOf(long long t, long long gx, long long gy, long long group) {
  IntegerRasterOps ops;
  return rasterTile(ops, t, gx, gy, group);
}

/// Every tile of the grid exactly once, inside the grid.
void expectBijection(long long gx, long long gy, long long gz,
                     long long group) {
  std::set<Coords> seen;
  for (long long t = 0; t < gx * gy * gz; ++t) {
    Coords c = coordsOf(t, gx, gy, group);
    ASSERT_GE(c[0], 0);
    ASSERT_LT(c[0], gx) << "t=" << t;
    ASSERT_GE(c[1], 0);
    ASSERT_LT(c[1], gy) << "t=" << t;
    ASSERT_GE(c[2], 0);
    ASSERT_LT(c[2], gz) << "t=" << t;
    ASSERT_TRUE(seen.insert(c).second)
        << "tile (" << c[0] << ", " << c[1] << ", " << c[2]
        << ") twice, at t=" << t << " of " << gx << "x" << gy << "x" << gz
        << " group " << group;
  }
  EXPECT_EQ(static_cast<long long>(seen.size()), gx * gy * gz);
}
} // namespace

TEST(Raster, EveryTileOnceOnSmallGrids) {
  for (long long gx = 1; gx <= 11; ++gx)
    for (long long gy = 1; gy <= 11; ++gy)
      for (long long gz = 1; gz <= 3; ++gz)
        for (long long group = 1; group <= 13; ++group)
          expectBijection(gx, gy, gz, group);
}

TEST(Raster, EveryTileOnceOnLargeGrids) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<long long> size(1, 300), group(1, 64),
      depth(1, 4);
  for (int i = 0; i < 40; ++i)
    expectBijection(size(rng), size(rng), depth(rng), group(rng));
}

TEST(Raster, GroupsWalkFewRows) {
  // Within one group x stays in [first, first + group) and advances
  // fastest, so tiles t and t + 1 share a column (y) unless a column of
  // the group ends between them.
  long long gx = 37, gy = 23, group = 8;
  for (long long t = 0; t + 1 < gx * gy; ++t) {
    Coords a = coordsOf(t, gx, gy, group), b = coordsOf(t + 1, gx, gy, group);
    if (a[0] / group != b[0] / group)
      continue; // the next group
    if (b[0] == a[0] + 1) {
      EXPECT_EQ(b[1], a[1]) << "t=" << t;
    } else {
      EXPECT_EQ(b[0], a[0] / group * group) << "t=" << t;
      EXPECT_EQ(b[1], a[1] + 1) << "t=" << t;
    }
  }
  // The first group * gy tiles cover rows 0 .. group - 1 only.
  for (long long t = 0; t < group * gy; ++t)
    EXPECT_LT(coordsOf(t, gx, gy, group)[0], group);
  // One group (group >= gx): x fastest over the whole grid, then y.
  for (long long t = 0; t < 5 * 7; ++t)
    EXPECT_EQ(coordsOf(t, 5, 7, 8), (Coords{t % 5, t / 5, 0}));
  // group = 1: y fastest along each row.
  for (long long t = 0; t < 5 * 7; ++t)
    EXPECT_EQ(coordsOf(t, 5, 7, 1), (Coords{t / 7, t % 7, 0}));
}

TEST(Raster, DepthIsSlowest) {
  for (long long t = 0; t < 4 * 3 * 5; ++t)
    EXPECT_EQ(coordsOf(t, 4, 3, 2)[2], t / 12);
}
