// The Z3 modulo scheduler (scheduler=solver) against the heuristic.
// RUN: tessera-opt %s --split-input-file --tile-pipeline-schedule="scheduler=solver" | FileCheck %s --check-prefix=SOLVER
// RUN: tessera-opt %s --split-input-file --tile-pipeline-schedule="scheduler=heuristic" | FileCheck %s --check-prefix=HEUR
// RUN: tessera-opt %s --split-input-file --tile-pipeline="scheduler=solver" --tag-check | FileCheck %s --check-prefix=EXPAND

// A small copy is latency bound: its 647 cycles (sm_90a: 500 to memory +
// 2 KiB at 14 B/cycle) must fit between the copy in stage 0 and the load in
// the last stage, so three stages allow II = 222 (3 * 222 > 647 + the load
// slot); two would need II >= 324.
// SOLVER-LABEL: tile.kernel @latency_bound
// SOLVER: tile.copy {{.*}}tile.stage = 0
// SOLVER: tile.load {{.*}}tile.stage = 2
// SOLVER: tile.mma {{.*}}tile.stage = 2
// SOLVER: {tile.ii = 222 : i64, tile.pipeline = #tile.pipeline<stages = 3>}
// HEUR-LABEL: tile.kernel @latency_bound
// HEUR: {tile.ii = 223 : i64, tile.pipeline = #tile.pipeline<stages = 3>}
// The expanded loop carries out the chosen 3 stages; tag-check proves its
// ring invariants.
// EXPAND-LABEL: tile.kernel @latency_bound
// EXPAND: tile.alloc_shared : !tile.shared<32x32xbf16, stages = 3>
// EXPAND: tile.async_wait 1
tile.kernel @latency_bound(%A: !tile.view<?x?xbf16>, %K: index) threads(128) {
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %sA = tile.alloc_shared : !tile.shared<32x32xbf16>
  %b = arith.constant dense<1.0> : tensor<32x32xbf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<32x32xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xbf16> -> tensor<32x32xbf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
    tile.barrier
    scf.yield %n : tensor<32x32xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}

// -----

// A 16 KiB copy is bandwidth bound: global memory is busy 1171 cycles per
// iteration whatever the depth, so the solver keeps that II with 2 stages
// of the 3 allowed, and a third of the ring's shared memory is saved.
// SOLVER-LABEL: tile.kernel @bandwidth_bound
// SOLVER: {tile.ii = 1171 : i64, tile.pipeline = #tile.pipeline<stages = 2>}
// HEUR-LABEL: tile.kernel @bandwidth_bound
// HEUR: {tile.ii = 1171 : i64, tile.pipeline = #tile.pipeline<stages = 3>}
// EXPAND-LABEL: tile.kernel @bandwidth_bound
// EXPAND: tile.alloc_shared : !tile.shared<128x64xbf16, stages = 2>
// EXPAND: tile.async_wait 0
// EXPAND-NOT: tile.ii
tile.kernel @bandwidth_bound(%A: !tile.view<?x?xbf16>, %K: index) threads(256) {
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %sA = tile.alloc_shared : !tile.shared<128x64xbf16>
  %b = arith.constant dense<1.0> : tensor<64x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %z) -> (tensor<128x128xf32>) {
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<128x64xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<128x64xbf16> -> tensor<128x64xbf16>
    %n = tile.mma %a, %b, %c : tensor<128x64xbf16>, tensor<64x128xbf16> -> tensor<128x128xf32>
    tile.barrier
    scf.yield %n : tensor<128x128xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}
