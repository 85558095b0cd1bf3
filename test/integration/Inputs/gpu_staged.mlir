// Row sums of 64x64 tiles staged in shared memory: Z[i] = sum of X[i, 0:64].
// The copy pads with zeros past the view's last column, as the sums need.
tile.kernel @row_sums_shared(%X: !tile.view<?x?xf32>, %Z: !tile.view<?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  tile.copy %X[%r0, %c0] -> %s : !tile.view<?x?xf32> -> !tile.shared<64x64xf32>
  tile.barrier
  %x = tile.load %s : !tile.shared<64x64xf32> -> tensor<64x64xf32>
  %r = tile.reduce sum %x dim 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %r -> %Z[%r0] : tensor<64xf32> -> !tile.view<?xf32>
  tile.return
}

// Y = 2 X through shared memory, in 64x64 tiles over both dimensions: the
// stores past the view's last row and column are masked.
tile.kernel @double_staged(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c64 = arith.constant 64 : index
  %px = tile.program_id x
  %py = tile.program_id y
  %r0 = arith.muli %px, %c64 : index
  %c0 = arith.muli %py, %c64 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  tile.copy %X[%r0, %c0] -> %s : !tile.view<?x?xf32> -> !tile.shared<64x64xf32>
  tile.barrier
  %x = tile.load %s : !tile.shared<64x64xf32> -> tensor<64x64xf32>
  %y = arith.addf %x, %x : tensor<64x64xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
