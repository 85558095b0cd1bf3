// Row softmax, as a user writes it: Y[r, :] = exp(X[r, :] - max) /
// sum(exp(X[r, :] - max)), rows of up to 1024 elements held whole.
//
// softmax: 8 rows a program (rows past the view read as -inf, so their
// max and sum stay finite where they are not written; columns past the
// row's end read as -inf, whose exp is 0); launch ceil(rows / 8)
// programs. softmax_naive, its reference: one row a program, computed in
// the three passes of the textbook (max, sum, divide) over chunks of 128;
// launch `rows` programs.
tile.kernel @softmax(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] pad(0xFF800000 : f32)
      : !tile.view<?x?xf32> -> tensor<8x1024xf32>
  %m = tile.reduce max %x dim 1 : tensor<8x1024xf32> -> tensor<8xf32>
  %mb = tile.broadcast %m dims [1] : tensor<8xf32> -> tensor<8x1024xf32>
  %d = arith.subf %x, %mb : tensor<8x1024xf32>
  %e = math.exp %d : tensor<8x1024xf32>
  %s = tile.reduce sum %e dim 1 : tensor<8x1024xf32> -> tensor<8xf32>
  %sb = tile.broadcast %s dims [1] : tensor<8xf32> -> tensor<8x1024xf32>
  %y = arith.divf %e, %sb : tensor<8x1024xf32>
  tile.store %y -> %Y[%r0, %c0] : tensor<8x1024xf32> -> !tile.view<?x?xf32>
  tile.return
}

tile.kernel @softmax_naive(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %row = tile.program_id x
  %D = tile.dim %X, 1 : !tile.view<?x?xf32>
  %ninf = arith.constant dense<0xFF800000> : tensor<1xf32>
  %max = scf.for %k = %c0 to %D step %c128 iter_args(%acc = %ninf)
      -> (tensor<1xf32>) {
    %x = tile.load %X[%row, %k] pad(0xFF800000 : f32)
        : !tile.view<?x?xf32> -> tensor<1x128xf32>
    %part = tile.reduce max %x dim 1 : tensor<1x128xf32> -> tensor<1xf32>
    %next = arith.maximumf %acc, %part : tensor<1xf32>
    scf.yield %next : tensor<1xf32>
  }
  %mb = tile.broadcast %max dims [1] : tensor<1xf32> -> tensor<1x128xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %sum = scf.for %k = %c0 to %D step %c128 iter_args(%acc = %zero)
      -> (tensor<1xf32>) {
    %x = tile.load %X[%row, %k] pad(0xFF800000 : f32)
        : !tile.view<?x?xf32> -> tensor<1x128xf32>
    %d = arith.subf %x, %mb : tensor<1x128xf32>
    %e = math.exp %d : tensor<1x128xf32>
    %part = tile.reduce sum %e dim 1 : tensor<1x128xf32> -> tensor<1xf32>
    %next = arith.addf %acc, %part : tensor<1xf32>
    scf.yield %next : tensor<1xf32>
  }
  %sb = tile.broadcast %sum dims [1] : tensor<1xf32> -> tensor<1x128xf32>
  scf.for %k = %c0 to %D step %c128 {
    %x = tile.load %X[%row, %k] pad(0xFF800000 : f32)
        : !tile.view<?x?xf32> -> tensor<1x128xf32>
    %d = arith.subf %x, %mb : tensor<1x128xf32>
    %e = math.exp %d : tensor<1x128xf32>
    %y = arith.divf %e, %sb : tensor<1x128xf32>
    tile.store %y -> %Y[%row, %k] : tensor<1x128xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}
