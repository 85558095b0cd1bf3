// RUN: tessera-opt %s --split-input-file --convert-tile-to-gpu --verify-diagnostics

// expected-error @below {{convert-tile-to-gpu lowers for NVIDIA chips (sm_80) so far; set the module's tile.target}}
module {
  tile.kernel @k() threads(32) {
    tile.return
  }
}

// -----

// expected-error @below {{convert-tile-to-gpu does not lower for sm_90a yet (sm_80 only)}}
module attributes {tile.target = "sm_90a"} {
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
  // expected-error @below {{'tile.kernel' op argument #0 holds sub-byte 'i4' codes, which convert-tile-to-gpu does not lower yet}}
  tile.kernel @k(%X: !tile.view<?x?xi4>) threads(32) {
    tile.return
  }
}
