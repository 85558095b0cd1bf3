// A reduction whose reduced dimension spans warps: column sums of a 64x32
// i32 tile held by 4 warps (16 rows each; in a warp, lane bits 3 and 4 move
// along the rows). Each thread adds its registers' rows, then the lanes 8
// and 16 away (shuffles), then the 4 warps combine through a scratch
// buffer of 128 threads x 4 values in shared memory: every thread stores
// its 4 partial sums, a barrier, every thread loads the 4 warps' sums of
// its lane in warp order, a barrier (before the buffer is written again).
// RUN: tessera-opt %S/../integration/Inputs/gpu_across_warps.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s

// CHECK-LABEL: gpu.func @column_sums_warps
// CHECK-SAME: tessera.shared_bytes = 2048
// CHECK: gpu.shuffle  xor %{{.*}}, %c8_i32, %c32_i32 : i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 : i32
// CHECK: %[[SCRATCH:.*]] = memref.view %{{.*}}[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<512xi32, #gpu.address_space<workgroup>>
// CHECK-COUNT-4: memref.store %{{.*}}, %[[SCRATCH]][%{{.*}}] : memref<512xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-16: memref.load %[[SCRATCH]][%{{.*}}]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// The whole-tile quantization: each thread's largest |x|, then its warp's
// (five shuffles), then the 4 warps' through shared memory; one scale.
// CHECK-LABEL: gpu.func @quant_tile
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-4: memref.load %{{.*}} : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: arith.divf
