// RUN: tessera-opt %s --tile-assign-layouts --convert-tile-to-gpu --verify-diagnostics

// A layout conversion's scratch buffer must fit beside the kernel's
// buffers (64 KiB of LDS here, all taken).
module attributes {tile.target = "gfx942"} {
  tile.kernel @k(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xf32>, %B: !tile.view<?x?xf32>) threads(256) {
    %c0 = arith.constant 0 : index
    %big = tile.alloc_shared : !tile.shared<64x256xf32>
    tile.copy %B[%c0, %c0] -> %big : !tile.view<?x?xf32> -> !tile.shared<64x256xf32>
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.convert_layout' op needs 8192 bytes of shared memory to convert a tile's layout, beyond the 65536 of gfx942 with the 65536 its buffers take}}
    %g = tile.mma %x, %x, %z transpose_b : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %g -> %Y[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}
