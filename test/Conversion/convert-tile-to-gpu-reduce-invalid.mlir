// RUN: tessera-opt %s --tile-assign-layouts --convert-tile-to-gpu --verify-diagnostics

// Rows split over warps cannot be reduced along them without shared memory.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?x?xf32>, %Y: !tile.view<?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
    // expected-error @below {{'tile.reduce' op reduces across warps, which convert-tile-to-gpu does not do yet (it needs shared memory); give each warp whole rows}}
    %s = tile.reduce sum %x dim 0 : tensor<64x32xf32> -> tensor<32xf32>
    tile.store %s -> %Y[%c0] : tensor<32xf32> -> !tile.view<?xf32>
    tile.return
  }
}
