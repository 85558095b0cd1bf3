// A latency no schedule can span is rejected before any search, by both
// schedulers (they walk the cycles of the II).
// RUN: tessera-opt %s --tile-pipeline-schedule --verify-diagnostics
// RUN: tessera-opt %s --tile-pipeline-schedule=scheduler=solver --verify-diagnostics

tile.kernel @huge_latency(%A: !tile.view<?x?xbf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %sA = tile.alloc_shared : !tile.shared<32x32xbf16>
  // expected-error-re @below {{tile-pipeline-schedule: the loop body's latencies add up to {{[0-9]+}} cycles, more than the 16777216 a schedule may span; check its tile.latency values}}
  scf.for %k = %c0 to %K step %c32 {
    tile.copy %A[%c0, %k] -> %sA {tile.latency = 1000000000000 : i64} : !tile.view<?x?xbf16> -> !tile.shared<32x32xbf16>
    %a = tile.load %sA : !tile.shared<32x32xbf16> -> tensor<32x32xbf16>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}
