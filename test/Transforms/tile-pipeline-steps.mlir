// The three steps of tile-pipeline, each on its own.
// RUN: tessera-opt %s --split-input-file --tile-pipeline-latencies="chip=sm_90a" | FileCheck %s --check-prefix=SM90
// RUN: tessera-opt %s --split-input-file --tile-pipeline-latencies="chip=sm_80" | FileCheck %s --check-prefix=SM80
// RUN: tessera-opt %s --split-input-file --tile-pipeline-latencies="chip=gfx942" | FileCheck %s --check-prefix=MI300
// RUN: tessera-opt %s --split-input-file --tile-pipeline-schedule | FileCheck %s --check-prefix=SCHED
// RUN: tessera-opt %s --split-input-file --tile-pipeline-latencies --tile-pipeline-schedule --tile-pipeline | FileCheck %s --check-prefix=EXPAND
// RUN: not tessera-opt %s --tile-pipeline-latencies="chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP

// A 128x64 bf16 copy moves 16 KiB: memory latency + bytes / bandwidth per
// SM; a 128x128x64 MMA is 2 Mflop over the SM's MMA rate.
// SM90: tile.copy {{.*}}tile.latency = 1671
// SM90: tile.load {{.*}}tile.latency = 128
// SM90: tile.mma {{.*}}tile.latency = 512
// SM80: tile.copy {{.*}}tile.latency = 2139
// SM80: tile.mma {{.*}}tile.latency = 1024
// MI300: tile.copy {{.*}}tile.latency = 2521
// MI300: tile.mma {{.*}}tile.latency = 1024
// CHIP: error: tile-pipeline-latencies: unknown chip 'sm_75'; use sm_80, sm_90a, gfx942 or gfx90a

// The heuristic schedule: the copies and their offsets in stage 0, the
// rest in stage 2, in body order.
// SCHED: arith.addi {{.*}}tile.order = 0 : i64, tile.stage = 0 : i64
// SCHED-NEXT: tile.copy {{.*}}tile.order = 1 : i64, tile.stage = 0 : i64
// SCHED-NEXT: tile.barrier {tile.order = 2 : i64, tile.stage = 2 : i64}
// SCHED-NEXT: tile.load {{.*}}tile.order = 3 : i64, tile.stage = 2 : i64
// SCHED-NEXT: tile.mma {{.*}}tile.order = 4 : i64, tile.stage = 2 : i64

// Expansion consumes the schedule and leaves no schedule attribute behind.
// EXPAND: tile.alloc_shared : !tile.shared<128x64xbf16, stages = 3>
// EXPAND: tile.async_wait 1
// EXPAND-NOT: tile.stage
// EXPAND-NOT: tile.latency
// EXPAND: tile.async_wait 0
tile.kernel @k(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>, %K: index) threads(256) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = tile.alloc_shared : !tile.shared<128x64xbf16>
  %b = arith.constant dense<1.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %z) -> (tensor<128x128xf32>) {
    %k1 = arith.addi %k, %c0 : index
    tile.copy %A[%c0, %k1] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
    %n = tile.mma %a, %b, %c : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    tile.barrier
    scf.yield %n : tensor<128x128xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}
