// convert-tile-to-host: one C-ABI entry per kernel running program
// instances [begin, end); loop-carried tiles live in buffers, and yields
// that trade them (a swap) are staged through temporaries so that no copy
// reads a buffer an earlier one overwrote.
// RUN: tessera-opt %s --convert-tile-to-host | FileCheck %s

// CHECK-LABEL: func.func @tessera_kernel_yield_swap(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {llvm.emit_c_interface}
// CHECK: %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: %[[T0:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: %[[T1:.*]] = memref.alloc() {alignment = 64 : i64} : memref<8xf32>
// CHECK: scf.for
// CHECK: linalg.copy ins(%[[B]] : memref<8xf32>) outs(%[[T0]] : memref<8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[A]] : memref<8xf32>) outs(%[[T1]] : memref<8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[T0]] : memref<8xf32>) outs(%[[A]] : memref<8xf32>)
// CHECK-NEXT: linalg.copy ins(%[[T1]] : memref<8xf32>) outs(%[[B]] : memref<8xf32>)
// CHECK: memref.dealloc
// CHECK-NOT: tile.
tile.kernel @yield_swap(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>,
                        %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %a0 = tile.load %X[%c0] : !tile.view<?xf32> -> tensor<8xf32>
  %b0 = tile.load %X[%c8] : !tile.view<?xf32> -> tensor<8xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %a0, %b = %b0)
      -> (tensor<8xf32>, tensor<8xf32>) {
    scf.yield %b, %a : tensor<8xf32>, tensor<8xf32>
  }
  tile.store %r#0 -> %Y[%c0] : tensor<8xf32> -> !tile.view<?xf32>
  tile.store %r#1 -> %Y[%c8] : tensor<8xf32> -> !tile.view<?xf32>
  tile.return
}
