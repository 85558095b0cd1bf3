// RUN: tessera-opt %s --split-input-file --tag-check=print-stats 2>/dev/null | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// Every view access is classified: `tile.index_bits = 32` when every element
// offset is proved below 2^31 under the kernel's assumptions, else 64. Views
// are strided (innermost stride 1, outer strides the caller's): an outer
// index other than 0 is multiplied by a stride the kernel cannot bound.

// A 1-D view whose size is bounded: every offset is below 2^14.
// STATS: remark: tag-check: @bounded_row: {{.*}}; 3 of 3 view accesses fit 32-bit offsets
// CHECK-LABEL: tile.kernel @bounded_row
// CHECK: tile.copy {{.*}} {tile.index_bits = 32 : i64}
// CHECK: tile.load {{.*}} {tile.index_bits = 32 : i64}
// CHECK: tile.store {{.*}} {tile.index_bits = 32 : i64}
tile.kernel @bounded_row(%A: !tile.view<?xf16>, %C: !tile.view<?xf16>) threads(128) {
  %c64 = arith.constant 64 : index
  %limit = arith.constant 16384 : index
  %N = tile.dim %A, 0 : !tile.view<?xf16>
  %n_ok = arith.cmpi ule, %N, %limit : index
  tag.assume %n_ok, "N <= 2^14" : i1
  %same = tile.dim %C, 0 : !tile.view<?xf16>
  %same_n = arith.cmpi eq, %same, %N : index
  tag.assume %same_n : i1
  %pid = tile.program_id x
  %n0 = arith.muli %pid, %c64 : index
  %s = tile.alloc_shared : !tile.shared<64xf16>
  tile.copy %A[%n0] -> %s : !tile.view<?xf16> -> !tile.shared<64xf16>
  %t = tile.load %A[%n0] : !tile.view<?xf16> -> tensor<64xf16>
  tile.store %t -> %C[%n0] : tensor<64xf16> -> !tile.view<?xf16>
  tile.return
}

// -----

// Bounded sizes do not bound a 2-D view's offsets: its row stride is the
// caller's (a sub-view of a larger tensor keeps its parent's).
// STATS: remark: tag-check: @bounded_rows: {{.*}}; 0 of 2 view accesses fit 32-bit offsets
// CHECK-LABEL: tile.kernel @bounded_rows
// CHECK: tile.load {{.*}} {tile.index_bits = 64 : i64}
// CHECK: tile.store {{.*}} {tile.index_bits = 64 : i64}
tile.kernel @bounded_rows(%A: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %limit = arith.constant 16384 : index
  %M = tile.dim %A, 0 : !tile.view<?x?xf16>
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %m_ok = arith.cmpi ule, %M, %limit : index
  %k_ok = arith.cmpi ule, %K, %limit : index
  tag.assume %m_ok, "M <= 2^14" : i1
  tag.assume %k_ok, "K <= 2^14" : i1
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c64 : index
  %t = tile.load %A[%m0, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  tile.store %t -> %A[%m0, %c0] : tensor<64x64xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Without bounds on the size, a 1-D offset can pass 2^31.
// STATS: remark: tag-check: @unbounded: {{.*}}; 0 of 1 view accesses fit 32-bit offsets
// CHECK-LABEL: tile.kernel @unbounded
// CHECK: tile.load {{.*}} {tile.index_bits = 64 : i64}
tile.kernel @unbounded(%A: !tile.view<?xf16>) threads(128) {
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %n0 = arith.muli %pid, %c64 : index
  %t = tile.load %A[%n0] : !tile.view<?xf16> -> tensor<64xf16>
  tile.return
}

// -----

// Static sizes bound the offsets by themselves where the outer index is
// always 0 (a single row).
// STATS: remark: tag-check: @static_row: {{.*}}; 1 of 2 view accesses fit 32-bit offsets
// CHECK-LABEL: tile.kernel @static_row
// CHECK: tile.load {{.*}} {tile.index_bits = 32 : i64}
// CHECK: tile.load {{.*}} {tile.index_bits = 64 : i64}
tile.kernel @static_row(%A: !tile.view<1x1024xf32>, %B: !tile.view<1024x1024xf32>, %i: index) threads(128) {
  %c0 = arith.constant 0 : index
  %t = tile.load %A[%c0, %c0] : !tile.view<1x1024xf32> -> tensor<1x1024xf32>
  %u = tile.load %B[%i, %c0] : !tile.view<1024x1024xf32> -> tensor<16x1024xf32>
  tile.return
}
