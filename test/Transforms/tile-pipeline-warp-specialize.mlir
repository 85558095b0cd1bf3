// RUN: tessera-opt %s --split-input-file --tile-pipeline | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-pipeline --tag-check -o /dev/null
// RUN: tessera-opt %s --split-input-file --tile-pipeline=chip=sm_80 | FileCheck %s --check-prefix=SM80
// A loop asking for warp specialization becomes a tile.warp_specialize on
// sm_90a (the default chip): the producer waits for each slot's release,
// fills it asynchronously and arrives on its full barrier; the consumers
// run the loop and the epilogue, waiting for each fill and releasing the
// slot; the loop's barriers go. tag-check proves the result. Without TMA
// (sm_80) the loop is pipelined as without the request.

// CHECK-LABEL: tile.kernel @gemm
// CHECK: %[[RA:.*]] = tile.alloc_shared : !tile.shared<64x32xf16, stages = 3>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.shared<32x64xf16, stages = 3>
// CHECK: %[[FULL:.*]] = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
// CHECK: %[[EMPTY:.*]] = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
// CHECK: tile.warp_specialize registers(40, 232) producer {
// CHECK:   scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:     %[[S:.*]] = arith.remui %{{.*}}, %{{.*}} : index
// CHECK:     %[[R:.*]] = arith.divui
// CHECK:     %[[R1:.*]] = arith.addi %[[R]], %{{.*}} : index
// CHECK:     %[[P:.*]] = arith.index_cast %[[R1]] : index to i1
// CHECK:     tile.mbarrier_wait %[[EMPTY]][%[[S]]], parity %[[P]]
// CHECK:     tile.copy %{{.*}}[%{{.*}}, %[[K]]] -> %[[RA]][%[[S]]] async
// CHECK:     tile.copy %{{.*}}[%[[K]], %{{.*}}] -> %[[RB]][%[[S]]] async
// CHECK-NOT: tile.async_commit
// CHECK:     tile.mbarrier_arrive %[[FULL]][%[[S]]]
// CHECK: } consumer {
// CHECK:   scf.for
// CHECK:     tile.mbarrier_wait %[[FULL]]
// CHECK-NOT: tile.barrier
// CHECK:     tile.load %[[RA]]
// CHECK:     tile.load %[[RB]]
// CHECK:     tile.mma
// CHECK:     tile.mbarrier_arrive %[[EMPTY]]
// CHECK:   tag.assert_complete
// CHECK:   tile.store
// CHECK: }
// CHECK-NEXT: tile.return
// SM80-LABEL: tile.kernel @gemm
// SM80-NOT: tile.warp_specialize
// SM80: tile.async_wait 1
tile.kernel @gemm(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(256) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %sA = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %a, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %d : tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3, warp_specialize = true>}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<64x64xf32>, index, index
  tile.store %acc -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Code before the loop that the producer does not need (a tile copied,
// waited for and loaded once) moves to the consumers; what it needs stays
// with every thread.
// CHECK-LABEL: tile.kernel @prologue
// CHECK: %[[K:.*]] = tile.dim
// CHECK: tile.warp_specialize registers(40, 240) producer {
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[K]]
// CHECK: } consumer {
// CHECK:   tile.copy %{{.*}} -> %[[Q:.*]] :
// CHECK:   tile.barrier
// CHECK:   tile.load %[[Q]]
// CHECK:   scf.for
// SM80-LABEL: tile.kernel @prologue
// SM80-NOT: tile.warp_specialize
tile.kernel @prologue(%Q: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %B, 0 : !tile.view<?x?xf16>
  tag.bind %Q as "Q"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(j, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %sQ = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  tile.copy %Q[%c0, %c0] -> %sQ : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
  tile.barrier
  %q = tile.load %sQ : !tile.shared<64x32xf16> -> tensor<64x32xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %q, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %d : tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2, warp_specialize = true>}
  tile.store %acc -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// A gathering copy stays with the consumers, as written (the producer
// issues boxes): they gather the rows themselves and keep the loop's
// barriers (named barriers among them); the producer fills the other
// operand's ring. Without TMA the gathering copy fills a ring too.
// CHECK-LABEL: tile.kernel @gathered
// CHECK: %[[X:.*]] = tile.alloc_shared : !tile.shared<64x32xf16>
// CHECK: %[[RB:.*]] = tile.alloc_shared : !tile.shared<32x64xf16, stages = 3>
// CHECK: tile.warp_specialize registers(40, 240) producer {
// CHECK-NOT: rows(
// CHECK:     tile.copy %{{.*}}[%{{.*}}, %{{.*}}] -> %[[RB]][%{{.*}}] async
// CHECK: } consumer {
// CHECK:   %[[ROWS:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.view<?xi32> -> tensor<64xi32>
// CHECK:   scf.for
// CHECK:     tile.mbarrier_wait
// CHECK:     tile.copy %{{.*}}[%{{.*}}, %{{.*}}] rows(%[[ROWS]] : tensor<64xi32>) -> %[[X]] :
// CHECK:     tile.barrier
// CHECK:     tile.load %[[X]]
// CHECK:     tile.load %[[RB]]
// CHECK:     tile.mma
// CHECK:     tile.barrier
// CHECK:     tile.mbarrier_arrive
// SM80-LABEL: tile.kernel @gathered
// SM80-NOT: tile.warp_specialize
// SM80: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] rows(%{{.*}} : tensor<64xi32>) -> %{{.*}}[%{{.*}}] async
tile.kernel @gathered(%X: !tile.view<?x?xf16>, %ids: !tile.view<?xi32>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %B, 0 : !tile.view<?x?xf16>
  %rows = tile.load %ids[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %sX = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    tile.copy %X[%c0, %k] rows(%rows : tensor<64xi32>) -> %sX : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %x = tile.load %sX : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %x, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %d : tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3, warp_specialize = true>}
  tile.store %acc -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Row indices computed in the loop feed the gathering copy only: they stay
// with the consumers, and the producer computes only its own copies'
// operands.
// CHECK-LABEL: tile.kernel @gathered_in_loop
// CHECK: producer {
// CHECK-NOT: tensor<64xi32>
// CHECK: } consumer {
// CHECK:     %[[R2:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<64xi32>
// CHECK:     tile.copy %{{.*}}[%{{.*}}, %{{.*}}] rows(%[[R2]] : tensor<64xi32>)
// SM80-LABEL: tile.kernel @gathered_in_loop
tile.kernel @gathered_in_loop(%X: !tile.view<?x?xf16>, %ids: !tile.view<?xi32>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %B, 0 : !tile.view<?x?xf16>
  %rows = tile.load %ids[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %sX = tile.alloc_shared : !tile.shared<64x32xf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xf16>
  %z = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<64x64xf32>) {
    %r2 = arith.addi %rows, %rows : tensor<64xi32>
    tile.copy %X[%c0, %k] rows(%r2 : tensor<64xi32>) -> %sX : !tile.view<?x?xf16> -> !tile.shared<64x32xf16>
    tile.copy %B[%k, %c0] -> %sB : !tile.view<?x?xf16> -> !tile.shared<32x64xf16>
    tile.barrier
    %x = tile.load %sX : !tile.shared<64x32xf16> -> tensor<64x32xf16>
    %b = tile.load %sB : !tile.shared<32x64xf16> -> tensor<32x64xf16>
    %d = tile.mma %x, %b, %c : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %d : tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3, warp_specialize = true>}
  tile.store %acc -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
