// one-shot-bufferize does not know tile ops on tensors and fails.
tile.kernel @k(%x: f32, %X: !tile.view<?xf32>, %i: index) threads(32) {
  %t = tile.splat %x : f32 -> tensor<4xf32>
  %u = arith.addf %t, %t : tensor<4xf32>
  tile.store %u -> %X[%i] : tensor<4xf32> -> !tile.view<?xf32>
  tile.return
}
