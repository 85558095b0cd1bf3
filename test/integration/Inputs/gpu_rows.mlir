// Row reductions and broadcasts (the shape of an online softmax without the
// exponential): Y = (X - max_row(X)) / sum_row(|X - max_row(X)| + 1).
tile.kernel @row_normalize(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<16x64xf32>
  %m = tile.reduce max %x dim 1 : tensor<16x64xf32> -> tensor<16xf32>
  %mb = tile.broadcast %m dims [1] : tensor<16xf32> -> tensor<16x64xf32>
  %d = arith.subf %x, %mb : tensor<16x64xf32>
  %a = math.absf %d : tensor<16x64xf32>
  %one = arith.constant dense<1.0> : tensor<16x64xf32>
  %a1 = arith.addf %a, %one : tensor<16x64xf32>
  %s = tile.reduce sum %a1 dim 1 : tensor<16x64xf32> -> tensor<16xf32>
  %sb = tile.broadcast %s dims [1] : tensor<16xf32> -> tensor<16x64xf32>
  %y = arith.divf %d, %sb : tensor<16x64xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<16x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// Column sums of an int tile into a 1-D output: Z[j] = sum_i X[i, j].
tile.kernel @column_sums(%X: !tile.view<?x?xi32>, %Z: !tile.view<?xi32>)
    threads(32) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %j0 = arith.muli %pid, %c32 : index
  %x = tile.load %X[%c0, %j0] : !tile.view<?x?xi32> -> tensor<8x32xi32>
  %s = tile.reduce sum %x dim 0 : tensor<8x32xi32> -> tensor<32xi32>
  tile.store %s -> %Z[%j0] : tensor<32xi32> -> !tile.view<?xi32>
  tile.return
}

// Row softmax: Y = exp(X - max) / sum(exp(X - max)), exp as 2^(x log2 e).
tile.kernel @row_softmax(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] pad(0xFF800000 : f32) : !tile.view<?x?xf32> -> tensor<8x128xf32>
  %m = tile.reduce max %x dim 1 : tensor<8x128xf32> -> tensor<8xf32>
  %mb = tile.broadcast %m dims [1] : tensor<8xf32> -> tensor<8x128xf32>
  %d = arith.subf %x, %mb : tensor<8x128xf32>
  %e = math.exp %d fastmath<afn> : tensor<8x128xf32>
  %s = tile.reduce sum %e dim 1 : tensor<8x128xf32> -> tensor<8xf32>
  %sb = tile.broadcast %s dims [1] : tensor<8xf32> -> tensor<8x128xf32>
  %y = arith.divf %e, %sb : tensor<8x128xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<8x128xf32> -> !tile.view<?x?xf32>
  tile.return
}
