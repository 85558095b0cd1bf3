// LayerNorm over rows of bf16, as a user writes it: Y[r, :] = (X[r, :] -
// mean) / sqrt(var + 1e-5) * G + B, statistics in f32, for rows of any
// length D.
//
// layernorm: 4 rows a program, sums of x and x^2 in one pass over chunks
// of 256 (var = E[x^2] - mean^2), then a second pass writing Y; launch
// ceil(rows / 4) programs. layernorm_naive, its reference: one row a
// program, the mean first, then the variance of the centred values
// (E[(x - mean)^2]), over chunks of 64; launch `rows` programs.
tile.kernel @layernorm(%X: !tile.view<?x?xbf16>, %G: !tile.view<?xbf16>,
                       %B: !tile.view<?xbf16>, %Y: !tile.view<?x?xbf16>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c4 : index
  %D = tile.dim %X, 1 : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<4xf32>
  %sums:2 = scf.for %k = %c0 to %D step %c256
      iter_args(%s1 = %zero, %s2 = %zero) -> (tensor<4xf32>, tensor<4xf32>) {
    %xh = tile.load %X[%r0, %k] : !tile.view<?x?xbf16> -> tensor<4x256xbf16>
    %x = arith.extf %xh : tensor<4x256xbf16> to tensor<4x256xf32>
    %sq = arith.mulf %x, %x : tensor<4x256xf32>
    %p1 = tile.reduce sum %x dim 1 : tensor<4x256xf32> -> tensor<4xf32>
    %p2 = tile.reduce sum %sq dim 1 : tensor<4x256xf32> -> tensor<4xf32>
    %n1 = arith.addf %s1, %p1 : tensor<4xf32>
    %n2 = arith.addf %s2, %p2 : tensor<4xf32>
    scf.yield %n1, %n2 : tensor<4xf32>, tensor<4xf32>
  }
  %d64 = arith.index_cast %D : index to i64
  %df = arith.sitofp %d64 : i64 to f32
  %n = tile.splat %df : f32 -> tensor<4xf32>
  %mean = arith.divf %sums#0, %n : tensor<4xf32>
  %meansq = arith.divf %sums#1, %n : tensor<4xf32>
  %m2 = arith.mulf %mean, %mean : tensor<4xf32>
  %var = arith.subf %meansq, %m2 : tensor<4xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<4xf32>
  %ve = arith.addf %var, %eps : tensor<4xf32>
  %inv = math.rsqrt %ve : tensor<4xf32>
  %meanb = tile.broadcast %mean dims [1] : tensor<4xf32> -> tensor<4x256xf32>
  %invb = tile.broadcast %inv dims [1] : tensor<4xf32> -> tensor<4x256xf32>
  scf.for %k = %c0 to %D step %c256 {
    %xh = tile.load %X[%r0, %k] : !tile.view<?x?xbf16> -> tensor<4x256xbf16>
    %x = arith.extf %xh : tensor<4x256xbf16> to tensor<4x256xf32>
    %gh = tile.load %G[%k] : !tile.view<?xbf16> -> tensor<256xbf16>
    %bh = tile.load %B[%k] : !tile.view<?xbf16> -> tensor<256xbf16>
    %g = arith.extf %gh : tensor<256xbf16> to tensor<256xf32>
    %b = arith.extf %bh : tensor<256xbf16> to tensor<256xf32>
    %gb = tile.broadcast %g dims [0] : tensor<256xf32> -> tensor<4x256xf32>
    %bb = tile.broadcast %b dims [0] : tensor<256xf32> -> tensor<4x256xf32>
    %c = arith.subf %x, %meanb : tensor<4x256xf32>
    %xn = arith.mulf %c, %invb : tensor<4x256xf32>
    %scaled = arith.mulf %xn, %gb : tensor<4x256xf32>
    %y = arith.addf %scaled, %bb : tensor<4x256xf32>
    %yh = arith.truncf %y : tensor<4x256xf32> to tensor<4x256xbf16>
    tile.store %yh -> %Y[%r0, %k] : tensor<4x256xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}

tile.kernel @layernorm_naive(%X: !tile.view<?x?xbf16>, %G: !tile.view<?xbf16>,
                             %B: !tile.view<?xbf16>, %Y: !tile.view<?x?xbf16>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %row = tile.program_id x
  %D = tile.dim %X, 1 : !tile.view<?x?xbf16>
  %d64 = arith.index_cast %D : index to i64
  %df = arith.sitofp %d64 : i64 to f32
  %n = tile.splat %df : f32 -> tensor<1xf32>
  %zero = arith.constant dense<0.0> : tensor<1xf32>
  %sum = scf.for %k = %c0 to %D step %c64 iter_args(%acc = %zero)
      -> (tensor<1xf32>) {
    %xh = tile.load %X[%row, %k] : !tile.view<?x?xbf16> -> tensor<1x64xbf16>
    %x = arith.extf %xh : tensor<1x64xbf16> to tensor<1x64xf32>
    %part = tile.reduce sum %x dim 1 : tensor<1x64xf32> -> tensor<1xf32>
    %next = arith.addf %acc, %part : tensor<1xf32>
    scf.yield %next : tensor<1xf32>
  }
  %mean = arith.divf %sum, %n : tensor<1xf32>
  %meanb = tile.broadcast %mean dims [1] : tensor<1xf32> -> tensor<1x64xf32>
  // Elements past D read as 0: their (0 - mean)^2 is left out.
  %cols = tile.iota : tensor<64xindex>
  %colsb = tile.broadcast %cols dims [0] : tensor<64xindex> -> tensor<1x64xindex>
  %zeros = arith.constant dense<0.0> : tensor<1x64xf32>
  %sq = scf.for %k = %c0 to %D step %c64 iter_args(%acc = %zero)
      -> (tensor<1xf32>) {
    %xh = tile.load %X[%row, %k] : !tile.view<?x?xbf16> -> tensor<1x64xbf16>
    %x = arith.extf %xh : tensor<1x64xbf16> to tensor<1x64xf32>
    %c = arith.subf %x, %meanb : tensor<1x64xf32>
    %c2 = arith.mulf %c, %c : tensor<1x64xf32>
    %kb = tile.splat %k : index -> tensor<1x64xindex>
    %col = arith.addi %colsb, %kb : tensor<1x64xindex>
    %Db = tile.splat %D : index -> tensor<1x64xindex>
    %inside = arith.cmpi ult, %col, %Db : tensor<1x64xindex>
    %kept = tile.select %inside, %c2, %zeros : tensor<1x64xi1>, tensor<1x64xf32>
    %part = tile.reduce sum %kept dim 1 : tensor<1x64xf32> -> tensor<1xf32>
    %next = arith.addf %acc, %part : tensor<1xf32>
    scf.yield %next : tensor<1xf32>
  }
  %var = arith.divf %sq, %n : tensor<1xf32>
  %eps = arith.constant dense<1.0e-5> : tensor<1xf32>
  %ve = arith.addf %var, %eps : tensor<1xf32>
  %root = math.sqrt %ve : tensor<1xf32>
  %invb1 = tile.broadcast %root dims [1] : tensor<1xf32> -> tensor<1x64xf32>
  scf.for %k = %c0 to %D step %c64 {
    %xh = tile.load %X[%row, %k] : !tile.view<?x?xbf16> -> tensor<1x64xbf16>
    %x = arith.extf %xh : tensor<1x64xbf16> to tensor<1x64xf32>
    %gh = tile.load %G[%k] : !tile.view<?xbf16> -> tensor<64xbf16>
    %bh = tile.load %B[%k] : !tile.view<?xbf16> -> tensor<64xbf16>
    %g = arith.extf %gh : tensor<64xbf16> to tensor<64xf32>
    %b = arith.extf %bh : tensor<64xbf16> to tensor<64xf32>
    %gb = tile.broadcast %g dims [0] : tensor<64xf32> -> tensor<1x64xf32>
    %bb = tile.broadcast %b dims [0] : tensor<64xf32> -> tensor<1x64xf32>
    %c = arith.subf %x, %meanb : tensor<1x64xf32>
    %xn = arith.divf %c, %invb1 : tensor<1x64xf32>
    %scaled = arith.mulf %xn, %gb : tensor<1x64xf32>
    %y = arith.addf %scaled, %bb : tensor<1x64xf32>
    %yh = arith.truncf %y : tensor<1x64xf32> to tensor<1x64xbf16>
    tile.store %yh -> %Y[%row, %k] : tensor<1x64xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}
