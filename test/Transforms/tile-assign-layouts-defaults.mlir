// RUN: tessera-opt %s --tile-set-target=chip=gfx942 --tile-assign-layouts \
// RUN:   | FileCheck %s
// RUN: tessera-opt %s --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=NV
// A tile nothing constrains (here positions no op reads) gets the layout of
// a coalesced copy of its elements; index elements count as 64 bits, as
// they are in the per-thread code: two per 16-byte chunk.
// CHECK-LABEL: tile.kernel @unused_positions
// CHECK: tile.broadcast {{.*}} -> tensor<64x64xindex, #tile.linear<register = {{\[}}[0, 1], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[0, 2], [0, 4], [0, 8], [0, 16], [0, 32], [1, 0]], warp = {{\[}}[2, 0], [4, 0]]>>
// NV-LABEL: tile.kernel @unused_positions
// NV: tile.broadcast {{.*}} -> tensor<64x64xindex, #tile.linear<register = {{\[}}[0, 1], [8, 0], [16, 0], [32, 0]], lane = {{\[}}[0, 2], [0, 4], [0, 8], [0, 16], [0, 32]], warp = {{\[}}[1, 0], [2, 0], [4, 0]]>>
tile.kernel @unused_positions(%X: !tile.view<?x?xf32>) threads(256) {
  %rows = tile.iota : tensor<64xindex>
  %grid = tile.broadcast %rows dims [1] : tensor<64xindex> -> tensor<64x64xindex>
  tile.return
}
