// Kernels whose tiles are needed in two layouts: tile-assign-layouts
// places tile.convert_layout ops, lowered through shared memory.

// G = sum over 64-column blocks k of X[:, k] X[:, k]^T for a 64-row block
// of X: each block is the MMA's A operand and, transposed, its B operand
// (two layouts), converted once per loop iteration.
tile.kernel @gram(%X: !tile.view<?x?xbf16>, %G: !tile.view<?x?xf32>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %cols = tile.dim %X, 1 : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %g = scf.for %k = %c0 to %cols step %c64 iter_args(%acc = %zero)
      -> (tensor<64x64xf32>) {
    %x = tile.load %X[%r0, %k] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %next = tile.mma %x, %x, %acc transpose_b
        : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  tile.store %g -> %G[%r0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// D = E (A B wrapped to int8), in exact integer arithmetic: the first
// product (an accumulator) becomes the second's B operand.
tile.kernel @chained_int8(%A: !tile.view<?x?xi8>, %B: !tile.view<?x?xi8>,
                          %E: !tile.view<?x?xi8>, %D: !tile.view<?x?xi32>)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xi8> -> tensor<64x64xi8>
  %b = tile.load %B[%c0, %c0] : !tile.view<?x?xi8> -> tensor<64x64xi8>
  %e = tile.load %E[%r0, %c0] : !tile.view<?x?xi8> -> tensor<64x64xi8>
  %zero = arith.constant dense<0> : tensor<64x64xi32>
  %c = tile.mma %a, %b, %zero
      : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  %c8 = arith.trunci %c : tensor<64x64xi32> to tensor<64x64xi8>
  %d = tile.mma %e, %c8, %zero
      : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
  tile.store %d -> %D[%r0, %c0] : tensor<64x64xi32> -> !tile.view<?x?xi32>
  tile.return
}
