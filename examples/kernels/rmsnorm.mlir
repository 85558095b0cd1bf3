// RMSNorm, as a user writes it: Y[r, :] = X[r, :] * W / sqrt(mean(X[r, :]^2)
// + 1e-6), for any number of rows and any row length D.
//
// rmsnorm: 4 rows a program, the row walked in chunks of 256 (elements
// past D read as 0 and are not written); launch ceil(rows / 4) programs.
// rmsnorm_naive, its reference: one row a program, chunks of 64; launch
// `rows` programs.
tile.kernel @rmsnorm(%X: !tile.view<?x?xf32>, %W: !tile.view<?xf32>,
                     %Y: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c4 : index
  %D = tile.dim %X, 1 : !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %sum = scf.for %k = %c0 to %D step %c256 iter_args(%acc = %zero)
      -> (tensor<4xf32>) {
    %x = tile.load %X[%r0, %k] : !tile.view<?x?xf32> -> tensor<4x256xf32>
    %sq = arith.mulf %x, %x : tensor<4x256xf32>
    %part = tile.reduce sum %sq dim 1 : tensor<4x256xf32> -> tensor<4xf32>
    %next = arith.addf %acc, %part : tensor<4xf32>
    scf.yield %next : tensor<4xf32>
  }
  %d64 = arith.index_cast %D : index to i64
  %df = arith.sitofp %d64 : i64 to f32
  %n = tile.splat %df : f32 -> tensor<4xf32>
  %mean = arith.divf %sum, %n : tensor<4xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<4xf32>
  %var = arith.addf %mean, %eps : tensor<4xf32>
  %inv = math.rsqrt %var : tensor<4xf32>
  %invb = tile.broadcast %inv dims [1] : tensor<4xf32> -> tensor<4x256xf32>
  scf.for %k = %c0 to %D step %c256 {
    %x = tile.load %X[%r0, %k] : !tile.view<?x?xf32> -> tensor<4x256xf32>
    %w = tile.load %W[%k] : !tile.view<?xf32> -> tensor<256xf32>
    %wb = tile.broadcast %w dims [0] : tensor<256xf32> -> tensor<4x256xf32>
    %xn = arith.mulf %x, %invb : tensor<4x256xf32>
    %y = arith.mulf %xn, %wb : tensor<4x256xf32>
    tile.store %y -> %Y[%r0, %k] : tensor<4x256xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

tile.kernel @rmsnorm_naive(%X: !tile.view<?x?xf32>, %W: !tile.view<?xf32>,
                           %Y: !tile.view<?x?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %row = tile.program_id x
  %D = tile.dim %X, 1 : !tile.view<?x?xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %sum = scf.for %k = %c0 to %D step %c64 iter_args(%acc = %zero)
      -> (tensor<1xf32>) {
    %x = tile.load %X[%row, %k] : !tile.view<?x?xf32> -> tensor<1x64xf32>
    %sq = arith.mulf %x, %x : tensor<1x64xf32>
    %part = tile.reduce sum %sq dim 1 : tensor<1x64xf32> -> tensor<1xf32>
    %next = arith.addf %acc, %part : tensor<1xf32>
    scf.yield %next : tensor<1xf32>
  }
  %d64 = arith.index_cast %D : index to i64
  %df = arith.sitofp %d64 : i64 to f32
  %n = tile.splat %df : f32 -> tensor<1xf32>
  %mean = arith.divf %sum, %n : tensor<1xf32>
  %eps = arith.constant dense<1.0e-6> : tensor<1xf32>
  %var = arith.addf %mean, %eps : tensor<1xf32>
  %root = math.sqrt %var : tensor<1xf32>
  %one = arith.constant dense<1.0> : tensor<1xf32>
  %inv = arith.divf %one, %root : tensor<1xf32>
  %invb = tile.broadcast %inv dims [1] : tensor<1xf32> -> tensor<1x64xf32>
  scf.for %k = %c0 to %D step %c64 {
    %x = tile.load %X[%row, %k] : !tile.view<?x?xf32> -> tensor<1x64xf32>
    %w = tile.load %W[%k] : !tile.view<?xf32> -> tensor<64xf32>
    %wb = tile.broadcast %w dims [0] : tensor<64xf32> -> tensor<1x64xf32>
    %xn = arith.mulf %x, %invb : tensor<1x64xf32>
    %y = arith.mulf %xn, %wb : tensor<1x64xf32>
    tile.store %y -> %Y[%row, %k] : tensor<1x64xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}
