// Reductions to rank-0 tiles (a decode kernel's running max, a total), and
// broadcasts of them: every thread of the block holds the scalar.

// Y = X - max(X) over a 128-element chunk per program, across two warps.
tile.kernel @subtract_max(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>)
    threads(64) {
  %c128 = arith.constant 128 : index
  %pid = tile.program_id x
  %off = arith.muli %pid, %c128 : index
  %x = tile.load %X[%off] : !tile.view<?xf32> -> tensor<128xf32>
  %m = tile.reduce max %x dim 0 : tensor<128xf32> -> tensor<f32>
  %mb = tile.broadcast %m dims [0] : tensor<f32> -> tensor<128xf32>
  %y = arith.subf %x, %mb : tensor<128xf32>
  tile.store %y -> %Y[%off] : tensor<128xf32> -> !tile.view<?xf32>
  tile.return
}

// Z[p * 16 + i] = sum of the 16x32 block p of X, for every i: rows, then
// the row sums, reduced to one value.
tile.kernel @block_total(%X: !tile.view<?x?xi32>, %Z: !tile.view<?xi32>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xi32> -> tensor<16x32xi32>
  %rows = tile.reduce sum %x dim 1 : tensor<16x32xi32> -> tensor<16xi32>
  %total = tile.reduce sum %rows dim 0 : tensor<16xi32> -> tensor<i32>
  %tb = tile.broadcast %total dims [0] : tensor<i32> -> tensor<16xi32>
  tile.store %tb -> %Z[%r0] : tensor<16xi32> -> !tile.view<?xi32>
  tile.return
}
