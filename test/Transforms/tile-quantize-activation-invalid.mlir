// With activation-scales=token the a operand's kernel argument becomes
// codes: it must be found the way the weight is.
// RUN: tessera-opt %s --split-input-file --tile-quantize="weights=int8 activations=int8 activation-scales=token" --verify-diagnostics

tile.kernel @transposed(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sA = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  %a = tile.load %sA : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: the activation operand a is transposed; quantize a kernel that reads a as [m, k]}}
  %c = tile.mma %a, %b, %z transpose_a : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}

// -----

tile.kernel @register_operand(%B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  %a = arith.constant dense<1.0> : tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  // expected-error @below {{tile-quantize: operand a must be a tile.load of a tile.alloc_shared buffer}}
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
  tile.return
}
