// test/unit/Inputs/scale.mlir's kernel (y = factor * x, 64 elements per
// program) launched in thread-block clusters of two program instances.
tile.kernel @scale(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>, %factor: f32) threads(64) cluster(2) {
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %off = arith.muli %pid, %c64 : index
  %x = tile.load %X[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %f = tile.splat %factor : f32 -> tensor<64xf32>
  %y = arith.mulf %x, %f : tensor<64xf32>
  tile.store %y -> %Y[%off] : tensor<64xf32> -> !tile.view<?xf32>
  tile.return
}
