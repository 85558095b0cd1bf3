// One scale for a whole 64x64 tile that 4 warps hold: the sm_80 backend
// does not reduce across warps yet (it needs shared memory).
tile.kernel @quant_across_warps(%X: !tile.view<?x?xbf16>,
                                %Q: !tile.view<?x?xi8>,
                                %S: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %q, %s = tile.quant %x group [64, 64]
      : tensor<64x64xbf16> -> tensor<64x64xi8>, tensor<1x1xf32>
  tile.store %q -> %Q[%c0, %c0] : tensor<64x64xi8> -> !tile.view<?x?xi8>
  tile.store %s -> %S[%c0, %c0] : tensor<1x1xf32> -> !tile.view<?x?xf32>
  tile.return
}
