// bf16 GEMM with f32 accumulation: C[M, N] = A[M, K] · B[K, N].
//
// One program instance computes a 128x128 tile of C; launch a grid of
// (ceil(M / 128), ceil(N / 128)) programs. Any M, N and K work: copies pad
// out-of-bounds elements with zeros and the store masks the ragged edges.
// The K loop is written plainly; `#tile.pipeline<stages = 3>` asks
// `tile-pipeline` to turn sA and sB into 3-slot rings fed by async copies.
tile.kernel @gemm_bf16(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                       %C: !tile.view<?x?xbf16>) threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c128 : index
  %n0 = arith.muli %pid_n, %c128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KB = tile.dim %B, 0 : !tile.view<?x?xbf16>

  // Provenance: every element carries its own coordinates.
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %same_k = arith.cmpi eq, %K, %KB : index
  tag.assume %same_k, "A and B agree on K" : i1

  %sA = tile.alloc_shared : !tile.shared<128x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x128xbf16>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
      -> (tensor<128x128xf32>) {
    tile.copy %A[%m0, %k] -> %sA
        : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
    tile.copy %B[%k, %n0] -> %sB
        : !tile.view<?x?xbf16> -> !tile.shared<64x128xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
    %b = tile.load %sB : !tile.shared<64x128xbf16> -> tensor<64x128xbf16>
    // a[i, kk] and b[kk, j] hold the same k, for every i, j and kk.
    tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    // Nobody overwrites sA / sB while another thread still reads them.
    tile.barrier
    scf.yield %next : tensor<128x128xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  // Every element summed each k in [0, K) exactly once.
  tag.assert_complete %acc over "k" from %c0 to %K
      : tensor<128x128xf32>, index, index

  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  // The checker proves the store: element (i, j) carries the (m, n) of
  // C[m0 + i, n0 + j].
  tile.store %out -> %C[%m0, %n0]
      : tensor<128x128xbf16> -> !tile.view<?x?xbf16>
  tile.return
}
