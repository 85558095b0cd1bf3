// RUN: tessera-opt %s --split-input-file --convert-tile-to-gpu --verify-diagnostics

// expected-error @below {{convert-tile-to-gpu lowers for GPU chips (sm_80, sm_90a, gfx942, gfx90a); set the module's tile.target}}
module {
  tile.kernel @k() threads(32) {
    tile.return
  }
}

// -----

// expected-error @below {{convert-tile-to-gpu lowers for GPU chips (sm_80, sm_90a, gfx942, gfx90a); set the module's tile.target}}
module attributes {tile.target = "host"} {
  tile.kernel @k() threads(32) {
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'tile.load' op makes a register tile without a layout; run tile-assign-layouts first}}
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<8x8xf32>
    tile.store %x -> %X[%c0, %c0] : tensor<8x8xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  // expected-error @below {{'tile.kernel' op argument #0 holds sub-byte 'i4' codes other than int4 nibble pairs ([.., n, 2]), which convert-tile-to-gpu does not lower yet}}
  tile.kernel @k(%X: !tile.view<?x?xi4>) threads(32) {
    tile.return
  }
}

// -----

// The packed codes must be laid out as the unpacked ones with the
// dimension split: here lanes hold the nibble pairs in another order.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%W: !tile.view<?x?x2xi4>, %S: !tile.view<?x?xf16>, %C: !tile.view<?x?xbf16>) threads(32) {
    %c0 = arith.constant 0 : index
    %p = tile.load %W[%c0, %c0, %c0] : !tile.view<?x?x2xi4> -> tensor<2x16x2xi4, #tile.linear<register = [[1, 0, 0]], lane = [[0, 1, 0], [0, 0, 1], [0, 2, 0], [0, 4, 0], [0, 8, 0]], warp = []>>
    // expected-error @below {{'tile.unpack' op needs its input in the layout of its result with dimension 1 split}}
    %u = tile.unpack %p dim 1 order [0, 1] : tensor<2x16x2xi4, #tile.linear<register = [[1, 0, 0]], lane = [[0, 1, 0], [0, 0, 1], [0, 2, 0], [0, 4, 0], [0, 8, 0]], warp = []>> -> tensor<2x32xi4, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    %s = tile.load %S[%c0, %c0] : !tile.view<?x?xf16> -> tensor<1x32xf16, #tile.linear<register = [[0, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    %w = tile.dequant %u, %s group [2, 1] : tensor<2x32xi4, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>, tensor<1x32xf16, #tile.linear<register = [[0, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> tensor<2x32xbf16, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    tile.store %w -> %C[%c0, %c0] : tensor<2x32xbf16, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> !tile.view<?x?xbf16>
    tile.return
  }
}

// -----

// Scales must pair register by register with the codes they scale.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%Q: !tile.view<?x?xi8>, %S: !tile.view<?x?xf16>, %C: !tile.view<?x?xbf16>) threads(32) {
    %c0 = arith.constant 0 : index
    %q = tile.load %Q[%c0, %c0] : !tile.view<?x?xi8> -> tensor<2x32xi8, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    %s = tile.load %S[%c0, %c0] : !tile.view<?x?xf16> -> tensor<1x32xf16, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    // expected-error @below {{'tile.dequant' op needs its scales and zero points laid out as its codes divided by the groups}}
    %w = tile.dequant %q, %s group [2, 1] : tensor<2x32xi8, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>, tensor<1x32xf16, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> tensor<2x32xbf16, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    tile.store %w -> %C[%c0, %c0] : tensor<2x32xbf16, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> !tile.view<?x?xbf16>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%Q: !tile.view<?x?xf8E5M2>, %S: !tile.view<?x?xf32>, %C: !tile.view<?x?xbf16>) threads(32) {
    %c0 = arith.constant 0 : index
    %q = tile.load %Q[%c0, %c0] : !tile.view<?x?xf8E5M2> -> tensor<2x32xf8E5M2, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    %s = tile.load %S[%c0, %c0] : !tile.view<?x?xf32> -> tensor<1x32xf32, #tile.linear<register = [[0, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    // expected-error @below {{'tile.dequant' op of 'f8E5M2' codes is not supported by convert-tile-to-gpu yet (int4, int8 and f8E4M3FN are)}}
    %w = tile.dequant %q, %s group [2, 1] : tensor<2x32xf8E5M2, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>, tensor<1x32xf32, #tile.linear<register = [[0, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> tensor<2x32xbf16, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    tile.store %w -> %C[%c0, %c0] : tensor<2x32xbf16, #tile.linear<register = [[1, 0]], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> !tile.view<?x?xbf16>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%W: !tile.view<?x?x2xi4>) threads(32) {
    %c0 = arith.constant 0 : index
    %p = tile.load %W[%c0, %c0, %c0] : !tile.view<?x?x2xi4> -> tensor<2x8x2xi4, #tile.linear<register = [], lane = [[0, 0, 1], [0, 1, 0], [0, 2, 0], [0, 4, 0], [1, 0, 0]], warp = []>>
    // expected-error @below {{'tile.store' op into a view of sub-byte codes is not supported by convert-tile-to-gpu yet}}
    tile.store %p -> %W[%c0, %c0, %c0] : tensor<2x8x2xi4, #tile.linear<register = [], lane = [[0, 0, 1], [0, 1, 0], [0, 2, 0], [0, 4, 0], [1, 0, 0]], warp = []>> -> !tile.view<?x?x2xi4>
    tile.return
  }
}

// -----

// A gather whose row indices are held by other threads than the rows they
// choose (lanes reversed) cannot read its rows.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?xf32>, %I: !tile.view<?xi32>, %Y: !tile.view<?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    %ids = tile.load %I[%c0] : !tile.view<?xi32> -> tensor<32xi32, #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = []>>
    // expected-error @below {{'tile.gather' op row indices are not held by the threads that hold their rows (their layout must be the slice of the tile's)}}
    %x = tile.gather %X[%c0] rows(%ids) : !tile.view<?xf32>, tensor<32xi32, #tile.linear<register = [], lane = [[16], [8], [4], [2], [1]], warp = []>> -> tensor<32xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
    tile.store %x -> %Y[%c0] : tensor<32xf32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>> -> !tile.view<?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?xbf16>) threads(32) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0] : !tile.view<?xbf16> -> tensor<32xbf16, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
    // expected-error @below {{'tile.atomic_add' op of 'bf16' is not supported by convert-tile-to-gpu yet (f32 and i32 are)}}
    tile.atomic_add %x -> %X[%c0] : tensor<32xbf16, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>> -> !tile.view<?xbf16>
    tile.return
  }
}

// -----

// Element 0 of a tile spread over the lanes is in lane 0 only.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?xi32>) threads(32) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0] : !tile.view<?xi32> -> tensor<32xi32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
    // expected-error @below {{'tensor.extract' op of an element that not every thread holds is not supported by convert-tile-to-gpu yet (it needs a shuffle or shared memory)}}
    %e = tensor.extract %x[%c0] : tensor<32xi32, #tile.linear<register = [], lane = [[1], [2], [4], [8], [16]], warp = []>>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?xi32>) threads(32) {
    %c0 = arith.constant 0 : index
    %p = tile.program_id x
    %x = tile.load %X[%c0] : !tile.view<?xi32> -> tensor<1xi32, #tile.linear<register = [], lane = [[0], [0], [0], [0], [0]], warp = []>>
    // expected-error @below {{'tensor.extract' op at a dynamic index is not supported by convert-tile-to-gpu yet}}
    %e = tensor.extract %x[%p] : tensor<1xi32, #tile.linear<register = [], lane = [[0], [0], [0], [0], [0]], warp = []>>
    tile.return
  }
}

// -----

// fp8 codes are held as their bits: arith.extf decodes them, other
// element-wise ops do not compute on them.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%Q: !tile.view<?x?xf8E4M3FN>, %C: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    %q = tile.load %Q[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<1x32xf8E4M3FN, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    // expected-error @below {{'arith.negf' op on fp8 tiles is not supported by convert-tile-to-gpu (only arith.extf, tile.dequant, tile.quant and tile.mma are)}}
    %n = arith.negf %q : tensor<1x32xf8E4M3FN, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    %f = arith.extf %n : tensor<1x32xf8E4M3FN, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> to tensor<1x32xf32, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>>
    tile.store %f -> %C[%c0, %c0] : tensor<1x32xf32, #tile.linear<register = [], lane = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16]], warp = []>> -> !tile.view<?x?xf32>
    tile.return
  }
}
