// RUN: tessera-opt %s --split-input-file --convert-tile-to-host --verify-diagnostics

// The host quantizes to integer codes only.
tile.kernel @fp8_codes(%X: !tile.view<?x?xbf16>, %Q: !tile.view<?x?xf8E4M3FN>) threads(128) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<4x8xbf16>
  // expected-error @below {{'tile.quant' op with 'f8E4M3FN' codes is not supported by convert-tile-to-host}}
  %q, %s = tile.quant %x group [1, 8] : tensor<4x8xbf16> -> tensor<4x8xf8E4M3FN>, tensor<4x1xf32>
  tile.store %q -> %Q[%c0, %c0] : tensor<4x8xf8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  tile.return
}
