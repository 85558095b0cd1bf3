// RUN: tessera-opt %s --split-input-file --convert-tile-to-host --verify-diagnostics

// Of the 8-bit floats the host converts f8E4M3FN only.
// expected-error @below {{'tile.kernel' op argument #1 has element type 'f8E5M2', which convert-tile-to-host does not support (of the 8-bit floats only f8E4M3FN)}}
tile.kernel @e5m2_view(%X: !tile.view<?x?xbf16>, %Q: !tile.view<?x?xf8E5M2>) threads(128) {
  tile.return
}

// -----

tile.kernel @e5m2_codes(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<4x8xbf16>
  // expected-error @below {{'tile.quant' op on 'f8E5M2' elements is not supported by convert-tile-to-host (of the 8-bit floats only f8E4M3FN)}}
  %q, %s = tile.quant %x group [1, 8] : tensor<4x8xbf16> -> tensor<4x8xf8E5M2>, tensor<4x1xf32>
  tile.store %s -> %Y[%c0, %c0] : tensor<4x1xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// fp8 tiles are converted, not computed on.
tile.kernel @fp8_math(%X: !tile.view<?x?xf8E4M3FN>, %Y: !tile.view<?x?xf8E4M3FN>) threads(128) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<4x8xf8E4M3FN>
  // expected-error @below {{'arith.negf' op on fp8 tiles is not supported by convert-tile-to-host (only arith.extf, tile.dequant, tile.quant and tile.mma are)}}
  %y = arith.negf %x : tensor<4x8xf8E4M3FN>
  tile.store %y -> %Y[%c0, %c0] : tensor<4x8xf8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  tile.return
}
