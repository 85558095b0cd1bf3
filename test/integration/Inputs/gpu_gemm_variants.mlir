// GEMM variants that exercise other corners of the sm_80 backend than the
// shipped kernel: f16 operands, 4 warps and one warp, a 64x32 tile, K tiles
// of 32, an element-wise epilogue with a scalar argument, and no pipelining.

// f16, 128 threads (a 2 x 2 grid of 32x16 warp tiles), K tile 32, 2 stages:
// C = max(A.B, 0) * alpha.
tile.kernel @gemm_f16_relu(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>,
                           %C: !tile.view<?x?xf16>, %alpha: f32)
    threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : index
  %n0 = arith.muli %pid_n, %c32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sA = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x32xf16>
  %zero = arith.constant dense<0.0> : tensor<64x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<64x32xf32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    tile.copy %B[%k, %n0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    %next = tile.mma %a, %b, %c
        : tensor<64x32xf16>, tensor<32x32xf16> -> tensor<64x32xf32>
    tile.barrier
    scf.yield %next : tensor<64x32xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  %relu = arith.maximumf %acc, %zero : tensor<64x32xf32>
  %alpha_t = tile.splat %alpha : f32 -> tensor<64x32xf32>
  %scaled = arith.mulf %relu, %alpha_t : tensor<64x32xf32>
  %out = arith.truncf %scaled : tensor<64x32xf32> to tensor<64x32xf16>
  tile.store %out -> %C[%m0, %n0] : tensor<64x32xf16> -> !tile.view<?x?xf16>
  tile.return
}

// bf16, one warp, a 32x16 tile, f32 output, no pipelining.
tile.kernel @gemm_warp(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                       %C: !tile.view<?x?xf32>) threads(32) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c32 : index
  %n0 = arith.muli %pid_n, %c16 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %sA = tile.alloc_shared : !tile.shared<32x16xbf16>
  %sB = tile.alloc_shared : !tile.shared<16x16xbf16>
  %zero = arith.constant dense<0.0> : tensor<32x16xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %zero)
      -> (tensor<32x16xf32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<32x16xbf16>
    tile.copy %B[%k, %n0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<16x16xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x16xbf16> -> tensor<32x16xbf16>
    %b = tile.load %sB : !tile.shared<16x16xbf16> -> tensor<16x16xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<32x16xbf16>, tensor<16x16xbf16> -> tensor<32x16xf32>
    tile.barrier
    scf.yield %next : tensor<32x16xf32>
  }
  tile.store %acc -> %C[%m0, %n0] : tensor<32x16xf32> -> !tile.view<?x?xf32>
  tile.return
}

// bf16 "NT": B stored [N, K] (transpose_b, as attention's Q.K^T), 8 warps.
tile.kernel @gemm_nt(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                     %C: !tile.view<?x?xf32>) threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c128 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(n, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %sA = tile.alloc_shared : !tile.shared<128x64xbf16>
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
      -> (tensor<128x64xf32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
    tile.copy %B[%n0, %k] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
    %b = tile.load %sB : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %next = tile.mma %a, %b, %c transpose_b
        : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
    tile.barrier
    scf.yield %next : tensor<128x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.store %acc -> %C[%m0, %n0] : tensor<128x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
