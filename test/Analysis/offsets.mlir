// RUN: tessera-opt %s --split-input-file --tag-check=print-stats 2>/dev/null | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// Every view access is classified: `tile.index_bits = 32` when every element
// offset is proved below 2^31 under the kernel's assumptions (the lowering
// may use 32-bit offsets), else 64.

// STATS: remark: tag-check: @bounded: {{.*}}; 3 of 3 view accesses fit 32-bit offsets
// CHECK-LABEL: tile.kernel @bounded
// CHECK: tile.copy {{.*}} {tile.index_bits = 32 : i64}
// CHECK: tile.load {{.*}} {tile.index_bits = 32 : i64}
// CHECK: tile.store {{.*}} {tile.index_bits = 32 : i64}
tile.kernel @bounded(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %limit = arith.constant 16384 : index
  %M = tile.dim %A, 0 : !tile.view<?x?xf16>
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %m_ok = arith.cmpi ule, %M, %limit : index
  %k_ok = arith.cmpi ule, %K, %limit : index
  tag.assume %m_ok, "M <= 2^14" : i1
  tag.assume %k_ok, "K <= 2^14" : i1
  %same = tile.dim %C, 0 : !tile.view<?x?xf16>
  %same_m = arith.cmpi eq, %same, %M : index
  tag.assume %same_m : i1
  %same2 = tile.dim %C, 1 : !tile.view<?x?xf16>
  %same_k = arith.cmpi eq, %same2, %K : index
  tag.assume %same_k : i1
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c64 : index
  %s = tile.alloc_shared : !tile.shared<64x64xf16>
  tile.copy %A[%m0, %c0] -> %s : !tile.view<?x?xf16> -> !tile.shared<64x64xf16>
  %t = tile.load %A[%m0, %c64] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  tile.store %t -> %C[%m0, %c0] : tensor<64x64xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Without bounds on the sizes, M * K can pass 2^31.
// STATS: remark: tag-check: @unbounded: {{.*}}; 0 of 2 view accesses fit 32-bit offsets
// CHECK-LABEL: tile.kernel @unbounded
// CHECK: tile.load {{.*}} {tile.index_bits = 64 : i64}
// CHECK: tile.store {{.*}} {tile.index_bits = 64 : i64}
tile.kernel @unbounded(%A: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c64 : index
  %t = tile.load %A[%m0, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
  tile.store %t -> %A[%m0, %c0] : tensor<64x64xf16> -> !tile.view<?x?xf16>
  tile.return
}

// -----

// Static sizes bound the offsets by themselves.
// STATS: remark: tag-check: @static_view: {{.*}}; 1 of 1 view accesses fit 32-bit offsets
tile.kernel @static_view(%A: !tile.view<1024x1024xf32>, %i: index) threads(128) {
  %c0 = arith.constant 0 : index
  %t = tile.load %A[%i, %c0] : !tile.view<1024x1024xf32> -> tensor<16x1024xf32>
  tile.return
}
