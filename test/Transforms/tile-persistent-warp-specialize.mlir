// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws.mlir --tile-persistent=kernel=gemm_bf16_ws | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws.mlir --tile-persistent=kernel=gemm_bf16_ws --tile-persistent | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws.mlir --tile-persistent=kernel=gemm_bf16_ws --tag-check -o /dev/null
// tile-pipeline's warp-specialized loops, then made persistent: proved.
// RUN: tessera-opt %kernels/gemm/gemm_bf16_wide.mlir --tile-pipeline=warp-specialize --tile-persistent=kernel=gemm_bf16_128x256 --tag-check -o /dev/null
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir --tile-pipeline=warp-specialize "--tile-persistent=kernel=flash_attention_fwd group=4" --tag-check -o /dev/null
// Clustered roles (gemm_bf16_ws_multicast): each cluster walks groups of
// 2 neighbouring x tiles, its programs taking the one of their rank;
// tag-check proves the tile loops' bounds, the K range and B's window the
// same in both programs.
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws_multicast.mlir --tile-persistent=kernel=gemm_bf16_ws_multicast | FileCheck %s --check-prefix=CLUSTER
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws_multicast.mlir --tile-persistent=kernel=gemm_bf16_ws_multicast --tag-check -o /dev/null
// CLUSTER-LABEL: tile.kernel @gemm_bf16_ws_multicast(
// CLUSTER-SAME: %[[GX:[a-z0-9]+]]: index {tile.grid = 0 : i64}, %[[GY:[a-z0-9]+]]: index {tile.grid = 1 : i64}, %[[GZ:[a-z0-9]+]]: index {tile.grid = 2 : i64}, %[[P:[a-z0-9]+]]: index {tile.grid = 3 : i64})
// CLUSTER: %[[PID:.*]] = tile.program_id x
// CLUSTER: %[[W:.*]] = arith.divui %[[PID]], %[[TWO:.*]] : index
// CLUSTER: %[[WS:.*]] = arith.divui %[[P]], %[[TWO]] : index
// CLUSTER: %[[RANK:.*]] = arith.remui %[[PID]], %[[TWO]] : index
// CLUSTER: %[[UP:.*]] = arith.addi %[[GX]], %c1{{.*}} : index
// CLUSTER: %[[GROUPS:.*]] = arith.divui %[[UP]], %[[TWO]] : index
// CLUSTER: tile.warp_specialize
// CLUSTER-NEXT: scf.for %[[T:.*]] = %[[W]] to %{{.*}} step %[[WS]]
// CLUSTER-NEXT: %[[X:.*]], %{{.*}}, %{{.*}} = tile.tile_coords %[[T]] of(%[[GROUPS]], %[[GY]], %[[GZ]]) group 8
// CLUSTER-NEXT: %[[X2:.*]] = arith.muli %[[X]], %[[TWO]] : index
// CLUSTER-NEXT: arith.addi %[[X2]], %[[RANK]] : index

// The other order is refused with the order to use.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16_wide.mlir --tile-persistent=kernel=gemm_bf16_128x256 --tile-pipeline=warp-specialize -o /dev/null 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: warp specialization needs the loop at the top level of its kernel (run tile-persistent after tile-pipeline: it loops each role over the tiles)

// A warp-specialized kernel made persistent: the roles split once, and each
// loops over the tiles itself. Buffers and mbarriers are set up before the
// split; the per-tile arithmetic (the tile's offsets) is recomputed in each
// role from the tile's coordinates. Each role's tile loop carries, from 0,
// the count of its main loop's iterations (base), which the main loop
// continues; every ring slot s and barrier parity p the kernel computed for
// its tile's iteration n is rotated to iteration base + n: slot
// (s + base mod 4) mod 4, parity p xor (base div 4) mod 2 xor the wrap.
// CHECK-LABEL: tile.kernel @gemm_bf16_ws(
// CHECK-SAME: %[[GX:[a-z0-9]+]]: index {tile.grid = 0 : i64}, %[[GY:[a-z0-9]+]]: index {tile.grid = 1 : i64}, %[[GZ:[a-z0-9]+]]: index {tile.grid = 2 : i64}, %[[P:[a-z0-9]+]]: index {tile.grid = 3 : i64})
// CHECK: %[[FULL:.*]] = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<4>
// CHECK: %[[EMPTY:.*]] = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<4>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[W:.*]] = tile.program_id x
// CHECK: %[[XY:.*]] = arith.muli %[[GX]], %[[GY]]
// CHECK: %[[TILES:.*]] = arith.muli %[[XY]], %[[GZ]]
// CHECK-NOT: tile.program_id
// CHECK: tile.warp_specialize registers(40, 232) producer {
// CHECK-NEXT: scf.for %[[T:.*]] = %[[W]] to %[[TILES]] step %[[P]] iter_args(%[[BASE:.*]] = %[[ZERO]]) -> (index) {
// CHECK-NEXT: %[[X:.*]], %[[Y:.*]], %{{.*}} = tile.tile_coords %[[T]] of(%[[GX]], %[[GY]], %[[GZ]]) group 8
// CHECK-NEXT: %[[M0:.*]] = arith.muli %[[X]], %c128
// CHECK-NEXT: %[[N0:.*]] = arith.muli %[[Y]], %c256
// CHECK: %[[SHIFT:.*]] = arith.remui %[[BASE]], %[[S:.*]] : index
// CHECK: %[[ROUND:.*]] = arith.divui %[[BASE]], %[[S]] : index
// CHECK: %[[FLIP:.*]] = arith.index_cast %[[ROUND]] : index to i1
// CHECK: %[[COUNT:.*]] = scf.for %{{.*}} = %c0 to %{{.*}} step %c64 iter_args(%[[N:.*]] = %[[BASE]]) -> (index) {
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %[[SHIFT]] : index
// CHECK: %[[WRAP:.*]] = arith.cmpi uge, %[[SUM]], %[[S]] : index
// CHECK: %[[LESS:.*]] = arith.subi %[[SUM]], %[[S]] : index
// CHECK: %[[SLOT:.*]] = arith.select %[[WRAP]], %[[LESS]], %[[SUM]] : index
// CHECK: %[[P1:.*]] = arith.xori %{{.*}}, %[[FLIP]] : i1
// CHECK: %[[P2:.*]] = arith.xori %[[P1]], %[[WRAP]] : i1
// CHECK: tile.mbarrier_wait %[[EMPTY]][%[[SLOT]]], parity %[[P2]]
// CHECK: tile.copy %{{.*}}[%[[M0]], %{{.*}}] -> %{{.*}}[%[[SLOT]]] async
// CHECK: tile.copy %{{.*}}[%{{.*}}, %[[N0]]] -> %{{.*}}[%[[SLOT]]] async
// CHECK: tile.mbarrier_arrive %[[FULL]][%[[SLOT]]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[N]], %[[ONE]] : index
// CHECK: scf.yield %[[NEXT]] : index
// CHECK: scf.yield %[[COUNT]] : index
// CHECK: } consumer {
// CHECK-NEXT: scf.for %{{.*}} = %[[W]] to %[[TILES]] step %[[P]] iter_args(%[[CBASE:.*]] = %[[ZERO]]) -> (index) {
// CHECK-NEXT: tile.tile_coords
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %[[CBASE]]) -> (tensor<128x256xf32>, index)
// CHECK: tile.mbarrier_wait %[[FULL]]
// CHECK: tile.load
// CHECK: tile.load
// CHECK: tile.mma
// CHECK: tile.mbarrier_arrive %[[EMPTY]]
// CHECK: tile.store
// CHECK-NOT: tile.barrier
// CHECK: scf.yield %{{.*}}#1 : index
// CHECK: tile.return

// The ping-pong schedule (gemm_bf16_ws_pingpong asks for it in its
// tile.persistent policy; the pass option does for a named kernel): the
// roles are made persistent as above and the tile.warp_specialize is
// marked `pingpong`; tag-check proves the same protocol.
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws_pingpong.mlir --tile-persistent | FileCheck %s --check-prefix=PINGPONG
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws_pingpong.mlir --tile-persistent --tag-check -o /dev/null
// Each consumer thread gets at most what leaves room for both sets: 240
// asked for one set becomes 232 (40 x 128 + 232 x 256 <= 65536).
// RUN: sed -e 's/registers(40, 232)/registers(40, 240)/' %kernels/gemm/gemm_bf16_ws_pingpong.mlir \
// RUN:   | tessera-opt --tile-persistent | FileCheck %s --check-prefix=PINGPONG
// Two sets of gemm_bf16_ws's 256 consumers: 112 registers each.
// RUN: tessera-opt %kernels/gemm/gemm_bf16_ws.mlir "--tile-persistent=kernel=gemm_bf16_ws pingpong" | FileCheck %s --check-prefix=PPREGS
// PPREGS: tile.warp_specialize registers(40, 112) pingpong producer {
// PINGPONG: tile.persistent = #tile.persistent<group = 8, pingpong = true>
// PINGPONG: tile.warp_specialize registers(40, 232) pingpong producer {
// PINGPONG-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {
// PINGPONG: } consumer {
// PINGPONG-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (index) {

// Not in clusters yet.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16_ws_multicast.mlir "--tile-persistent=kernel=gemm_bf16_ws_multicast pingpong" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PPCLUSTER
// PPCLUSTER: error: 'tile.kernel' op asks for the ping-pong schedule in clusters (multicast copies or cluster mbarrier arrays), which is not supported yet
