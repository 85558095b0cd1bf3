// Weight-only int4 GEMM: C[M, N] = A[M, K] · dequant(W)[K, N].
//
// W holds int4 codes two per byte along a row, low nibble first (what
// tessera::packInt4 writes), seen as [K, ceil(N / 2), 2]: nibble p of byte
// j is column 2j + p. S holds one f16 scale per group of 128 consecutive k
// in each column: S[k floordiv 128, n]. BK = 128 equals the group size, so
// every K step dequantizes with exactly one row of scales. Launch
// (ceil(M / 128), ceil(N / 128)) programs.
tile.kernel @gemm_w4a16(%A: !tile.view<?x?xbf16>, %W: !tile.view<?x?x2xi4>,
                        %S: !tile.view<?x?xf16>, %C: !tile.view<?x?xbf16>)
    threads(256) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c128 : index
  %n0 = arith.muli %pid_n, %c128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KW = tile.dim %W, 0 : !tile.view<?x?x2xi4>
  %b0 = arith.divui %n0, %c2 : index

  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  // Each weight carries its column (the packing order: byte d1, nibble d2
  // is column 2 * d1 + d2) and the scale group of its row.
  tag.bind %W as "W"(k, n, g) = (d0, d1, d2) -> (d0, d1 * 2 + d2, d0 floordiv 128)
      : !tile.view<?x?x2xi4>
  tag.bind %S as "S"(g, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %same_k = arith.cmpi eq, %K, %KW : index
  tag.assume %same_k, "A and W agree on K" : i1

  %sA = tile.alloc_shared : !tile.shared<128x128xbf16>
  %sW = tile.alloc_shared : !tile.shared<128x64x2xi4>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c128 iter_args(%c = %zero)
      -> (tensor<128x128xf32>) {
    tile.copy %A[%m0, %k] -> %sA
        : !tile.view<?x?xbf16> -> !tile.shared<128x128xbf16>
    tile.copy %W[%k, %b0, %c0] -> %sW
        : !tile.view<?x?x2xi4> -> !tile.shared<128x64x2xi4>
    %g = arith.divui %k, %c128 : index
    %scales = tile.load %S[%g, %n0]
        : !tile.view<?x?xf16> -> tensor<1x128xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<128x128xbf16> -> tensor<128x128xbf16>
    %packed = tile.load %sW
        : !tile.shared<128x64x2xi4> -> tensor<128x64x2xi4>
    %codes = tile.unpack %packed dim 1 order [0, 1]
        : tensor<128x64x2xi4> -> tensor<128x128xi4>
    // Every code is the one the runtime packed for its (k, n).
    tag.assert_eq %codes[(d0, d1)[s0, s1] -> (d0, d1)](k, n),
                  %W[(d0, d1)[s0, s1]
                       -> (d0 + s0, (d1 + s1) floordiv 2, (d1 + s1) mod 2)](k, n)
        captures(%k, %n0) : tensor<128x128xi4>, !tile.view<?x?x2xi4>
    // Every code is scaled by the scale of its own group and column.
    tag.assert_eq %codes[(d0, d1) -> (d0, d1)](g, n),
                  %scales[(d0, d1) -> (d0 floordiv 128, d1)](g, n)
        : tensor<128x128xi4>, tensor<1x128xf16>
    %w = tile.dequant %codes, %scales group [128, 1]
        : tensor<128x128xi4>, tensor<1x128xf16> -> tensor<128x128xbf16>
    tag.assert_contract %a, %w : tensor<128x128xbf16>, tensor<128x128xbf16>
    %next = tile.mma %a, %w, %c
        : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
    tile.barrier
    scf.yield %next : tensor<128x128xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tag.assert_complete %acc over "k" from %c0 to %K
      : tensor<128x128xf32>, index, index

  %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
  // The checker proves the store: element (i, j) carries the (m, n) of
  // C[m0 + i, n0 + j].
  tile.store %out -> %C[%m0, %n0]
      : tensor<128x128xbf16> -> !tile.view<?x?xbf16>
  tile.return
}
