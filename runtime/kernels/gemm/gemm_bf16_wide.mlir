// bf16 GEMM with f32 accumulation on wide tiles: C[M, N] = A[M, K] · B[K, N].
//
// The same program as gemm_bf16.mlir on a 128x256 tile of C: its two
// warpgroups each compute 64 rows of all 256 columns (cooperative), so each
// byte of A and B brought into shared memory feeds 1.33x the FLOPs of the
// 128x128 tile (L2 traffic 1/85 instead of 1/64 of a byte per FLOP). On
// sm_90a it takes one block per SM (at most 189 registers, 197,632 bytes of
// shared memory for a 4-slot ring; 3 slots where it is compiled together
// with sm_80, whose shared memory holds no more). Launch a grid of
// (ceil(M / 128), ceil(N / 256)) programs; any M, N and K work.
tile.kernel @gemm_bf16_128x256(%A: !tile.view<?x?xbf16>,
                               %B: !tile.view<?x?xbf16>,
                               %C: !tile.view<?x?xbf16>) threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c128 : index
  %n0 = arith.muli %pid_n, %c256 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KB = tile.dim %B, 0 : !tile.view<?x?xbf16>

  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %same_k = arith.cmpi eq, %K, %KB : index
  tag.assume %same_k, "A and B agree on K" : i1

  %sA = tile.alloc_shared : !tile.shared<128x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x256xbf16>
  %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
      -> (tensor<128x256xf32>) {
    tile.copy %A[%m0, %k] -> %sA
        : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
    tile.copy %B[%k, %n0] -> %sB
        : !tile.view<?x?xbf16> -> !tile.shared<64x256xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
    %b = tile.load %sB : !tile.shared<64x256xbf16> -> tensor<64x256xbf16>
    tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
    tile.barrier
    scf.yield %next : tensor<128x256xf32>
  } {tile.pipeline = #tile.pipeline<stages = 4>}
  tag.assert_complete %acc over "k" from %c0 to %K
      : tensor<128x256xf32>, index, index

  %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
  tile.store %out -> %C[%m0, %n0]
      : tensor<128x256xbf16> -> !tile.view<?x?xbf16>
  tile.return
}
