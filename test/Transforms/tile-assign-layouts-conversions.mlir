// RUN: tessera-opt %s --split-input-file --tile-assign-layouts | FileCheck %s
// RUN: tessera-opt %S/../integration/Inputs/gpu_layout_conversions.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts | FileCheck %s --check-prefix=KERNELS
// RUN: tessera-opt %S/../integration/Inputs/gpu_layout_conversions.mlir \
// RUN:   --tile-set-target=chip=gfx942 --tile-assign-layouts | FileCheck %s --check-prefix=KERNELS
// RUN: tessera-opt %S/../integration/Inputs/gpu_layout_conversions.mlir \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts --tile-layout-report \
// RUN:   -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: gpu_layout_conversions.mlir:18:13: remark: layout of %{{.*}}: 64 registers per thread, {{.*}}; converted from {{.*}} through 8192 bytes of shared memory (stores, barrier, loads, barrier)
// REPORT: gpu_layout_conversions.mlir:41:9: remark: layout of %{{.*}}: 64 registers per thread, {{.*}}; converted from {{.*}} through 16384 bytes of shared memory (stores, barrier, loads, barrier)
// Tiles needed in a second layout get a tile.convert_layout where the
// second layout is needed (before the use), and the kernel is laid out
// again with it.

// The Gram matrix: X is the MMA's A and, transposed, its B: one conversion
// of the loaded tile for B, in the loop.
// KERNELS-LABEL: tile.kernel @gram
// KERNELS: scf.for
// KERNELS: %[[X:.*]] = tile.load
// KERNELS-NEXT: %[[XB:.*]] = tile.convert_layout %[[X]]
// KERNELS-NEXT: tile.mma %[[X]], %[[XB]], %{{.*}} transpose_b
// KERNELS-NOT: tile.convert_layout
// An accumulator truncated to int8 becomes the next MMA's B: one conversion.
// KERNELS-LABEL: tile.kernel @chained_int8
// KERNELS: %[[C:.*]] = arith.trunci
// KERNELS-NEXT: %[[CB:.*]] = tile.convert_layout %[[C]]
// KERNELS-NEXT: tile.mma %{{.*}}, %[[CB]], %{{.*}} :
// KERNELS-NOT: tile.convert_layout

// A broadcast that expands unit dimensions reads its input by coordinate:
// %o, broadcast over an MMA accumulator and over a coalesced tile, is
// converted for the second broadcast.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %X: !tile.view<?x?xf32>, %O: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x16xbf16>
    %b = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x8xbf16>
    %z = arith.constant dense<0.0> : tensor<16x8xf32>
    %d = tile.mma %a, %b, %z : tensor<16x16xbf16>, tensor<16x8xbf16> -> tensor<16x8xf32>
    %o = tile.load %O[%c0, %c0] : !tile.view<?x?xf32> -> tensor<1x8xf32>
    %o1 = tile.broadcast %o dims [0] : tensor<1x8xf32> -> tensor<16x8xf32>
    %s1 = arith.addf %o1, %d : tensor<16x8xf32>
    tile.store %s1 -> %O[%c0, %c0] : tensor<16x8xf32> -> !tile.view<?x?xf32>
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x8xf32>
    // CHECK: %[[O:.*]] = tile.load %{{.*}} -> tensor<1x8xf32
    // CHECK: tile.broadcast %[[O]] dims [0]
    // CHECK: %[[O2:.*]] = tile.convert_layout %[[O]] : tensor<1x8xf32, #tile.linear<register = {{\[}}[0, 1], [0, 0]]{{.*}}> -> tensor<1x8xf32, #tile.linear<register = {{\[}}[0, 1], [0, 2]]
    // CHECK-NEXT: tile.broadcast %[[O2]] dims [0]
    %o2 = tile.broadcast %o dims [0] : tensor<1x8xf32> -> tensor<16x8xf32>
    %s2 = arith.addf %o2, %x : tensor<16x8xf32>
    tile.store %s2 -> %O[%c0, %c0] : tensor<16x8xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// An A in registers that an mma.sync already laid out otherwise (a 2 x 2
// warp grid) is converted for a pinned wgmma's register operand.
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %x = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %y = tile.load %B[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %s = tile.alloc_shared : !tile.shared<64x64xbf16>
    tile.copy %B[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %b = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    %d = tile.mma %x, %y, %z kind mma_sync : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    // The pinned wgmma's register A and its accumulator (the mma.sync's
    // result) are converted to the wgmma fragments.
    // CHECK: %[[X:.*]] = tile.load %arg0
    // CHECK: %[[D:.*]] = tile.mma %[[X]], %{{.*}}, %{{.*}} kind mma_sync
    // CHECK-NEXT: %[[XA:.*]] = tile.convert_layout %[[X]]
    // CHECK-NEXT: %[[DC:.*]] = tile.convert_layout %[[D]]
    // CHECK-NEXT: tile.mma %[[XA]], %{{.*}}, %[[DC]] kind wgmma
    %e = tile.mma %x, %b, %d kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %e -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

