// RUN: tessera-opt %s --split-input-file --tile-persistent | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-persistent --tile-persistent | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-persistent --tile-pipeline --tag-check -o /dev/null
// The shipped GEMM by name, with its group: the same form, and tag-check
// proves it pipelined.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir "--tile-persistent=kernel=gemm_bf16 group=4" | FileCheck %s --check-prefix=NAMED
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-persistent=kernel=gemm_bf16 --tile-pipeline --tag-check -o /dev/null

// The body written per program becomes the body of a loop over the tiles of
// the launched grid (four appended arguments the runtime passes: the grid's
// x, y, z and the programs started), starting at this program's id and
// stepping by the programs started. Buffers, tag bindings and assumptions,
// constants and view sizes run once, before it; the program ids become the
// tile's coordinates, num_programs the grid's size; a barrier ends each
// tile, since the next tile's copies refill the buffers. A second run
// leaves the kernel as it is.
// CHECK-LABEL: tile.kernel @gemm(
// CHECK-SAME: %[[GX:[a-z0-9]+]]: index {tile.grid = 0 : i64}, %[[GY:[a-z0-9]+]]: index {tile.grid = 1 : i64}, %[[GZ:[a-z0-9]+]]: index {tile.grid = 2 : i64}, %[[P:[a-z0-9]+]]: index {tile.grid = 3 : i64})
// CHECK-SAME: threads(128) attributes {tile.persistent = #tile.persistent<group = 2>}
// CHECK-NOT: tile.grid
// CHECK: tile.dim
// CHECK: tag.bind
// CHECK: tag.assume
// CHECK: %[[SA:.*]] = tile.alloc_shared : !tile.shared<64x32xbf16>
// CHECK: %[[SB:.*]] = tile.alloc_shared : !tile.shared<32x64xbf16>
// CHECK: %[[W:.*]] = tile.program_id x
// CHECK: %[[XY:.*]] = arith.muli %[[GX]], %[[GY]]
// CHECK: %[[TILES:.*]] = arith.muli %[[XY]], %[[GZ]]
// CHECK-NEXT: scf.for %[[T:.*]] = %[[W]] to %[[TILES]] step %[[P]] {
// CHECK-NEXT: %[[X:.*]], %[[Y:.*]], %{{.*}} = tile.tile_coords %[[T]] of(%[[GX]], %[[GY]], %[[GZ]]) group 2
// CHECK-NOT: tile.program_id
// CHECK-DAG: arith.muli %[[X]], %c64
// CHECK-DAG: arith.muli %[[Y]], %c64
// CHECK: scf.for
// CHECK: tile.mma
// CHECK: tile.store
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: }
// CHECK-NEXT: tile.return
tile.kernel @gemm(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                  %C: !tile.view<?x?xf32>) threads(128)
    attributes {tile.persistent = #tile.persistent<group = 2>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : index
  %n0 = arith.muli %pid_n, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %KB = tile.dim %B, 0 : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %same_k = arith.cmpi eq, %K, %KB : index
  tag.assume %same_k, "A and B agree on K" : i1
  %sA = tile.alloc_shared : !tile.shared<64x32xbf16>
  %sB = tile.alloc_shared : !tile.shared<32x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<64x64xf32>) {
    tile.copy %A[%m0, %k] -> %sA
        : !tile.view<?x?xbf16> -> !tile.shared<64x32xbf16>
    tile.copy %B[%k, %n0] -> %sB
        : !tile.view<?x?xbf16> -> !tile.shared<32x64xbf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<64x32xbf16> -> tensor<64x32xbf16>
    %b = tile.load %sB : !tile.shared<32x64xbf16> -> tensor<32x64xbf16>
    tag.assert_contract %a, %b : tensor<64x32xbf16>, tensor<32x64xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    tile.barrier
    scf.yield %next : tensor<64x64xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tag.assert_complete %acc over "k" from %c0 to %K
      : tensor<64x64xf32>, index, index
  tile.store %acc -> %C[%m0, %n0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// No shared memory: no barrier between tiles. num_programs is the launched
// grid's size, in every dimension; program_id z the tile's depth.
// CHECK-LABEL: tile.kernel @rows(
// CHECK-SAME: %[[GX:[a-z0-9]+]]: index {tile.grid = 0 : i64}, %[[GY:[a-z0-9]+]]: index {tile.grid = 1 : i64}, %[[GZ:[a-z0-9]+]]: index {tile.grid = 2 : i64}, %{{.*}}: index {tile.grid = 3 : i64})
// CHECK: scf.for
// CHECK-NEXT: %[[X:.*]], %{{.*}}, %[[Z:.*]] = tile.tile_coords
// CHECK: arith.muli %[[GX]], %[[Z]]
// CHECK: arith.addi %{{.*}}, %[[X]]
// CHECK: arith.muli %{{.*}}, %[[GY]]
// CHECK-NOT: tile.barrier
// CHECK: tile.return
tile.kernel @rows(%X: !tile.view<?xf32>) threads(32)
    attributes {tile.persistent = #tile.persistent<group = 8>} {
  %c32 = arith.constant 32 : index
  %x = tile.program_id x
  %z = tile.program_id z
  %gx = tile.num_programs x
  %gy = tile.num_programs y
  %row = arith.muli %gx, %z : index
  %block = arith.addi %row, %x : index
  %scaled = arith.muli %block, %gy : index
  %off = arith.muli %scaled, %c32 : index
  %v = tile.load %X[%off] : !tile.view<?xf32> -> tensor<32xf32>
  tile.store %v -> %X[%off] : tensor<32xf32> -> !tile.view<?xf32>
  tile.return
}

// -----

// Kernels without the attribute stay as they are.
// CHECK-LABEL: tile.kernel @plain(
// CHECK-NOT: tile.grid
// CHECK: tile.program_id x
// CHECK-NOT: scf.for
tile.kernel @plain(%X: !tile.view<?xf32>) threads(32) {
  %c32 = arith.constant 32 : index
  %x = tile.program_id x
  %off = arith.muli %x, %c32 : index
  %v = tile.load %X[%off] : !tile.view<?xf32> -> tensor<32xf32>
  tile.store %v -> %X[%off] : tensor<32xf32> -> !tile.view<?xf32>
  tile.return
}

// NAMED: tile.kernel @gemm_bf16({{.*}}: index {tile.grid = 3 : i64}) threads(256) attributes {tile.persistent = #tile.persistent<group = 4>}
// NAMED: tile.tile_coords %{{.*}} group 4
