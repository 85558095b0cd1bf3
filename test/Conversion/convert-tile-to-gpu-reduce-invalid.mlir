// RUN: tessera-opt %s --tile-assign-layouts --convert-tile-to-gpu --verify-diagnostics

// Rows split over warps are combined through a scratch buffer in shared
// memory, which must fit beside the kernel's buffers (64 KiB of LDS here,
// all taken).
module attributes {tile.target = "gfx942"} {
  tile.kernel @k(%X: !tile.view<?x?xf32>, %Y: !tile.view<?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %big = tile.alloc_shared : !tile.shared<64x256xf32>
    tile.copy %X[%c0, %c0] -> %big : !tile.view<?x?xf32> -> !tile.shared<64x256xf32>
    tile.barrier
    %x = tile.load %big : !tile.shared<64x256xf32> -> tensor<64x256xf32>
    // expected-error @below {{'tile.reduce' op needs 2048 bytes of shared memory to combine across warps, beyond the 65536 of gfx942 with the 65536 its buffers take}}
    %s = tile.reduce sum %x dim 0 : tensor<64x256xf32> -> tensor<256xf32>
    tile.store %s -> %Y[%c0] : tensor<256xf32> -> !tile.view<?xf32>
    tile.return
  }
}
