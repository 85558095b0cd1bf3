// bf16 GEMM with f32 accumulation, warp-specialized: C[M, N] = A[M, K] · B[K, N].
//
// One program instance computes a 128x256 tile of C, as gemm_bf16_wide.mlir
// does, with its K loop split into roles (tile.warp_specialize). A producer
// warpgroup of its own (launched after the kernel's 256 threads, which are
// the consumers) fills a 4-slot ring with TMA: for K step n it waits until
// the consumers released slot n mod 4 (its *empty* barrier, phase parity
// (n div 4 + 1) mod 2: the first pass through the ring does not wait),
// copies the A and B tiles into it and arrives on the slot's *full*
// barrier, which completes once both copies have landed. The consumers
// (two warpgroups, 64 rows of all 256 columns each) wait for the full
// barrier (parity (n div 4) mod 2), multiply, and release the slot. No
// barrier of the whole block is in the loop; the producer gives its
// registers up (40 a thread) so that the consumers may take 232.
//
// tag-check proves the hand-over (slots n mod 4 on both sides, the
// parities, every wait paired with its arrival in every iteration) besides
// the data flow; the host runs the two loops interleaved. Roles on sm_90a
// (TMA and mbarriers); its 4-slot ring exceeds the shared memory of the
// other chips, where roles run interleaved (tile-interleave-roles). Launch
// a grid of (ceil(M / 128), ceil(N / 256)) programs of 384 threads; any
// M, N and K work.
tile.kernel @gemm_bf16_ws(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                          %C: !tile.view<?x?xbf16>) threads(256) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
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

  %sA = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 4>
  %sB = tile.alloc_shared : !tile.shared<64x256xbf16, stages = 4>
  // One arrival a phase: the producer's (its copies' bytes counted too),
  // and the consumers' (every consumer thread's, on the GPU).
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<4>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<4>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c64 {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c4 : index
      %round = arith.divui %n, %c4 : index
      %released = arith.addi %round, %c1 : index
      %parity = arith.index_cast %released : index to i1
      tile.mbarrier_wait %empty[%slot], parity %parity : !tile.mbarrier<4>
      tile.copy %A[%m0, %k] -> %sA[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16, stages = 4>
      tile.copy %B[%k, %n0] -> %sB[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<64x256xbf16, stages = 4>
      tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<4>
    }
  } consumer {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
        -> (tensor<128x256xf32>) {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c4 : index
      %round = arith.divui %n, %c4 : index
      %parity = arith.index_cast %round : index to i1
      tile.mbarrier_wait %full[%slot], parity %parity : !tile.mbarrier<4>
      %a = tile.load %sA[%slot]
          : !tile.shared<128x64xbf16, stages = 4> -> tensor<128x64xbf16>
      %b = tile.load %sB[%slot]
          : !tile.shared<64x256xbf16, stages = 4> -> tensor<64x256xbf16>
      // a[i, kk] and b[kk, j] hold the same k, for every i, j and kk.
      tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>
      %next = tile.mma %a, %b, %c
          : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
      tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<4>
      scf.yield %next : tensor<128x256xf32>
    }
    // Every element summed each k in [0, K) exactly once.
    tag.assert_complete %acc over "k" from %c0 to %K
        : tensor<128x256xf32>, index, index
    %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
    tile.store %out -> %C[%m0, %n0]
        : tensor<128x256xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}
