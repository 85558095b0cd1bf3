// RUN: tessera-opt %s --split-input-file --tile-set-target=chip=sm_80 \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu --canonicalize --cse \
// RUN:   --verify-diagnostics | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-set-target=chip=gfx942 \
// RUN:   --tile-assign-layouts --convert-tile-to-gpu --canonicalize --cse \
// RUN:   --verify-diagnostics | FileCheck %s --check-prefix=AMD
// tile.store of a register tile into a shared buffer: one vector store per
// run of registers along a row within a swizzle chunk (16 bytes for the
// copy layout a tile loaded from a view takes), at the buffer's swizzled
// indices; the shared load after the barrier reads the same chunks.

// CHECK-LABEL: gpu.func @stage
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<64x64xbf16, #gpu.address_space<workgroup>>
// CHECK: vector.store %{{.*}}, %[[S]][%[[R0:.*]], %[[C0:.*]]] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-COUNT-3: vector.store %{{.*}}, %[[S]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: vector.load %[[S]][%[[R0]], %[[C0]]] {alignment = 16 : i64}
// On gfx942 the tile comes from the view with a buffer load per 16-byte
// run, and goes into LDS the same way.
// AMD-LABEL: gpu.func @stage
// AMD: %[[RSRC:.*]] = rocdl.make.buffer.rsrc
// AMD: %[[CHUNK:.*]] = scf.if %{{.*}} -> (vector<8xbf16>) {
// AMD: rocdl.raw.ptr.buffer.load %[[RSRC]], %{{.*}}, %c0_i32, %c0_i32 : vector<4xi32>
// AMD: vector.store %[[CHUNK]], %{{.*}} {alignment = 16 : i64} : memref<64x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
tile.kernel @stage(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<64x64xbf16>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  tile.store %x -> %s : tensor<64x64xbf16> -> !tile.shared<64x64xbf16>
  tile.barrier
  %y = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
  tile.store %y -> %Y[%c0, %c0] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}

// -----

// An 8x8 tile over 64 threads: 16 threads hold it, each element four
// times over (two lane bits and the warp bit are broadcasts); only the
// threads with those bits clear store.
// CHECK-LABEL: gpu.func @small
// CHECK: vector.from_elements
// CHECK: %[[OWNER:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT: scf.if %[[OWNER]] {
// CHECK: vector.store %{{.*}} {alignment = 16 : i64} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
// AMD-LABEL: gpu.func @small
// AMD: scf.if %{{.*}} {
// AMD: vector.store %{{.*}} {alignment = 16 : i64} : memref<8x8xf32, #gpu.address_space<workgroup>>, vector<4xf32>
tile.kernel @small(%X: !tile.view<?x?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<8x8xf32>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<8x8xf32>
  tile.store %x -> %s : tensor<8x8xf32> -> !tile.shared<8x8xf32>
  tile.return
}

// -----

tile.kernel @nibbles(%A: !tile.view<?x?xbf16>, %W: !tile.view<?x?x2xi4>, %S: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(256) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared : !tile.shared<128x64x2xi4>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<128x128xbf16>
  %w = tile.load %W[%c0, %c0, %c0] : !tile.view<?x?x2xi4> -> tensor<128x64x2xi4>
  %codes = tile.unpack %w dim 1 order [0, 1] : tensor<128x64x2xi4> -> tensor<128x128xi4>
  %scales = tile.load %S[%c0, %c0] : !tile.view<?x?xf16> -> tensor<1x128xf16>
  %b = tile.dequant %codes, %scales group [128, 1] : tensor<128x128xi4>, tensor<1x128xf16> -> tensor<128x128xbf16>
  %z = arith.constant dense<0.0> : tensor<128x128xf32>
  %c = tile.mma %a, %b, %z : tensor<128x128xbf16>, tensor<128x128xbf16> -> tensor<128x128xf32>
  tile.store %c -> %C[%c0, %c0] : tensor<128x128xf32> -> !tile.view<?x?xf32>
  // expected-error @below {{'tile.store' op into a buffer of int4 nibble pairs is not supported by convert-tile-to-gpu yet}}
  tile.store %w -> %s : tensor<128x64x2xi4> -> !tile.shared<128x64x2xi4>
  tile.return
}

// -----

// A tile.tma buffer is sm_90a's (the threads' stores into it are fenced for
// TMA stores).
tile.kernel @store_into_tma(%X: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
  // expected-error @below {{'tile.store' op into a tile.tma buffer needs sm_90a, not}}
  tile.store %x -> %s : tensor<64x64xbf16> -> !tile.shared<64x64xbf16>
  tile.return
}
