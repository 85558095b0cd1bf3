// Element-wise kernels on tiles loaded from views (with padding), splats,
// selects and iotas: Z = select(X > Y, X + Y * a, a); Z = X + i.
tile.kernel @axpy_select(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>,
                         %Z: !tile.view<?x?xf32>, %a: f32) threads(64) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %pid_y = tile.program_id y
  %r0 = arith.muli %pid, %c32 : index
  %c0_ = arith.muli %pid_y, %c64 : index
  %x = tile.load %X[%r0, %c0_] : !tile.view<?x?xf32> -> tensor<32x64xf32>
  %y = tile.load %Y[%r0, %c0_] pad(1.0 : f32) : !tile.view<?x?xf32> -> tensor<32x64xf32>
  %as = tile.splat %a : f32 -> tensor<32x64xf32>
  %ya = arith.mulf %y, %as : tensor<32x64xf32>
  %s = arith.addf %x, %ya : tensor<32x64xf32>
  %gt = arith.cmpf ogt, %x, %y : tensor<32x64xf32>
  %r = tile.select %gt, %s, %as : tensor<32x64xi1>, tensor<32x64xf32>
  tile.store %r -> %Z[%r0, %c0_] : tensor<32x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// 1-D: Z = X + i (the position in the tile) for i32 and index iotas.
tile.kernel @add_iota(%X: !tile.view<?xi32>, %Z: !tile.view<?xi32>) threads(32) {
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %o = arith.muli %pid, %c256 : index
  %x = tile.load %X[%o] : !tile.view<?xi32> -> tensor<256xi32>
  %i = tile.iota : tensor<256xi32>
  %s = arith.addi %x, %i : tensor<256xi32>
  tile.store %s -> %Z[%o] : tensor<256xi32> -> !tile.view<?xi32>
  tile.return
}
