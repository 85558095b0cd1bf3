// RUN: tessera-opt %s --tile-set-target=chip=sm_80 --tile-interleave-roles | FileCheck %s
// RUN: tessera-opt %s --tile-set-target=chip=gfx942 --tile-interleave-roles | FileCheck %s
// RUN: tessera-opt %s --tile-set-target=chip=sm_90a --tile-interleave-roles=all | FileCheck %s
// RUN: tessera-opt %s --tile-set-target=chip=sm_90a --tile-interleave-roles | FileCheck %s --check-prefix=HOPPER
// The interleaved forms are kernels tag-check proves on their own.
// RUN: tessera-opt %s --tile-set-target=chip=sm_80 --tile-interleave-roles | tessera-opt --tag-check -o /dev/null
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws_pingpong.mlir --tile-set-target=chip=sm_80 --tile-persistent --tile-interleave-roles | FileCheck %s --check-prefix=PERSISTENT
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws_pingpong.mlir --tile-set-target=chip=sm_80 --tile-persistent --tile-interleave-roles | tessera-opt --tag-check -o /dev/null

// A 3-slot ring in a cluster of two, B multicast: the interleaved form
// fills two K steps ahead (a slot less than the ring has), one commit group
// an iteration; the consumers wait for the oldest but one, meet at the
// block barrier, then the fill of n + 2 reuses the slot iteration n - 1
// read. No mbarrier and no multicast remain; the cluster is the kernel's.
// CHECK-LABEL: tile.kernel @ws(
// CHECK-SAME: cluster(2)
// CHECK-NOT: tile.warp_specialize
// CHECK-NOT: mbarrier
// CHECK: tile.copy {{.*}} async :
// CHECK-NEXT: tile.copy {{.*}} async :
// CHECK-NEXT: tile.async_commit
// CHECK: tile.copy {{.*}} async :
// CHECK-NEXT: tile.copy {{.*}} async :
// CHECK-NEXT: tile.async_commit
// CHECK: scf.for
// CHECK: tile.async_wait 1
// CHECK-NEXT: tile.barrier
// CHECK: tile.copy {{.*}} async :
// CHECK-NEXT: tile.copy {{.*}} async :
// CHECK-NEXT: tile.async_commit
// CHECK: tile.load
// CHECK: tile.mma
// CHECK-NOT: tile.barrier
// CHECK: scf.yield
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK: tile.store
// HOPPER-LABEL: tile.kernel @ws(
// HOPPER: tile.alloc_mbarrier
// HOPPER: tile.warp_specialize registers(40, 232) producer
// HOPPER: multicast
tile.kernel @ws(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                %C: !tile.view<?x?xbf16>) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KB = tile.dim %B, 0 : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %same_k = arith.cmpi eq, %K, %KB : index
  tag.assume %same_k, "A and B agree on K" : i1
  %sA = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 3>
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c64 {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c3 : index
      %round = arith.divui %n, %c3 : index
      %released = arith.addi %round, %c1 : index
      %parity = arith.index_cast %released : index to i1
      tile.mbarrier_wait %empty[%slot], parity %parity : !tile.mbarrier<3>
      tile.copy %A[%m0, %k] -> %sA[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 3>
      tile.copy %B[%k, %n0] -> %sB[%slot] async multicast
          : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 3>
      tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
    }
  } consumer {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
        -> (tensor<64x64xf32>) {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c3 : index
      %round = arith.divui %n, %c3 : index
      %parity = arith.index_cast %round : index to i1
      tile.mbarrier_wait %full[%slot], parity %parity : !tile.mbarrier<3>
      %a = tile.load %sA[%slot]
          : !tile.shared<64x64xbf16, stages = 3> -> tensor<64x64xbf16>
      %b = tile.load %sB[%slot]
          : !tile.shared<64x64xbf16, stages = 3> -> tensor<64x64xbf16>
      tag.assert_contract %a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>
      %next = tile.mma %a, %b, %c
          : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
      tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
      scf.yield %next : tensor<64x64xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K
        : tensor<64x64xf32>, index, index
    %out = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %out -> %C[%m0, %n0]
        : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}

// One slot: nothing to fill ahead. Each iteration fills, commits, waits
// for it, meets at the barrier, multiplies and meets again before the
// next fill overwrites the slot.
// CHECK-LABEL: tile.kernel @ws_one_slot(
// CHECK-NOT: mbarrier
// CHECK: scf.for
// CHECK: tile.copy {{.*}} async :
// CHECK-NEXT: tile.copy {{.*}} async :
// CHECK-NEXT: tile.async_commit
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK: tile.mma
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: scf.yield
// HOPPER-LABEL: tile.kernel @ws_one_slot(
// HOPPER: tile.warp_specialize
tile.kernel @ws_one_slot(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                %C: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KB = tile.dim %B, 0 : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %same_k = arith.cmpi eq, %K, %KB : index
  tag.assume %same_k, "A and B agree on K" : i1
  %sA = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 1>
  %sB = tile.alloc_shared : !tile.shared<64x64xbf16, stages = 1>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<1>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<1>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c64 {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c1 : index
      %round = arith.divui %n, %c1 : index
      %released = arith.addi %round, %c1 : index
      %parity = arith.index_cast %released : index to i1
      tile.mbarrier_wait %empty[%slot], parity %parity : !tile.mbarrier<1>
      tile.copy %A[%m0, %k] -> %sA[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 1>
      tile.copy %B[%k, %n0] -> %sB[%slot] async
          : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16, stages = 1>
      tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<1>
    }
  } consumer {
    %zero = arith.constant dense<0.000000e+00> : tensor<64x64xf32>
    %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %zero)
        -> (tensor<64x64xf32>) {
      %n = arith.divui %k, %c64 : index
      %slot = arith.remui %n, %c1 : index
      %round = arith.divui %n, %c1 : index
      %parity = arith.index_cast %round : index to i1
      tile.mbarrier_wait %full[%slot], parity %parity : !tile.mbarrier<1>
      %a = tile.load %sA[%slot]
          : !tile.shared<64x64xbf16, stages = 1> -> tensor<64x64xbf16>
      %b = tile.load %sB[%slot]
          : !tile.shared<64x64xbf16, stages = 1> -> tensor<64x64xbf16>
      tag.assert_contract %a, %b : tensor<64x64xbf16>, tensor<64x64xbf16>
      %next = tile.mma %a, %b, %c
          : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
      tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<1>
      scf.yield %next : tensor<64x64xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K
        : tensor<64x64xf32>, index, index
    %out = arith.truncf %acc : tensor<64x64xf32> to tensor<64x64xbf16>
    tile.store %out -> %C[%m0, %n0]
        : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}

// Persistent ping-pong (tile-persistent from the kernel's policy): one
// tile loop; each tile's pipeline counts its K steps from 0 (slot 0
// first) and drains before the epilogue, so the ping-pong sets become one.
// PERSISTENT-LABEL: tile.kernel @gemm_bf16_ws_pingpong(
// PERSISTENT-NOT: mbarrier
// PERSISTENT: scf.for
// PERSISTENT-COUNT-3: tile.async_commit
// PERSISTENT: scf.for
// PERSISTENT: tile.async_wait 2
// PERSISTENT: tile.async_commit
// PERSISTENT: tile.mma
// PERSISTENT: tile.async_wait 0
// PERSISTENT-NEXT: tile.barrier
// PERSISTENT: tile.store
// PERSISTENT-NOT: mbarrier
// PERSISTENT-NOT: tile.warp_specialize
