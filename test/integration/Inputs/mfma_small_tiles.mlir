// 16-row tiles (a decode step's queries, a small batch): MMAs with M = 16,
// which AMD's 32x32 MFMAs cannot take, run on the 16x16 ones.

// bf16, one wave of 64 threads (two warps on NVIDIA), a 16x64 tile, K
// tiles of 32.
tile.kernel @gemm_rows16(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                         %C: !tile.view<?x?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c16 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %sA = tile.alloc_shared : !tile.shared<16x32xbf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<16x64xf32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<16x32xbf16>
    tile.copy %B[%k, %n0] -> %sB : !tile.view<?x?xbf16> -> !tile.shared<32x64xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<16x32xbf16> -> tensor<16x32xbf16>
    %b = tile.load %sB : !tile.shared<32x64xbf16> -> tensor<32x64xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<16x32xbf16>, tensor<32x64xbf16> -> tensor<16x64xf32>
    tile.barrier
    scf.yield %next : tensor<16x64xf32>
  }
  tile.store %acc -> %C[%m0, %n0] : tensor<16x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// int8 into i32, four waves on a 32x64 tile: each wave a 16x32 part, too
// small for a 32x32 block per wave.
tile.kernel @gemm_i8_waves(%A: !tile.view<?x?xi8>, %B: !tile.view<?x?xi8>,
                           %C: !tile.view<?x?xi32>) threads(256) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c32 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xi8>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xi8>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xi8>
  %sA = tile.alloc_shared : !tile.shared<32x64xi8>
  %sB = tile.alloc_shared : !tile.shared<64x64xi8>
  %zero = arith.constant dense<0> : tensor<32x64xi32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
      -> (tensor<32x64xi32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xi8> -> !tile.shared<32x64xi8>
    tile.copy %B[%k, %n0] -> %sB : !tile.view<?x?xi8> -> !tile.shared<64x64xi8>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x64xi8> -> tensor<32x64xi8>
    %b = tile.load %sB : !tile.shared<64x64xi8> -> tensor<64x64xi8>
    %next = tile.mma %a, %b, %c
        : tensor<32x64xi8>, tensor<64x64xi8> -> tensor<32x64xi32>
    tile.barrier
    scf.yield %next : tensor<32x64xi32>
  }
  tile.store %acc -> %C[%m0, %n0] : tensor<32x64xi32> -> !tile.view<?x?xi32>
  tile.return
}

// fp8 e4m3 into f32 on one wave: gfx942's v_mfma_f32_16x16x32_fp8_fp8
// (gfx90a multiplies the codes as bf16 on its 16x16x16 MFMA).
tile.kernel @gemm_fp8_rows16(%A: !tile.view<?x?xf8E4M3FN>, %B: !tile.view<?x?xf8E4M3FN>,
                         %C: !tile.view<?x?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c16 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf8E4M3FN>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf8E4M3FN>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf8E4M3FN>
  %sA = tile.alloc_shared : !tile.shared<16x32xf8E4M3FN>
  %sB = tile.alloc_shared : !tile.shared<32x64xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<16x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<16x64xf32>) {
    tile.copy %A[%m0, %k] -> %sA : !tile.view<?x?xf8E4M3FN> -> !tile.shared<16x32xf8E4M3FN>
    tile.copy %B[%k, %n0] -> %sB : !tile.view<?x?xf8E4M3FN> -> !tile.shared<32x64xf8E4M3FN>
    tile.barrier
    %a = tile.load %sA : !tile.shared<16x32xf8E4M3FN> -> tensor<16x32xf8E4M3FN>
    %b = tile.load %sB : !tile.shared<32x64xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
    %next = tile.mma %a, %b, %c
        : tensor<16x32xf8E4M3FN>, tensor<32x64xf8E4M3FN> -> tensor<16x64xf32>
    tile.barrier
    scf.yield %next : tensor<16x64xf32>
  }
  tile.store %acc -> %C[%m0, %n0] : tensor<16x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
