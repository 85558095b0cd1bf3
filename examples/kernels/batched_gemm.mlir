// C[b] = A[b] B[b] for a batch of bf16 matrices, f32 accumulation: A [batch,
// M, K], B [batch, K, N], C [batch, M, N].
//
// batched_gemm: a 64x64 tile of one C[b] a program, K in steps of 32, the
// batch along the grid's z; launch (ceil(M / 64), ceil(N / 64), batch)
// programs. batched_gemm_naive, its reference: 32x32 tiles, K in steps of
// 16; launch (ceil(M / 32), ceil(N / 32), batch).
tile.kernel @batched_gemm(%A: !tile.view<?x?x?xbf16>,
                          %B: !tile.view<?x?x?xbf16>,
                          %C: !tile.view<?x?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %pm, %c64 : index
  %n0 = arith.muli %pn, %c64 : index
  %K = tile.dim %A, 2 : !tile.view<?x?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<64x64xf32>) {
    %a = tile.load %A[%b, %m0, %k] : !tile.view<?x?x?xbf16> -> tensor<64x32xbf16>
    %bt = tile.load %B[%b, %k, %n0] : !tile.view<?x?x?xbf16> -> tensor<32x64xbf16>
    %next = tile.mma %a, %bt, %c
        : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  %y = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %y -> %C[%b, %m0, %n0] : tensor<64x64xbf16> -> !tile.view<?x?x?xbf16>
  tile.return
}

tile.kernel @batched_gemm_naive(%A: !tile.view<?x?x?xbf16>,
                                %B: !tile.view<?x?x?xbf16>,
                                %C: !tile.view<?x?x?xbf16>) threads(64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %b = tile.program_id z
  %m0 = arith.muli %pm, %c32 : index
  %n0 = arith.muli %pn, %c32 : index
  %K = tile.dim %A, 2 : !tile.view<?x?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %zero)
      -> (tensor<32x32xf32>) {
    %a = tile.load %A[%b, %m0, %k] : !tile.view<?x?x?xbf16> -> tensor<32x16xbf16>
    %bt = tile.load %B[%b, %k, %n0] : !tile.view<?x?x?xbf16> -> tensor<16x32xbf16>
    %next = tile.mma %a, %bt, %c
        : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  %y = arith.truncf %acc : tensor<32x32xf32> to tensor<32x32xbf16>
  tile.store %y -> %C[%b, %m0, %n0] : tensor<32x32xbf16> -> !tile.view<?x?x?xbf16>
  tile.return
}
