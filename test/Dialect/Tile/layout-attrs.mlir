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
