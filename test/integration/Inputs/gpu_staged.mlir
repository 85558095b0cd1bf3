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

// Row sums of tiles that reach shared memory through registers: a load from
// the view (zeros past its last row and column), a store into the buffer.
tile.kernel @row_sums_stored(%X: !tile.view<?x?xf32>, %Z: !tile.view<?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf32>
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  tile.store %x -> %s : tensor<64x64xf32> -> !tile.shared<64x64xf32>
  tile.barrier
  %y = tile.load %s : !tile.shared<64x64xf32> -> tensor<64x64xf32>
  %r = tile.reduce sum %y dim 1 : tensor<64x64xf32> -> tensor<64xf32>
  tile.store %r -> %Z[%r0] : tensor<64xf32> -> !tile.view<?xf32>
  tile.return
}

// Y = 2 X through shared memory in 8x8 tiles, each element of which several
// threads hold: one of them stores it into the buffer (the race detector
// reports two stores of one element with no barrier between).
tile.kernel @double_small(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c8 = arith.constant 8 : index
  %px = tile.program_id x
  %py = tile.program_id y
  %r0 = arith.muli %px, %c8 : index
  %c0 = arith.muli %py, %c8 : index
  %s = tile.alloc_shared : !tile.shared<8x8xf32>
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x8xf32>
  tile.store %x -> %s : tensor<8x8xf32> -> !tile.shared<8x8xf32>
  tile.barrier
  %y = tile.load %s : !tile.shared<8x8xf32> -> tensor<8x8xf32>
  %z = arith.addf %y, %y : tensor<8x8xf32>
  tile.store %z -> %Y[%r0, %c0] : tensor<8x8xf32> -> !tile.view<?x?xf32>
  tile.return
}
