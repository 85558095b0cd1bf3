// bf16 GEMM with f32 accumulation, warp-specialized on the ping-pong
// schedule: C[M, N] = A[M, K] · B[K, N].
//
// Written per 128x128 tile of C for one consumer warpgroup (128 threads,
// both 64-row halves of the tile), with gemm_bf16_ws.mlir's hand-over: a
// producer warpgroup fills a 4-slot ring by TMA onto *full* mbarriers, the
// consumers wait for each slot, multiply and release it through an *empty*
// mbarrier (one warpgroup's arrivals). The kernel is persistent with
// `pingpong = true`: tile-persistent loops each role over the grid's tiles
// and the sm_90a lowering launches two consumer warpgroups that take the
// program's tiles alternately and run their K loops in turn, so that one
// warpgroup's epilogue (converting and storing its 128x128 tile) overlaps
// the other's MMAs; the producer fills the ring for both, tile after tile.
//
// tag-check proves the hand-over over all the program's tiles (the
// consumers' K loops run in tile order, so the protocol is the cooperative
// kernel's; docs/invariants.md). Roles on sm_90a; on sm_80 (shared memory
// for its ring, not AMD's 64 KiB) the roles run interleaved by 128 threads
// (tile-interleave-roles). Launch a grid of (ceil(M / 128), ceil(N / 128))
// tiles; the runtime starts one program of 384 threads per SM (128 on
// sm_80). Any M, N and K work.
tile.kernel @gemm_bf16_ws_pingpong(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                                   %C: !tile.view<?x?xbf16>) threads(128)
    attributes {tile.persistent = #tile.persistent<group = 8, pingpong = true>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c128 : index
  %n0 = arith.muli %pid_n, %c128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KB = tile.dim %B, 0 : !tile.view<?x?xbf16>

  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %same_k = arith.cmpi eq, %K, %KB : index
  tag.assume %same_k, "A and B agree on K" : i1

  %sA = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 4>
  %sB = tile.alloc_shared : !tile.shared<64x128xbf16, stages = 4>
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
          : !tile.view<?x?xbf16> -> !tile.shared<64x128xbf16, stages = 4>
      tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<4>
    }
  } consumer {
    %zero = arith.constant dense<0.000000e+00> : tensor<128x128xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
        -> (tensor<128x128xf32>) {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c4 : index
      %round = arith.divui %n, %c4 : index
      %parity = arith.index_cast %round : index to i1
      tile.mbarrier_wait %full[%slot], parity %parity : !tile.mbarrier<4>
      %a = tile.load %sA[%slot]
          : !tile.shared<128x64xbf16, stages = 4> -> tensor<128x64xbf16>
      %b = tile.load %sB[%slot]
          : !tile.shared<64x128xbf16, stages = 4> -> tensor<64x128xbf16>
      // a[i, kk] and b[kk, j] hold the same k, for every i, j and kk.
      tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
      %next = tile.mma %a, %b, %c
          : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
      tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<4>
      scf.yield %next : tensor<128x128xf32>
    }
    // Every element summed each k in [0, K) exactly once.
    tag.assert_complete %acc over "k" from %c0 to %K
        : tensor<128x128xf32>, index, index
    %out = arith.truncf %acc : tensor<128x128xf32> to tensor<128x128xbf16>
    tile.store %out -> %C[%m0, %n0]
        : tensor<128x128xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}
