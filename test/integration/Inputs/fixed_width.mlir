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

// Y[r, :] = X[r, :] / n for the rows of X, which must be Y's: assumptions
// on the arguments that tag-check trusts and every launch checks.
tile.kernel @divide_rows(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>,
                         %n: i32) threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %rowsX = tile.dim %X, 0 : !tile.view<?x?xf32>
  %rowsY = tile.dim %Y, 0 : !tile.view<?x?xf32>
  %same = arith.cmpi eq, %rowsX, %rowsY : index
  tag.assume %same, "X and Y have the same rows" : i1
  %positive = arith.cmpi sgt, %n, %zero : i32
  tag.assume %positive, "n is positive" : i1
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %nf = arith.sitofp %n : i32 to f32
  %nt = tile.splat %nf : f32 -> tensor<8x64xf32>
  %y = arith.divf %x, %nt : tensor<8x64xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
