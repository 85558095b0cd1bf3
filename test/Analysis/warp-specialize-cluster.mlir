// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// tag-check on warp-specialized kernels launched in clusters: a multicast
// copy's window and the roles' loop range must be the same in every
// program of the cluster (proved for every other program of the grid in
// this one's cluster, or refuted with a counterexample naming it), and a
// multicast ring slot is released through a cluster mbarrier array.

// -----

// Both programs of a cluster along x copy the same B window (k, n0) at
// every k and run the loop over the same range: proved.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %Off: !tile.view<?xi32>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.program_id x
  %y = tile.program_id y
  %m0 = arith.muli %x, %c32 : index
  %n0 = arith.muli %y, %c32 : index
  %ub = arith.addi %K, %c0 : index
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %ub step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<2>
      tile.copy %A[%m0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.copy %B[%k, %n0] -> %rB[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<2>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %ub step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<2>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<2>
      scf.yield %d : tensor<32x32xf32>
    }
    tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// Refuted: A's window (m0, k) differs between the cluster's programs.
tile.kernel @multicast_a(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %Off: !tile.view<?xi32>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.program_id x
  %y = tile.program_id y
  %m0 = arith.muli %x, %c32 : index
  %n0 = arith.muli %y, %c32 : index
  %ub = arith.addi %K, %c0 : index
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %ub step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<2>
      // expected-error @below {{tag assertion failed: offset 0 of a multicast copy is the same in every program of the cluster}}
      // expected-note @below {{counterexample:}}
      tile.copy %A[%m0, %k] -> %rA[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.copy %B[%k, %n0] -> %rB[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<2>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %ub step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<2>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<2>
      scf.yield %d : tensor<32x32xf32>
    }
    tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// Refuted: the K range depends on the program's row tile, so the
// programs would arrive on each other's barriers a different number of
// times.
tile.kernel @range_per_program(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %Off: !tile.view<?xi32>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.program_id x
  %y = tile.program_id y
  %m0 = arith.muli %x, %c32 : index
  %n0 = arith.muli %y, %c32 : index
  %ub = arith.subi %K, %m0 : index
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %ub step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<2>
      tile.copy %A[%m0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.copy %B[%k, %n0] -> %rB[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<2>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    // expected-error @below {{tag assertion failed: the roles' loops' upper bound is the same in every program of the cluster}}
    // expected-note @below {{counterexample:}}
    %acc = scf.for %k = %c0 to %ub step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<2>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<2>
      scf.yield %d : tensor<32x32xf32>
    }
    tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// Refused: a multicast fill whose slot each program releases only to
// itself.
tile.kernel @release_not_cluster(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %Off: !tile.view<?xi32>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.program_id x
  %y = tile.program_id y
  %m0 = arith.muli %x, %c32 : index
  %n0 = arith.muli %y, %c32 : index
  %ub = arith.addi %K, %c0 : index
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %ub step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<2>
      tile.copy %A[%m0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      // expected-error @below {{multicasts into a ring slot whose release is not a cluster mbarrier array}}
      tile.copy %B[%k, %n0] -> %rB[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<2>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %ub step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<2>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<2>
      scf.yield %d : tensor<32x32xf32>
    }
    tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// Refused: the producer arrives on a cluster array.
tile.kernel @full_cluster(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %Off: !tile.view<?xi32>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.program_id x
  %y = tile.program_id y
  %m0 = arith.muli %x, %c32 : index
  %n0 = arith.muli %y, %c32 : index
  %ub = arith.addi %K, %c0 : index
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  // expected-error @below {{is a cluster mbarrier array the producer arrives on}}
  %full = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %ub step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<2>
      tile.copy %A[%m0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.copy %B[%k, %n0] -> %rB[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<2>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %ub step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<2>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<2>
      scf.yield %d : tensor<32x32xf32>
    }
    tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// Refused: the window comes from memory indexed by the program, which
// tag-check cannot compare between programs.
tile.kernel @window_from_memory(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %Off: !tile.view<?xi32>, %K: index) threads(128) cluster(2) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.program_id x
  %y = tile.program_id y
  %m0 = arith.muli %x, %c32 : index
  %t = tile.load %Off[%y] : !tile.view<?xi32> -> tensor<1xi32>
  %e = tensor.extract %t[%c0] : tensor<1xi32>
  %n0 = arith.index_cast %e : i32 to index
  %ub = arith.addi %K, %c0 : index
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 2>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<2>
  %empty = tile.alloc_mbarrier arrivals(1) cluster : !tile.mbarrier<2>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %ub step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<2>
      tile.copy %A[%m0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      // expected-error @below {{offset 1 of a multicast copy depends on the program through a read of memory or a value carried by a loop}}
      tile.copy %B[%k, %n0] -> %rB[%s] async multicast : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 2>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<2>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %ub step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c2 : index
      %q = arith.divui %n, %c2 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<2>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 2> -> tensor<32x32xf16>
      tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<2>
      scf.yield %d : tensor<32x32xf32>
    }
    tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}
