// Reductions whose reduced dimension spans warps: each warp combines its
// lanes by shuffles, then the warps combine through shared memory.
// Column sums of a 64x32 i32 tile by 4 warps (16 rows each): Z[j] = sum_i
// X[i, j].
tile.kernel @column_sums_warps(%X: !tile.view<?x?xi32>, %Z: !tile.view<?xi32>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %j0 = arith.muli %pid, %c32 : index
  %x = tile.load %X[%c0, %j0] : !tile.view<?x?xi32> -> tensor<64x32xi32>
  %s = tile.reduce sum %x dim 0 : tensor<64x32xi32> -> tensor<32xi32>
  tile.store %s -> %Z[%j0] : tensor<32xi32> -> !tile.view<?xi32>
  tile.return
}

// Column maxima of 64x64 f32 tiles in a loop over row blocks (the scratch
// buffer is reused every iteration): M[j] = max_i X[i, j].
tile.kernel @column_max_loop(%X: !tile.view<?x?xf32>, %M: !tile.view<?x?xf32>)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %j0 = arith.muli %pid, %c64 : index
  %rows = tile.dim %X, 0 : !tile.view<?x?xf32>
  %low = arith.constant dense<-3.0e38> : tensor<64xf32>
  %m = scf.for %i = %c0 to %rows step %c64 iter_args(%acc = %low) -> (tensor<64xf32>) {
    %x = tile.load %X[%i, %j0] pad(-3.0e38 : f32) : !tile.view<?x?xf32> -> tensor<64x64xf32>
    %r = tile.reduce max %x dim 0 : tensor<64x64xf32> -> tensor<64xf32>
    %n = arith.maximumf %acc, %r : tensor<64xf32>
    scf.yield %n : tensor<64xf32>
  }
  %m2 = tile.broadcast %m dims [0] : tensor<64xf32> -> tensor<1x64xf32>
  tile.store %m2 -> %M[%c0, %j0] : tensor<1x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// One int8 scale for a whole 64x64 tile that 4 warps hold.
tile.kernel @quant_tile(%X: !tile.view<?x?xbf16>, %Q: !tile.view<?x?xi8>,
                        %S: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  %q, %s = tile.quant %x group [64, 64]
      : tensor<64x64xbf16> -> tensor<64x64xi8>, tensor<1x1xf32>
  tile.store %q -> %Q[%r0, %c0] : tensor<64x64xi8> -> !tile.view<?x?xi8>
  tile.store %s -> %S[%pid, %c0] : tensor<1x1xf32> -> !tile.view<?x?xf32>
  tile.return
}
