// fp8 weights have one scale per 128x128 block: a weight tile must hold
// whole blocks or lie inside one, in k and in n.
// RUN: tessera-opt %s --split-input-file --tile-quantize=weights=fp8 --verify-diagnostics
// Per group, the whole weight tile must share one block's scale.
// RUN: not tessera-opt %s --split-input-file --tile-quantize="weights=fp8 placement=per-group" 2>&1 | FileCheck %s --check-prefix=PERGROUP
// PERGROUP: the weight tile holds 96 rows of k
// PERGROUP: the weight tile holds 192 columns
// PERGROUP: error: tile-quantize: placement=per-group scales each K tile's product once and needs the weight tile inside one fp8 block; use an N tile of at most 128 or placement=registers

tile.kernel @k_tile(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sA = tile.alloc_shared : !tile.shared<64x96xbf16>
  %sB = tile.alloc_shared : !tile.shared<96x128xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<64x96xbf16>
  // expected-error @below {{tile-quantize: the weight tile holds 96 rows of k; with 128x128 fp8 blocks a tile must hold whole blocks or lie inside one: use a K step that divides or is a multiple of 128}}
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<96x128xbf16>
  %a = tile.load %sA : !tile.shared<64x96xbf16> -> tensor<64x96xbf16>
  %b = tile.load %sB : !tile.shared<96x128xbf16> -> tensor<96x128xbf16>
  %z = arith.constant dense<0.0> : tensor<64x128xf32>
  %c = tile.mma %a, %b, %z : tensor<64x96xbf16>, tensor<96x128xbf16> -> tensor<64x128xf32>
  tile.return
}

// -----

tile.kernel @n_tile(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sA = tile.alloc_shared : !tile.shared<64x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x192xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  // expected-error @below {{tile-quantize: the weight tile holds 192 columns; with 128x128 fp8 blocks a tile must hold whole blocks or lie inside one: use an N tile that divides or is a multiple of 128}}
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x192xbf16>
  %a = tile.load %sA : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %b = tile.load %sB : !tile.shared<64x192xbf16> -> tensor<64x192xbf16>
  %z = arith.constant dense<0.0> : tensor<64x192xf32>
  %c = tile.mma %a, %b, %z : tensor<64x64xbf16>, tensor<64x192xbf16> -> tensor<64x192xf32>
  tile.return
}

// -----

// Two column blocks per tile: fine in registers (auto picks them).
tile.kernel @two_blocks(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %sA = tile.alloc_shared : !tile.shared<64x128xbf16>
  %sB = tile.alloc_shared : !tile.shared<128x256xbf16>
  tile.copy %A[%c0, %c0] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<64x128xbf16>
  tile.copy %B[%c0, %c0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<128x256xbf16>
  %a = tile.load %sA : !tile.shared<64x128xbf16> -> tensor<64x128xbf16>
  %b = tile.load %sB : !tile.shared<128x256xbf16> -> tensor<128x256xbf16>
  %z = arith.constant dense<0.0> : tensor<64x256xf32>
  %c = tile.mma %a, %b, %z : tensor<64x128xbf16>, tensor<128x256xbf16> -> tensor<64x256xf32>
  tile.return
}
