// The pipelined bf16 GEMM on sm_90a: tile-assign-layouts picks wgmma (its
// operand buffers are filled only by copies and read only by the MMA), so
// the rings are TMA-filled 128-byte swizzled panels with one mbarrier per
// slot, and the K loop issues wgmma.m64n128k16 from matrix descriptors.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --tile-layout-report -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse -o %t
// RUN: grep -c "nvvm.wgmma.mma_async" %t | FileCheck %s --check-prefix=FOUR
// RUN: grep -c "nvvm.mbarrier.init" %t | FileCheck %s --check-prefix=SIX
// Unpipelined (copies before the barrier in the loop), or with the slot
// the copies refill not provably another than the loads read, each group
// is waited for at once.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=sm_90a \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu | FileCheck %s --check-prefix=WAIT0
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline -o %t.piped
// RUN: sed -e 's/arith.addi \(%[0-9]*\), %c2 : index/arith.addi \1, %c3 : index/' \
// RUN:   %t.piped > %t.sameslot
// RUN: not diff -q %t.piped %t.sameslot > /dev/null
// RUN: tessera-opt %t.sameslot --tile-set-target=chip=sm_90a \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu | FileCheck %s --check-prefix=WAIT0
// The PTX (no toolkit needed) has the sm_90a instructions.
// RUN: tessera-compile %kernels/gemm/gemm_bf16.mlir --target=sm_90a \
// RUN:   --passes=tile-pipeline --emit=ptx -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.ptx
// The same MMA with mma.sync pinned keeps the sm_80 instruction set.
// RUN: sed -e 's/tile.mma %a, %b, %c$/tile.mma %a, %b, %c kind mma_sync/' \
// RUN:   %kernels/gemm/gemm_bf16.mlir > %t.pinned.mlir
// RUN: grep -c "kind mma_sync" %t.pinned.mlir | FileCheck %s --check-prefix=ONE
// RUN: tessera-opt %t.pinned.mlir --tile-set-target=chip=sm_90a \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu -o %t.pinned.gpu
// RUN: grep -c "nvvm.mma.sync" %t.pinned.gpu | FileCheck %s --check-prefix=MMASYNC
// RUN: not grep -q "wgmma\|mbarrier" %t.pinned.gpu

// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<128x64xbf16, stages = 3>
// LAYOUT: tile.alloc_shared {tile.tma} : !tile.shared<64x128xbf16, stages = 3>
// Warp w of warpgroup g holds rows 16 w + 64 g of the m64n128 fragment.
// LAYOUT: arith.constant dense<0.000000e+00> : tensor<128x128xf32, #tile.linear<register = {{\[}}[0, 1], [8, 0], [0, 8], [0, 16], [0, 32], [0, 64]], lane = {{\[}}[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = {{\[}}[16, 0], [32, 0], [64, 0]]>>
// LAYOUT: tile.mma {{.*}} kind wgmma

// REPORT: remark: shared %{{.*}}: 128-byte swizzle in 1 panel(s) of 128-byte rows, 1024-byte aligned; written by bulk tensor copies (TMA) onto mbarriers; read by %{{.*}} with wgmma through a K-major matrix descriptor
// REPORT: remark: shared %{{.*}}: 128-byte swizzle in 2 panel(s) of 128-byte rows, 1024-byte aligned; written by bulk tensor copies (TMA) onto mbarriers; read by %{{.*}} with wgmma through a N-major matrix descriptor
// REPORT: remark: layout of %{{.*}}: not held in registers; wgmma reads it from shared memory

// Two tensor maps follow the views: A's box 64 x 128, B's 64 x 64 (two
// panels per slot).
// CHECK: gpu.func @gemm_bf16({{.*}}, %[[MAPA:.*]]: !llvm.ptr, %[[MAPB:.*]]: !llvm.ptr) kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessera.shared_bytes = 99328 : i64, tessera.tensor_maps = ["tmap:0:64x128", "tmap:1:64x64"]}
// Thread 0 initializes the six mbarriers (3 slots x 2 buffers) before a
// barrier.
// CHECK: memref.alloca() : memref<2xi32>
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: gpu.barrier
// A prologue fill: expect the box's bytes, then one copy per panel,
// coordinates innermost (column) first.
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]], %[[BAR]], box[%c0_i32, %{{.*}}] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BARB:.*]], %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %[[BARB]], box
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]], %[[BARB]], box
// The K loop: wait for the slot's phase, then the wgmma group, which stays
// in flight while the previous iteration's completes; a barrier, and only
// then the copies that refill the slots that group read.
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: expect_tx
// CHECK: scf.while
// CHECK: nvvm.mbarrier.try_wait %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32 -> i1
// CHECK: nvvm.wgmma.fence.aligned
// A: K-major, 8-row groups 1024 bytes apart (1 << 62 | 64 << 32 | 1 << 16);
// B: N-major, panels 8192 bytes apart (1 << 62 | 64 << 32 | 512 << 16).
// CHECK: arith.ori %{{.*}}, %c4611686293305360384_i64
// CHECK: arith.ori %{{.*}}, %c4611686293338849280_i64
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: wgmma
// CHECK: nvvm.wgmma.wait.group.sync.aligned 1
// CHECK-NOT: expect_tx
// CHECK: gpu.barrier
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPA]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAPB]]
// CHECK: scf.yield
// After the loop the last group completes before the accumulators are
// read, and every pending fill is waited for before the stores.
// CHECK-NEXT: }
// CHECK-NOT: memref.store
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "// wait for the accumulators $0 $1 {{.*}}\0Awgmma.wait_group.sync.aligned 0;"
// CHECK: nvvm.mbarrier.try_wait
// CHECK: memref.store %{{.*}}, %arg2
// FOUR: 4
// SIX: 6
// ONE: 1
// MMASYNC: {{^[1-9][0-9]*$}}
// WAIT0: nvvm.wgmma.commit.group.sync.aligned
// WAIT0-NOT: nvvm.wgmma.wait.group.sync.aligned
// WAIT0: llvm.inline_asm has_side_effects asm_dialect = att "// wait for the accumulators $0 {{.*}}\0Awgmma.wait_group.sync.aligned 0;"
// WAIT0-NOT: nvvm.wgmma.wait.group.sync.aligned 1

// PTX: .target sm_90a
// PTX: .extern .shared .align 1024 .b8
// PTX-DAG: mbarrier.init.shared.b64
// PTX-DAG: mbarrier.arrive.expect_tx
// PTX-DAG: cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// PTX-DAG: mbarrier.try_wait.parity
// PTX-DAG: wgmma.fence.sync.aligned
// PTX-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16
// PTX-DAG: wgmma.commit_group.sync.aligned
// PTX-DAG: wgmma.wait_group.sync.aligned 1
// PTX-DAG: wgmma.wait_group.sync.aligned 0
