// RUN: tessera-opt %s --split-input-file --tile-set-target=chip=gfx942 \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-set-target=chip=sm_80 \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu --canonicalize --cse \
// RUN:   | FileCheck %s --check-prefix=NV
// Shared-memory indices are a per-thread base plus a constant: the swizzle
// and the layout are both linear over bits, so a register's stored
// (row, column) is the thread's part xor the register's. Only the register
// bits the thread's part can also have (here the rows' low bits, which the
// swizzle moves into the column chunk) need a base of their own; the rest
// is added, and the backend folds it into the instruction's immediate
// offset instead of keeping an address register per element.

// On gfx942, V as the B operand of a 32x32x8 MFMA is read element by
// element down its columns (k runs along V's rows): four column bases, one
// per row within a k group of four, and rows at a constant distance.
// CHECK-LABEL: gpu.func @pv
// CHECK: %[[C1:[0-9]+]] = arith.xori %[[C0:[0-9]+]], %c8 : index
// CHECK-NEXT: %[[C2:[0-9]+]] = arith.xori %[[C0]], %c16 : index
// CHECK-NEXT: %[[C3:[0-9]+]] = arith.xori %[[C0]], %c24 : index
// CHECK: memref.load %[[V:[a-z0-9_]+]][%[[ROW:[a-z0-9_]+]], %[[C0]]] : memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT: %[[R1:[0-9]+]] = arith.addi %[[ROW]], %c1 : index
// CHECK-NEXT: memref.load %[[V]][%[[R1]], %[[C1]]]
// CHECK-NEXT: %[[R2:[0-9]+]] = arith.addi %[[ROW]], %c2 : index
// CHECK-NEXT: memref.load %[[V]][%[[R2]], %[[C2]]]
// CHECK-NEXT: %[[R3:[0-9]+]] = arith.addi %[[ROW]], %c3 : index
// CHECK-NEXT: memref.load %[[V]][%[[R3]], %[[C3]]]
// The next k group reuses the same column bases, eight rows further.
// CHECK-NEXT: %[[R8:[0-9]+]] = arith.addi %[[ROW]], %c8 : index
// CHECK-NEXT: memref.load %[[V]][%[[R8]], %[[C0]]]
// On sm_80, ldmatrix row addresses of later blocks are constant row
// offsets from the first block's.
// NV-LABEL: gpu.func @pv
// NV: nvgpu.ldmatrix %[[S:[a-z0-9_]+]][%[[NVROW:[0-9]+]], %[[NVCOL:[0-9]+]]] {numTiles = 4 : i32, transpose = true}
// NV: %[[NEXT:[0-9]+]] = arith.addi %[[NVROW]], %c{{[0-9]+}} : index
// NV-NEXT: nvgpu.ldmatrix %[[S]][%[[NEXT]], %[[NVCOL]]] {numTiles = 4 : i32, transpose = true}
tile.kernel @pv(%X: !tile.view<?x?xbf16>, %V: !tile.view<?x?xbf16>,
                %O: !tile.view<?x?xf32>) threads(256) {
  %c0 = arith.constant 0 : index
  %sV = tile.alloc_shared : !tile.shared<64x64xbf16>
  tile.copy %V[%c0, %c0] -> %sV
      : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
  tile.barrier
  %p = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x64xbf16>
  %v = tile.load %sV : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  %zero = arith.constant dense<0.0> : tensor<128x64xf32>
  %o = tile.mma %p, %v, %zero
      : tensor<128x64xbf16>, tensor<64x64xbf16> -> tensor<128x64xf32>
  tile.store %o -> %O[%c0, %c0] : tensor<128x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
