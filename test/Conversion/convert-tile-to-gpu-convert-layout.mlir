// RUN: tessera-opt %s --split-input-file --convert-tile-to-gpu | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-layout-report -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT
// REPORT: remark: layout of %{{.*}}; converted from {{.*}} by renaming registers
// REPORT: remark: layout of %{{.*}}; converted from the same layout (no code)
// REPORT: remark: layout of %{{.*}}; converted from {{.*}} through 256 bytes of shared memory
// REPORT: remark: layout of %{{.*}}; converted from {{.*}} through 128 bytes of shared memory
// tile.convert_layout, cheapest first: a renaming of registers when the
// layouts place lanes and warps alike, else a round trip through shared
// memory (one holder of each element stores it, barrier, loads, barrier).

#a = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#b = #tile.linear<register = [[8, 0], [0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
module attributes {tile.target = "sm_80"} {
  tile.kernel @rename(%X: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x8xf32, #a>
    %y = tile.convert_layout %x : tensor<16x8xf32, #a> -> tensor<16x8xf32, #b>
    %z = tile.convert_layout %y : tensor<16x8xf32, #b> -> tensor<16x8xf32, #b>
    tile.store %z -> %X[%c0, %c0] : tensor<16x8xf32, #b> -> !tile.view<?x?xf32>
    tile.return
  }
}
// CHECK-LABEL: gpu.func @rename
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 1, 3] : vector<4xf32>, vector<4xf32>
// CHECK-NOT: gpu.barrier
// CHECK: gpu.return

// -----

// From a layout that holds each element in two lanes (lane bit 4 a
// broadcast) and a column per thread to a row-per-thread one: lanes with
// that bit clear store, each bf16 in a 32-bit slot (a thread's elements
// are not consecutive in a row: two threads would share words).
#a = #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [4, 0], [8, 0], [0, 0]], warp = []>
#b = #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = []>
module attributes {tile.target = "sm_80"} {
  tile.kernel @round_trip(%X: !tile.view<?x?xbf16>) threads(32) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x4xbf16, #a>
    %y = tile.convert_layout %x : tensor<16x4xbf16, #a> -> tensor<16x4xbf16, #b>
    tile.store %y -> %X[%c0, %c0] : tensor<16x4xbf16, #b> -> !tile.view<?x?xbf16>
    tile.return
  }
}
// 64 bf16 in 32-bit slots: 256 bytes of scratch after no buffers.
// CHECK-LABEL: gpu.func @round_trip
// CHECK-SAME: tessera.shared_bytes = 256 : i64
// CHECK: %[[SCRATCH:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xi32, #gpu.address_space<workgroup>>
// CHECK: scf.if
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.extui %{{.*}} : i16 to i32
// CHECK: memref.store %{{.*}}, %[[SCRATCH]]
// CHECK: gpu.barrier
// CHECK: memref.load %[[SCRATCH]]
// CHECK: arith.trunci %{{.*}} : i32 to i16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: gpu.barrier
// CHECK: gpu.return

// -----

// The other way, each thread's four bf16 are a run of a row: stored as one
// 8-byte vector in the tile's own element type.
#a = #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0]], warp = []>
#b = #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [4, 0], [8, 0], [0, 0]], warp = []>
module attributes {tile.target = "sm_80"} {
  tile.kernel @native(%X: !tile.view<?x?xbf16>) threads(32) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x4xbf16, #a>
    %y = tile.convert_layout %x : tensor<16x4xbf16, #a> -> tensor<16x4xbf16, #b>
    tile.store %y -> %X[%c0, %c0] : tensor<16x4xbf16, #b> -> !tile.view<?x?xbf16>
    tile.return
  }
}
// CHECK-LABEL: gpu.func @native
// CHECK-SAME: tessera.shared_bytes = 128 : i64
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<64xbf16, #gpu.address_space<workgroup>>, vector<4xbf16>
// CHECK: gpu.barrier
// CHECK: memref.load %{{.*}} : memref<64xbf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier

// -----

// 32-bit elements go as vectors where a thread's registers are a run of a
// row: four f32 of a row per store, one f32 per load (a 64-lane wave).
#a = #tile.linear<register = [[0, 1], [0, 2]], lane = [[1, 0], [2, 0], [4, 0], [8, 0], [0, 0], [0, 0]], warp = []>
#b = #tile.linear<register = [[1, 0], [2, 0]], lane = [[0, 1], [0, 2], [4, 0], [8, 0], [0, 0], [0, 0]], warp = []>
module attributes {tile.target = "gfx942"} {
  tile.kernel @vectors(%X: !tile.view<?x?xf32>) threads(64) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x4xf32, #a>
    %y = tile.convert_layout %x : tensor<16x4xf32, #a> -> tensor<16x4xf32, #b>
    tile.store %y -> %X[%c0, %c0] : tensor<16x4xf32, #b> -> !tile.view<?x?xf32>
    tile.return
  }
}
// CHECK-LABEL: gpu.func @vectors
// CHECK: vector.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<64xf32, #gpu.address_space<workgroup>>, vector<4xf32>
// CHECK: gpu.barrier
// CHECK: memref.load
// CHECK: gpu.barrier
