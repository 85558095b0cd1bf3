// The pipelined bf16 GEMM on sm_80: cp.async rings into swizzled dynamic
// shared memory, ldmatrix (x4 for A, x4.trans for B), mma.sync m16n8k16
// per accumulator fragment and K step, masked vector stores.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse -o %t
// RUN: grep -c "nvvm.mma.sync" %t | FileCheck %s --check-prefix=MMA
// RUN: grep -c "transpose = false" %t | FileCheck %s --check-prefix=LDA
// RUN: grep -c "transpose = true" %t | FileCheck %s --check-prefix=LDB
// RUN: grep -c "nvgpu.device_async_copy" %t | FileCheck %s --check-prefix=CP
// RUN: grep -c "vector.store .*, %arg2" %t | FileCheck %s --check-prefix=STORES

// CHECK: module attributes {gpu.container_module, tile.target = "sm_80"}
// CHECK: gpu.module @tessera_kernels
// CHECK: gpu.func @gemm_bf16(%{{.*}}: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xbf16, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?x?xbf16, strided<[?, 1], offset: ?>>) kernel attributes {known_block_size = array<i32: 256, 1, 1>, tessera.shared_bytes = 98304 : i64}
// CHECK: gpu.thread_id x
// CHECK: gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<3x128x64xbf16, #gpu.address_space<workgroup>>
// CHECK: memref.view {{.*}} to memref<3x64x128xbf16, #gpu.address_space<workgroup>>
// The two prologue stages: copies with a zero-filling element count,
// then a commit each.
// CHECK: nvgpu.device_async_copy {{.*}}, 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for {{.*}} -> (vector<64xf32>)
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: gpu.barrier
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = false} {{.*}} -> vector<4x2xbf16>
// CHECK: nvgpu.ldmatrix {{.*}} {numTiles = 4 : i32, transpose = true} {{.*}} -> vector<4x2xbf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}
// CHECK: scf.yield {{.*}} : vector<64xf32>
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: arith.truncf {{.*}} : vector<64xf32> to vector<64xbf16>
// The epilogue: each thread's runs of two columns (the accumulator
// fragment's), one 4-byte vector store each where C's rows are 16-byte
// aligned and the run inside C, element by element before its edge.
// CHECK: vector.extract_strided_slice %{{.*}} {offsets = [0], sizes = [2], strides = [1]} : vector<64xbf16> to vector<2xbf16>
// CHECK: scf.if
// CHECK-NEXT: vector.store %{{.*}}, %arg2[%{{.*}}, %{{.*}}] {alignment = 4 : i64} : memref<?x?xbf16, strided<[?, 1], offset: ?>>, vector<2xbf16>
// CHECK-NEXT: } else {
// CHECK: scf.if
// CHECK: memref.store {{.*}}, %arg2{{.*}} : memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: gpu.return
// CHECK-NOT: tile.
// CHECK-NOT: tag.

// Per K tile and warp (64x32 of the 128x128 tile): 4 x 4 x 4 MMAs, 16
// ldmatrix.x4 for A and 8 ldmatrix.x4.trans for B; per thread and stage,
// 4 + 4 16-byte copies (3 stages issued: 2 in the prologue, 1 in the loop).
// MMA: {{^}}64{{$}}
// LDA: {{^}}16{{$}}
// LDB: {{^}}8{{$}}
// CP: {{^}}24{{$}}
// 64 bf16 of C per thread: 32 runs of two.
// STORES: {{^}}32{{$}}
