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

// In place, Y = 2 X + Y, with a tile smaller than the block's threads times
// their 16-byte vectors: warps 0 and 2 hold the same elements. Only one of
// them may store, or the other can load the updated Y and apply it twice.
tile.kernel @axpy_in_place(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>) threads(128) {
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  %pid = tile.program_id x
  %o = arith.muli %pid, %c256 : index
  %x = tile.load %X[%o] : !tile.view<?xf32> -> tensor<256xf32>
  %y = tile.load %Y[%o] : !tile.view<?xf32> -> tensor<256xf32>
  %t = tile.splat %two : f32 -> tensor<256xf32>
  %tx = arith.mulf %t, %x : tensor<256xf32>
  %r = arith.addf %tx, %y : tensor<256xf32>
  tile.store %r -> %Y[%o] : tensor<256xf32> -> !tile.view<?xf32>
  tile.return
}
