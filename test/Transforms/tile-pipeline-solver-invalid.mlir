// When no modulo schedule fits, the solver's error lists the constraints of
// an unsat core as notes at the ops they concern.
// RUN: tessera-opt %s --split-input-file --tile-pipeline-schedule="scheduler=solver max-ii=200" --verify-diagnostics
// RUN: not tessera-opt %s --tile-pipeline-schedule="scheduler=solver max-ii=100" 2>&1 | FileCheck %s --check-prefix=BUSY
// RUN: not tessera-opt %s --tile-pipeline-schedule="scheduler=solver max-shared-bytes=3000" 2>&1 | FileCheck %s --check-prefix=SHARED
// RUN: not tessera-opt %s --tile-pipeline-schedule="scheduler=solver rlimit=1" 2>&1 | FileCheck %s --check-prefix=RLIMIT
// BUSY: [[@LINE+26]]:10: error: tile-pipeline-schedule: no modulo schedule fits with II <= 100; these constraints conflict:
// BUSY: [[@LINE+27]]:5: note: 'tile.copy' keeps the global-memory unit busy 147 cycles
// Two 2 KiB slots do not fit 3000 bytes, and pipelining needs two.
// SHARED: error: tile-pipeline-schedule: no modulo schedule fits; these constraints conflict:
// SHARED-DAG: note: shared memory: stages x 2048 B of rings + 0 B else must fit max-shared-bytes = 3000
// SHARED-DAG: note: pipelining needs at least 2 stages
// RLIMIT: error: tile-pipeline-schedule: Z3 gave up (canceled) within rlimit = 1; raise the rlimit option or use scheduler=heuristic
// Bad options are rejected before any loop is looked at.
// RUN: not tessera-opt %s --tile-pipeline-schedule="scheduler=greedy" 2>&1 | FileCheck %s --check-prefix=SCHED
// RUN: not tessera-opt %s --tile-pipeline="scheduler=solver chip=sm_75" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tessera-opt %s --tile-pipeline-schedule="scheduler=solver max-ii=-1" 2>&1 | FileCheck %s --check-prefix=NEG
// SCHED: for the --scheduler option: Cannot find option named 'greedy'!
// CHIP: error: tile-pipeline: unknown chip 'sm_75'; use sm_80, sm_90a, gfx942 or gfx90a
// NEG: error: tile-pipeline-schedule: max-shared-bytes and max-ii must not be negative

// The 2 KiB copy takes 647 cycles; with II <= 200 the load can only start
// 3 * 200 cycles after it with 4 stages, and the policy allows 3. The
// FileCheck runs above fail the same loop for other reasons.
tile.kernel @too_few_stages(%A: !tile.view<?x?xbf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %sA = tile.alloc_shared : !tile.shared<32x32xbf16>
  %b = arith.constant dense<1.0> : tensor<32x32xbf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-error @below {{tile-pipeline-schedule: no modulo schedule fits with II <= 200; these constraints conflict:}}
  // expected-note @below {{the loop's #tile.pipeline allows at most 3 stages}}
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    // expected-note @below {{'tile.copy' (latency 647) feeds 'tile.load'}}
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xbf16> -> !tile.shared<32x32xbf16>
    %a = tile.load %sA : !tile.shared<32x32xbf16> -> tensor<32x32xbf16>
    %n = tile.mma %a, %b, %c : tensor<32x32xbf16>, tensor<32x32xbf16> -> tensor<32x32xf32>
    scf.yield %n : tensor<32x32xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}
