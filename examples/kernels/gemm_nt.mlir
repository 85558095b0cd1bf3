// C = A Bᵀ with B stored [N, K] (as a linear layer's weight), bf16 with f32
// accumulation: A [M, K], B [N, K], C [M, N].
//
// gemm_nt: a 64x64 tile of C a program, K in steps of 32, B's tiles read
// [N, K] and multiplied transposed (tile.mma transpose_b); launch
// (ceil(M / 64), ceil(N / 64)) programs. gemm_nt_naive, its reference:
// dot products, no MMA: one row of C and 32 of its columns a program, each
// element the sum over K of A's row times B's row; launch
// (M, ceil(N / 32)).
tile.kernel @gemm_nt(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                     %C: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : index
  %n0 = arith.muli %pn, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<64x64xf32>) {
    %a = tile.load %A[%m0, %k] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %b = tile.load %B[%n0, %k] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %next = tile.mma %a, %b, %c transpose_b
        : tensor<64x32xbf16>, tensor<64x32xbf16> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  %y = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %y -> %C[%m0, %n0] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}

tile.kernel @gemm_nt_naive(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                           %C: !tile.view<?x?xbf16>) threads(64) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = tile.program_id x
  %pn = tile.program_id y
  %n0 = arith.muli %pn, %c32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<32xf32>) {
    %a = tile.load %A[%m, %k] : !tile.view<?x?xbf16> -> tensor<1x32xbf16>
    %b = tile.load %B[%n0, %k] : !tile.view<?x?xbf16> -> tensor<32x32xbf16>
    %af = arith.extf %a : tensor<1x32xbf16> to tensor<1x32xf32>
    %bf = arith.extf %b : tensor<32x32xbf16> to tensor<32x32xf32>
    %arow = tile.reduce sum %af dim 0 : tensor<1x32xf32> -> tensor<32xf32>
    %ab = tile.broadcast %arow dims [0] : tensor<32xf32> -> tensor<32x32xf32>
    %prod = arith.mulf %ab, %bf : tensor<32x32xf32>
    %dots = tile.reduce sum %prod dim 1 : tensor<32x32xf32> -> tensor<32xf32>
    %next = arith.addf %c, %dots : tensor<32xf32>
    scf.yield %next : tensor<32xf32>
  }
  %row = tile.broadcast %acc dims [0] : tensor<32xf32> -> tensor<1x32xf32>
  %y = arith.truncf %row : tensor<1x32xf32> to tensor<1x32xbf16>
  tile.store %y -> %C[%m, %n0] : tensor<1x32xbf16> -> !tile.view<?x?xbf16>
  tile.return
}
