// bf16 GEMM with f32 accumulation, warp-specialized, with its epilogue
// through shared memory and a TMA store: C[M, N] = A[M, K] · B[K, N].
//
// The K loop is gemm_bf16_ws.mlir's (a producer warpgroup filling a ring by
// TMA, two consumer warpgroups multiplying 128x256 tiles), on a 3-slot ring
// so that the 64 KiB result buffer fits beside it (208 KiB in all). The
// consumers convert the accumulator to bf16, store it into the buffer (laid
// out as TMA reads it), meet at their barrier and copy the buffer out with
// one bulk tensor store per 128-byte panel (tile.copy_out ... async), which
// clips the tile at the edges of C. The copy is waited for only before the
// next epilogue rewrites the buffer: made persistent (tile-persistent), a
// program's store of one tile overlaps the next tile's K loop.
//
// tag-check proves the hand-over, the data flow and that no epilogue
// rewrites the buffer before the previous copy out has read it. sm_90a
// only. Launch a grid of (ceil(M / 128), ceil(N / 256)) programs of 384
// threads; any M, N and K work.
tile.kernel @gemm_bf16_ws_tma_store(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                                    %C: !tile.view<?x?xbf16>) threads(256) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
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

  %sA = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 3>
  %sB = tile.alloc_shared : !tile.shared<64x256xbf16, stages = 3>
  // One arrival a phase: the producer's (its copies' bytes counted too),
  // and the consumers' (every consumer thread's, on the GPU).
  %sC = tile.alloc_shared : !tile.shared<128x256xbf16>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c64 {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c3 : index
      %round = arith.divui %n, %c3 : index
      %released = arith.addi %round, %c1 : index
      %parity = arith.index_cast %released : index to i1
      tile.mbarrier_wait %empty[%slot], parity %parity : !tile.mbarrier<3>
      tile.copy %A[%m0, %k] -> %sA[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16, stages = 3>
      tile.copy %B[%k, %n0] -> %sB[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<64x256xbf16, stages = 3>
      tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
    }
  } consumer {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x256xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
        -> (tensor<128x256xf32>) {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c3 : index
      %round = arith.divui %n, %c3 : index
      %parity = arith.index_cast %round : index to i1
      tile.mbarrier_wait %full[%slot], parity %parity : !tile.mbarrier<3>
      %a = tile.load %sA[%slot]
          : !tile.shared<128x64xbf16, stages = 3> -> tensor<128x64xbf16>
      %b = tile.load %sB[%slot]
          : !tile.shared<64x256xbf16, stages = 3> -> tensor<64x256xbf16>
      // a[i, kk] and b[kk, j] hold the same k, for every i, j and kk.
      tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x256xbf16>
      %next = tile.mma %a, %b, %c
          : tensor<128x64xbf16>, tensor<64x256xbf16> -> tensor<128x256xf32>
      tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
      scf.yield %next : tensor<128x256xf32>
    }
    // Every element summed each k in [0, K) exactly once.
    tag.assert_complete %acc over "k" from %c0 to %K
        : tensor<128x256xf32>, index, index
    %out = arith.truncf %acc : tensor<128x256xf32> to tensor<128x256xbf16>
    // The previous tile's copy out (a persistent kernel's) has read %sC.
    tile.async_wait 0
    tile.barrier
    tile.store %out -> %sC : tensor<128x256xbf16> -> !tile.shared<128x256xbf16>
    tile.barrier
    tile.copy_out %sC -> %C[%m0, %n0] async
        : !tile.shared<128x256xbf16> -> !tile.view<?x?xbf16>
    tile.async_commit
  }
  tile.return
}
