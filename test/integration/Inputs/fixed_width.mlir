// A kernel whose views' rows are 64 wide by type: Y = 2 X, 8 rows a program.
tile.kernel @fixed_width(%X: !tile.view<?x64xf32>, %Y: !tile.view<?x64xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x64xf32> -> tensor<8x64xf32>
  %y = arith.addf %x, %x : tensor<8x64xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<8x64xf32> -> !tile.view<?x64xf32>
  tile.return
}
