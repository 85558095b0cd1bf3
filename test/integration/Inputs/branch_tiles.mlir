// Register tiles through scf.if: each branch yields a tile (and a scalar)
// in the result's layout; the branch taken depends on the program.
tile.kernel @branch_tiles(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.000000e+00 : f32
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c64 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.load %X[%m0, %c0] : !tile.view<?x?xf32> -> tensor<64x32xf32>
  %parity = arith.remui %pid, %c2 : index
  %even = arith.cmpi eq, %parity, %c0 : index
  %y, %shift = scf.if %even -> (tensor<64x32xf32>, f32) {
    %twice = arith.addf %x, %x : tensor<64x32xf32>
    scf.yield %twice, %one : tensor<64x32xf32>, f32
  } else {
    %sq = arith.mulf %x, %x : tensor<64x32xf32>
    %neg = arith.negf %one : f32
    scf.yield %sq, %neg : tensor<64x32xf32>, f32
  }
  %shift_t = tile.splat %shift : f32 -> tensor<64x32xf32>
  %out = arith.addf %y, %shift_t : tensor<64x32xf32>
  // A branch without results, whose tiles stay inside it.
  scf.if %even {
    tile.store %out -> %Y[%m0, %c0] : tensor<64x32xf32> -> !tile.view<?x?xf32>
  } else {
    %row = tile.reduce max %out dim 1 : tensor<64x32xf32> -> tensor<64xf32>
    %rows = tile.broadcast %row dims [1] : tensor<64xf32> -> tensor<64x32xf32>
    tile.store %rows -> %Y[%m0, %c0] : tensor<64x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}
