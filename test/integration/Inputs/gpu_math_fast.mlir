// The hardware's approximations (fastmath<afn>): Y[i] = op_i(X) for exp,
// exp2, log, log2, rsqrt, sqrt, sin, cos and tanh (the logarithms and roots
// on |x| + 1/2). AMD has no tanh instruction: 1 - 2 / (e^(2x) + 1) from
// v_exp_f32 and v_rcp_f32 (a series near 0).
tile.kernel @math_fast(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %half = arith.constant dense<0.5> : tensor<8x64xf32>
  %ax = math.absf %x : tensor<8x64xf32>
  %p = arith.addf %ax, %half : tensor<8x64xf32>
  %exp = math.exp %x fastmath<afn> : tensor<8x64xf32>
  %i0 = arith.constant 0 : index
  tile.store %exp -> %Y[%i0, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %exp2 = math.exp2 %x fastmath<afn> : tensor<8x64xf32>
  %i1 = arith.constant 1 : index
  tile.store %exp2 -> %Y[%i1, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %log = math.log %p fastmath<afn> : tensor<8x64xf32>
  %i2 = arith.constant 2 : index
  tile.store %log -> %Y[%i2, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %log2 = math.log2 %p fastmath<afn> : tensor<8x64xf32>
  %i3 = arith.constant 3 : index
  tile.store %log2 -> %Y[%i3, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %rsqrt = math.rsqrt %p fastmath<afn> : tensor<8x64xf32>
  %i4 = arith.constant 4 : index
  tile.store %rsqrt -> %Y[%i4, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %sqrt = math.sqrt %p fastmath<afn> : tensor<8x64xf32>
  %i5 = arith.constant 5 : index
  tile.store %sqrt -> %Y[%i5, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %sin = math.sin %x fastmath<afn> : tensor<8x64xf32>
  %i6 = arith.constant 6 : index
  tile.store %sin -> %Y[%i6, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %cos = math.cos %x fastmath<afn> : tensor<8x64xf32>
  %i7 = arith.constant 7 : index
  tile.store %cos -> %Y[%i7, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %tanh = math.tanh %x fastmath<afn> : tensor<8x64xf32>
  %i8 = arith.constant 8 : index
  tile.store %tanh -> %Y[%i8, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  tile.return
}
