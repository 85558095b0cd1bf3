// bf16 GEMM with f32 accumulation, warp-specialized, in clusters of two
// programs sharing B: C[M, N] = A[M, K] · B[K, N].
//
// gemm_bf16_ws.mlir's kernel launched in clusters of 2 along x: the two
// programs of a cluster compute the 128x256 tiles of C at rows m0 and
// m0 + 128 of the same columns, so they read the same 64x256 tile of B at
// every K step. Each program's producer copies half of it (32 rows) and
// multicasts it to both (`multicast`), so that B crosses L2 once for the
// pair: 1/128 byte of L2 traffic per FLOP instead of 1/85. A slot of B is
// then written by both producers, so neither may refill it before both
// programs' consumers released it: the empty barriers are a cluster array,
// each consumer release arriving in both programs.
//
// tag-check proves, besides gemm_bf16_ws's hand-over and data flow, that
// both programs of a cluster copy the same B window at every K step and
// run the K loop over the same range (the multicast and the cluster
// barriers need it). sm_90a only (its ring exceeds other chips' shared
// memory). Launch a grid of (ceil(M / 128) rounded up to even,
// ceil(N / 256)) programs of 384 threads.
tile.kernel @gemm_bf16_ws_multicast(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                          %C: !tile.view<?x?xbf16>) threads(256) cluster(2) {
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
  // One arrival a phase on the full barrier: the producer's (its copies'
  // bytes counted too, its peer's included). The empty barrier is the
  // cluster's: a phase completes once both programs' consumers released
  // the slot, since either program's multicast refills it in both.
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<4>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<4>
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
      tile.copy %B[%k, %n0] -> %sB[%slot] async multicast
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
