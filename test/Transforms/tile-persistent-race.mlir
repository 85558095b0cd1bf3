// RUN: not tessera-opt %s --tile-pipeline --tag-check -o /dev/null 2>&1 | FileCheck %s
// A persistent kernel (already made so: it has the grid arguments, and
// tile-persistent would leave it alone) without the barrier that ends each
// tile: once the K loop is pipelined, the next tile's prologue refills the
// ring while other threads may still read this tile's last slots.
// tag-check refuses it with a counterexample: the loop over tiles is
// checked like any other.
// CHECK: error: write-after-read race: %sA is overwritten while other threads may still read it
// CHECK: note: counterexample:
// CHECK: note: the earlier read, with no barrier since
tile.kernel @gemm(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                  %C: !tile.view<?x?xf32>, %gx: index {tile.grid = 0},
                  %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2},
                  %programs: index {tile.grid = 3}) threads(128)
    attributes {tile.persistent = #tile.persistent<group = 2>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %sA = tile.alloc_shared : !tile.shared<64x32xbf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %first = tile.program_id x
  %xy = arith.muli %gx, %gy : index
  %tiles = arith.muli %xy, %gz : index
  scf.for %t = %first to %tiles step %programs {
    %x, %y, %z = tile.tile_coords %t of (%gx, %gy, %gz) group 2
    %m0 = arith.muli %x, %c64 : index
    %n0 = arith.muli %y, %c64 : index
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
        -> (tensor<64x64xf32>) {
      tile.copy %A[%m0, %k] -> %sA
          : !tile.view<?x?xbf16> -> !tile.shared<64x32xbf16>
      tile.copy %B[%k, %n0] -> %sB
          : !tile.view<?x?xbf16> -> !tile.shared<32x64xbf16>
      tile.barrier
      %a = tile.load %sA : !tile.shared<64x32xbf16> -> tensor<64x32xbf16>
      %b = tile.load %sB : !tile.shared<32x64xbf16> -> tensor<32x64xbf16>
      %next = tile.mma %a, %b, %c
          : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
      tile.barrier
      scf.yield %next : tensor<64x64xf32>
    } {tile.pipeline = #tile.pipeline<stages = 2>}
    tile.store %acc -> %C[%m0, %n0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}
