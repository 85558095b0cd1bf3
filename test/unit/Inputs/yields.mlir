// Loop-carried tiles that trade places: the host lowering must copy the
// yielded tiles into the carried ones as if all at once. X holds three
// tiles of 8; after n iterations Y holds the loop's results.

// (a, b) -> (b, a): a swap, as in ping-pong buffering.
tile.kernel @yield_swap(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>,
                        %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a0 = tile.load %X[%c0] : !tile.view<?xf32> -> tensor<8xf32>
  %b0 = tile.load %X[%c8] : !tile.view<?xf32> -> tensor<8xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0)
      -> (tensor<8xf32>, tensor<8xf32>) {
    scf.yield %b, %a : tensor<8xf32>, tensor<8xf32>
  }
  tile.store %r#0 -> %Y[%c0] : tensor<8xf32> -> !tile.view<?xf32>
  tile.store %r#1 -> %Y[%c8] : tensor<8xf32> -> !tile.view<?xf32>
  tile.return
}

// (a, b, d) -> (d, a, b + 1): a rotation with an update.
tile.kernel @yield_rotate(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>,
                          %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %one = arith.constant dense<1.0> : tensor<8xf32>
  %a0 = tile.load %X[%c0] : !tile.view<?xf32> -> tensor<8xf32>
  %b0 = tile.load %X[%c8] : !tile.view<?xf32> -> tensor<8xf32>
  %d0 = tile.load %X[%c16] : !tile.view<?xf32> -> tensor<8xf32>
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0, %d = %d0)
      -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) {
    %b1 = arith.addf %b, %one : tensor<8xf32>
    scf.yield %d, %a, %b1 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  }
  tile.store %r#0 -> %Y[%c0] : tensor<8xf32> -> !tile.view<?xf32>
  tile.store %r#1 -> %Y[%c8] : tensor<8xf32> -> !tile.view<?xf32>
  tile.store %r#2 -> %Y[%c16] : tensor<8xf32> -> !tile.view<?xf32>
  tile.return
}

// (a, b) -> (b, b) and (a + b, a + b): one tile yielded twice.
tile.kernel @yield_duplicate(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>,
                             %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a0 = tile.load %X[%c0] : !tile.view<?xf32> -> tensor<8xf32>
  %b0 = tile.load %X[%c8] : !tile.view<?xf32> -> tensor<8xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0)
      -> (tensor<8xf32>, tensor<8xf32>) {
    %s = arith.addf %a, %b : tensor<8xf32>
    scf.yield %s, %s : tensor<8xf32>, tensor<8xf32>
  }
  %q:2 = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %r#0, %b = %r#1)
      -> (tensor<8xf32>, tensor<8xf32>) {
    scf.yield %b, %b : tensor<8xf32>, tensor<8xf32>
  }
  tile.store %q#0 -> %Y[%c0] : tensor<8xf32> -> !tile.view<?xf32>
  tile.store %q#1 -> %Y[%c8] : tensor<8xf32> -> !tile.view<?xf32>
  tile.return
}
