// RUN: tessera-opt %s --split-input-file --tile-stage-stores | FileCheck %s
// The shipped kernels: the plain GEMM (its store in the kernel's body) and
// the warp-specialized one (in the consumer role), proved; the GEMM made
// persistent after, so that each tile's copy out overlaps the next tile.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-stage-stores=kernel=gemm_bf16 --tile-pipeline --tag-check | FileCheck %s --check-prefix=GEMM
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-stage-stores --tile-persistent=kernel=gemm_bf16 --tile-pipeline --tag-check -o /dev/null
// The 128x256 warp-specialized GEMM's 4-slot ring leaves no room for the
// 64 KiB buffer (gemm_bf16_ws_tma_store.mlir has 3 slots): tag-check says so.
// RUN: not tessera-opt %kernels/gemm/gemm_bf16_ws.mlir --tile-stage-stores --tag-check -o /dev/null 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: error: uses 262144 bytes of shared memory but the target has 232448; use smaller tiles or fewer stages
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir "--tile-pipeline=warp-specialize" --tile-stage-stores --tag-check -o /dev/null
// RUN: not tessera-opt %s --split-input-file --tile-stage-stores=kernel=nowhere -o /dev/null 2>&1 | FileCheck %s --check-prefix=NONE

// NONE: error: tile-stage-stores: no kernel named 'nowhere'

// GEMM-LABEL: tile.kernel @gemm_bf16
// GEMM: %[[BUF:.*]] = tile.alloc_shared : !tile.shared<128x128xbf16>
// GEMM: scf.for
// GEMM: arith.truncf
// GEMM-NEXT: tile.async_wait 0
// GEMM-NEXT: tile.barrier
// GEMM-NEXT: tile.store %{{.*}} -> %[[BUF]] : tensor<128x128xbf16> -> !tile.shared<128x128xbf16>
// GEMM-NEXT: tile.barrier
// GEMM-NEXT: tile.copy_out %[[BUF]] -> %{{.*}}[%{{.*}}, %{{.*}}] async
// GEMM-NEXT: tile.async_commit
// GEMM-NOT: tile.store
// GEMM: tile.return

// A store in the kernel's body becomes a store into a new buffer and an
// asynchronous copy out, waited for before the buffer is written again; a
// store inside a loop (not once per program) stays.
// CHECK-LABEL: tile.kernel @body
// CHECK: %[[B:.*]] = tile.alloc_shared : !tile.shared<64x64xf32>
// CHECK: scf.for
// CHECK: tile.store %{{.*}} -> %arg1[%{{.*}}, %{{.*}}] : tensor<64x64xf32> -> !tile.view<?x?xf32>
// CHECK-NEXT: }
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store %{{.*}} -> %[[B]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy_out %[[B]] -> %arg1[%{{.*}}, %{{.*}}] async
// CHECK-NEXT: tile.async_commit
tile.kernel @body(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>, %T: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  scf.for %t = %c0 to %T step %c1 {
    %m = arith.muli %t, %c64 : index
    %r = tile.load %X[%m, %c64] : !tile.view<?x?xf32> -> tensor<64x64xf32>
    tile.store %r -> %Y[%m, %c64] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  }
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
  %y = arith.addf %x, %x : tensor<64x64xf32>
  tile.store %y -> %Y[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// In a warp-specialized kernel, the consumers' store; a 1-D store stays.
// CHECK-LABEL: tile.kernel @roles
// CHECK: %[[B:.*]] = tile.alloc_shared : !tile.shared<64x64xf32>
// CHECK: } consumer {
// CHECK: tile.store %{{.*}} -> %arg2[%{{.*}}] :
// CHECK: tile.async_wait 0
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.store %{{.*}} -> %[[B]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy_out %[[B]] -> %arg1[%{{.*}}, %{{.*}}] async
// CHECK-NEXT: tile.async_commit
tile.kernel @roles(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>, %Z: !tile.view<?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  tile.warp_specialize registers(40, 232) producer {
  } consumer {
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<64x64xf32>
    %z = tile.load %Z[%c0] : !tile.view<?xf32> -> tensor<64xf32>
    tile.store %z -> %Z[%c0] : tensor<64xf32> -> !tile.view<?xf32>
    tile.store %x -> %Y[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}
