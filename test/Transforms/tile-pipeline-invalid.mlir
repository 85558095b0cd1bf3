// RUN: tessera-opt %s --split-input-file --tile-pipeline --verify-diagnostics

tile.kernel @k(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{tile-pipeline: the loop has no tile.copy into shared memory to pipeline}}
  scf.for %i = %c0 to %n step %c1 {
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

tile.kernel @k(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  %t = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %X[%i] -> %s : !tile.view<?xf32> -> !tile.shared<16xf32>
    tile.barrier
    %v = tile.load %s : !tile.shared<16xf32> -> tensor<16xf32>
    // expected-error @below {{tile-pipeline: the loop writes shared memory other than by top-level tile.copy; it cannot be pipelined}}
    tile.store %v -> %t : tensor<16xf32> -> !tile.shared<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

tile.kernel @k(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{tile-pipeline: this copy is already asynchronous or fills a ring}}
    tile.copy %X[%i] -> %s async : !tile.view<?xf32> -> !tile.shared<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

tile.kernel @k(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-note @below {{filled here}}
    tile.copy %X[%i] -> %s : !tile.view<?xf32> -> !tile.shared<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  // expected-error @below {{tile-pipeline: a pipelined buffer may only be used inside its loop}}
  %v = tile.load %s : !tile.shared<16xf32> -> tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %X[%i] -> %s : !tile.view<?xf32> -> !tile.shared<16xf32>
    // expected-error @below {{tile-pipeline: the buffer is filled twice in one iteration}}
    tile.copy %X[%c0] -> %s : !tile.view<?xf32> -> !tile.shared<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

tile.kernel @k(%X: !tile.view<?xi32>, %Y: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{tile-pipeline: a copy's offsets must be pure arithmetic on the induction variable and values from outside the loop}}
    %ids = tile.load %X[%i] : !tile.view<?xi32> -> tensor<1xi32>
    %id = tensor.extract %ids[%c0] : tensor<1xi32>
    %off = arith.index_cast %id : i32 to index
    tile.copy %Y[%off] -> %s : !tile.view<?xf32> -> !tile.shared<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 2>}
  tile.return
}

// -----

// A schedule the expansion cannot carry out: the copy in stage 1.
tile.kernel @k(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{tile-pipeline: the schedule puts this op in stage 1, but the expansion needs stage 0 (copies in stage 0, the loads of their buffers in stage 2)}}
    tile.copy %X[%i] -> %s {tile.stage = 1} : !tile.view<?xf32> -> !tile.shared<16xf32>
    tile.barrier {tile.stage = 2}
    %t = tile.load %s {tile.stage = 2} : !tile.shared<16xf32> -> tensor<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}

// -----

// The loads of a pipelined buffer must come a full ring later.
tile.kernel @k(%X: !tile.view<?xf32>, %n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %s = tile.alloc_shared : !tile.shared<16xf32>
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %X[%i] -> %s {tile.stage = 0} : !tile.view<?xf32> -> !tile.shared<16xf32>
    // expected-error @below {{tile-pipeline: the schedule puts this op in stage 1, but the expansion needs stage 2}}
    %t = tile.load %s {tile.stage = 1} : !tile.shared<16xf32> -> tensor<16xf32>
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}

// -----

// Warp specialization splits the kernel: the loop must be at its top level.
tile.kernel @ws_nested(%A: !tile.view<?x?xf16>, %K: index, %go: i1) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  scf.if %go {
    // expected-error @below {{tile-pipeline: warp specialization needs the loop at the top level of its kernel}}
    scf.for %k = %c0 to %K step %c32 {
      tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
      tile.barrier
      %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
      tile.barrier
    } {tile.pipeline = #tile.pipeline<stages = 2, warp_specialize = true>}
  }
  tile.return
}

// -----

tile.kernel @ws_threads(%A: !tile.view<?x?xf16>, %K: index) threads(96) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %sA = tile.alloc_shared : !tile.shared<32x32xf16>
  // expected-error @below {{tile-pipeline: warp specialization needs a kernel of whole warpgroups of at most 896 threads, not 96}}
  scf.for %k = %c0 to %K step %c32 {
    tile.copy %A[%c0, %k] -> %sA : !tile.view<?x?xf16> -> !tile.shared<32x32xf16>
    tile.barrier
    %a = tile.load %sA : !tile.shared<32x32xf16> -> tensor<32x32xf16>
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 2, warp_specialize = true>}
  tile.return
}
