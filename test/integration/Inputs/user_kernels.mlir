// A user's kernels and the naive versions they are checked against
// (check-user-kernel.test).

// Y = 2 X, 8 rows of 64 per program.
tile.kernel @scale_rows(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %y = arith.addf %x, %x : tensor<8x64xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// The same with a bug: programs step 16 rows but cover 8, so half of Y is
// never written.
tile.kernel @scale_rows_gaps(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %y = arith.addf %x, %x : tensor<8x64xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// The naive version: one row per program.
tile.kernel @scale_rows_naive(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %row = tile.program_id x
  %x = tile.load %X[%row, %c0] : !tile.view<?x?xf32> -> tensor<1x64xf32>
  %two = arith.constant dense<2.0> : tensor<1x64xf32>
  %y = arith.mulf %x, %two : tensor<1x64xf32>
  tile.store %y -> %Y[%row, %c0] : tensor<1x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// Another signature: not a reference for the kernels above.
tile.kernel @scale_rows_bf16(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xbf16>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %row = tile.program_id x
  %x = tile.load %X[%row, %c0] : !tile.view<?x?xbf16> -> tensor<1x64xbf16>
  tile.store %x -> %Y[%row, %c0] : tensor<1x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}

// Y += X: Y is read and written, so it is not poisoned.
tile.kernel @accumulate(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %y = tile.load %Y[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %sum = arith.addf %x, %y : tensor<8x64xf32>
  tile.store %sum -> %Y[%r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
