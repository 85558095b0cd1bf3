// #tile.linear and #tile.swizzle round-trip; the layout verifier proves
// exact coverage.
// RUN: tessera-opt %s --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file --verify-diagnostics \
// RUN:   --mlir-print-op-generic > /dev/null

// CHECK: tensor<16x8xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>
// CHECK: tile.alloc_shared {tile.swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>}
module attributes {tile.target = "sm_80"} {
  tile.kernel @k() threads(32) {
    %c = arith.constant dense<0.0> : tensor<16x8xf32, #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>>
    %s = tile.alloc_shared {tile.swizzle = #tile.swizzle<vec = 8, per_phase = 2, max_phase = 4>} : !tile.shared<64x32xbf16>
    tile.return
  }
}

// -----

// A rank-0 tile (a reduction's scalar): every basis empty, so every lane
// and warp the bases name holds the value; their number is kept.
// CHECK: tensor<f32, #tile.linear<register = [], lane = {{\[}}[], [], [], [], []], warp = {{\[}}[], []]>>
module attributes {tile.target = "sm_80"} {
  tile.kernel @scalar() threads(128) {
    %c = arith.constant dense<0.0> : tensor<f32, #tile.linear<register = [], lane = [[], [], [], [], []], warp = [[], []]>>
    tile.return
  }
}
