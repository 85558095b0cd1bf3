// RUN: tessera-opt %s --split-input-file --verify-diagnostics

// expected-error @below {{layout does not cover its tile exactly: the bases reach 8 of the 16 elements}}
func.func private @f(tensor<4x4xf32, #tile.linear<register = [[0, 1]], lane = [[0, 2], [1, 0]], warp = []>>)

// -----

// expected-error @below {{layout does not cover its tile exactly: lane bit 0 (basis [1, 1]) repeats elements other bits already reach}}
func.func private @f(tensor<2x2xf32, #tile.linear<register = [[0, 1], [1, 0]], lane = [[1, 1]], warp = []>>)

// -----

// expected-error @below {{a #tile.linear layout needs a tile whose sizes are powers of two}}
func.func private @f(tensor<3x4xf32, #tile.linear<register = [[0, 1]], lane = [], warp = []>>)

// -----

// expected-error @below {{layout of rank 1 on a tile of rank 2}}
func.func private @f(tensor<2x2xf32, #tile.linear<register = [[1]], lane = [], warp = []>>)

// -----

// expected-error @below {{layout basis entry 4 lies outside the tile}}
func.func private @f(tensor<2x2xf32, #tile.linear<register = [[0, 4]], lane = [], warp = []>>)

// -----

// expected-error @below {{every basis of a layout has the same rank}}
func.func private @f(tensor<2x2xf32, #tile.linear<register = [[0, 1], [1]], lane = [], warp = []>>)

// -----

// expected-error @below {{swizzle parameters must be positive powers of two, got vec = 8, per_phase = 3, max_phase = 8}}
func.func private @f() attributes {a = #tile.swizzle<vec = 8, per_phase = 3, max_phase = 8>}

// -----

// expected-error @below {{'tile.target' must be a chip (host, sm_80, sm_90a, gfx90a, gfx942), got "sm_75"}}
module attributes {tile.target = "sm_75"} {
}

// -----

module {
  // expected-error @below {{'tile.swizzle' applies to tile.alloc_shared, not to 'func.func'}}
  func.func private @f() attributes {tile.swizzle = #tile.swizzle<vec = 8, per_phase = 1, max_phase = 8>}
}

// -----

// expected-error @below {{'tile.target' applies to modules, not to 'func.func'}}
func.func private @f() attributes {tile.target = "sm_80"}

// -----

module {
  // expected-error @below {{'tile.swizzle' must be a #tile.swizzle attribute, got 8 : i64}}
  func.func private @f() attributes {tile.swizzle = 8}
}

// -----

module {
  // expected-error @below {{'tile.tma' applies to tile.alloc_shared, not to 'func.func'}}
  func.func private @f() attributes {tile.tma}
}

// -----

module {
  // expected-error @below {{'tile.tma' must be a unit attribute, got 1 : i64}}
  func.func private @f() attributes {tile.tma = 1}
}

// -----

// expected-error @below {{layout of rank 0 on a tile of rank 1}}
func.func private @f(tensor<4xf32, #tile.linear<register = [], lane = [[], []], warp = []>>)
