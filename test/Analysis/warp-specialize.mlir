// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// tag-check on tile.warp_specialize: the roles' loops are checked
// interleaved, iteration by iteration, with the hand-over protocol's
// obligations (slots n mod S, the full and empty parities, the order of
// waits, fills, reads and arrivals); each mutant breaks one of them.

// The hand-over of a 3-slot ring, by hand: it passes.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The consumers wait for the wrong phase of the full barrier (a wrong
// parity: on the GPU it would read a slot before its fill landed).
tile.kernel @consumer_parity(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q2 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q2 : index to i1
      // expected-error @below {{tag assertion failed: the consumer's wait of iteration n is for the phase of parity (n}}
      // expected-note @below {{counterexample: %k = 0}}
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The producer waits for the phase the consumers are yet to complete
// (parity (n div S) mod 2): it would refill a slot still being read.
tile.kernel @producer_parity(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q : index to i1
      // expected-error @below {{tag assertion failed: the producer's wait of iteration n is for the phase of parity (n}}
      // expected-note @below {{counterexample: %k = 288}}
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The producer fills the slot ahead of the one it waited for: it
// overruns a slot the consumers may still read.
tile.kernel @overrun(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      %n1 = arith.addi %n, %c1 : index
      %s1 = arith.remui %n1, %c3 : index
      // expected-error @below {{tag assertion failed: the producer's fill of iteration n is of ring slot n mod 3}}
      // expected-note @below {{counterexample: any execution (the statement is false whatever the values)}}
      // expected-note @below {{%a[0, 0] was written here}}
      tile.copy %A[%c0, %k] -> %rA[%s1] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      // expected-note @below {{%b[0, 0] was written here}}
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      // expected-error @below {{tag assertion failed: the MMA's operands disagree on a component both carry (k)}}
      // expected-note @below {{counterexample: any execution (the statement is false whatever the values)}}
      // expected-note @below {{%a[0, 0] carries A(0, 0); %b[0, 0] carries B(0, 0)}}
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The consumers release another slot than the one they read.
tile.kernel @release_other_slot(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      %n1 = arith.addi %n, %c1 : index
      %s1 = arith.remui %n1, %c3 : index
      // expected-error @below {{tag assertion failed: the consumer's arrival of iteration n is on slot n mod 3}}
      // expected-note @below {{counterexample: any execution (the statement is false whatever the values)}}
      tile.mbarrier_arrive %empty[%s1] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The consumers skip their wait for the fill.
tile.kernel @skip_wait(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      // expected-error @below {{'tile.mbarrier_arrive' op on a barrier the roles do not hand over: one role must arrive}}
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The producer arrives on the full barrier before its copies: nothing
// tells the consumers when they land.
tile.kernel @arrive_before_fill(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
      // expected-error @below {{'tile.copy' op fills a ring slot without an arrival after it in the producer role's loop}}
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// A release under a condition is not modelled (it would deadlock the
// producer on the iterations that skip it).
tile.kernel @conditional_arrive(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      %first = arith.cmpi eq, %k, %c0 : index
      scf.if %first {
        // expected-error @below {{'tile.mbarrier_arrive' op outside the top level of the consumer role's loop: a role waits}}
        tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      }
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The full barrier counts two arrivals a phase; the producer makes one.
tile.kernel @arrivals_count(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  // expected-error @below {{'tile.alloc_mbarrier' op counts 2 arrivals per phase, but the producer arrives on it once per}}
  %full = tile.alloc_mbarrier arrivals(2) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The roles loop over different ranges: some fills are never read
// (or waited for).
tile.kernel @other_range(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    // expected-error @below {{'scf.for' op runs over another range than the producer's loop: the roles' loops take the}}
    %acc = scf.for %k = %c32 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// A ring of 4 stages handed over with barriers of 3 slots.
tile.kernel @stages_mismatch(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 4>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      // expected-error @below {{'tile.copy' op fills a ring of 4 stages handed over with barriers of 3 slots}}
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 4>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 4> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The data path is checked as in any kernel: B read at the wrong k.
tile.kernel @wrong_k(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      // expected-note @below {{%a[0, 0] was written here}}
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      // expected-note @below {{%b[0, 0] was written here}}
      tile.copy %B[%c0, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      // expected-error @below {{tag assertion failed: the MMA's operands disagree on a component both carry (k)}}
      // expected-note @below {{counterexample: %k = 32}}
      // expected-note @below {{%a[0, 0] carries A(0, 32); %b[0, 0] carries B(0, 0)}}
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// Releasing the slot right after the loads (before the MMA) is correct
// at the tile level: the loads made register tiles. (The sm_90a lowering
// releases a slot once the wgmma reading it has retired, whatever the
// arrival's place in the body.)
tile.kernel @early_release(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  tile.warp_specialize registers(40, 232) producer {
    scf.for %k = %c0 to %K step %c32 {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %q1 = arith.addi %q, %c1 : index
      %p = arith.index_cast %q1 : index to i1
      tile.mbarrier_wait %empty[%s], parity %p : !tile.mbarrier<3>
      tile.copy %A[%c0, %k] -> %rA[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.copy %B[%k, %c0] -> %rB[%s] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
      tile.mbarrier_arrive %full[%s] : !tile.mbarrier<3>
    }
  } consumer {
    %z = arith.constant dense<0.0> : tensor<32x32xf32>
    %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
      %n = arith.divui %k, %c32 : index
      %s = arith.remui %n, %c3 : index
      %q = arith.divui %n, %c3 : index
      %p = arith.index_cast %q : index to i1
      tile.mbarrier_wait %full[%s], parity %p : !tile.mbarrier<3>
      %a = tile.load %rA[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      %b = tile.load %rB[%s] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
      tile.mbarrier_arrive %empty[%s] : !tile.mbarrier<3>
      %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      scf.yield %d : tensor<32x32xf32>
    }
    tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
    tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  }
  tile.return
}

// -----

// The ping-pong schedule needs roles that loop over tiles (tile-persistent):
// its consumer warpgroups own alternate tiles.
tile.kernel @pingpong_not_persistent(%A: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %true = arith.constant true
  %r = tile.alloc_shared : !tile.shared<32x32xf16, stages = 1>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<1>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<1>
  // expected-error @below {{'tile.warp_specialize' op takes the ping-pong schedule, in which the consumer warpgroups own alternate tiles of a persistent kernel, but its roles do not loop over tiles (run tile-persistent)}}
  tile.warp_specialize registers(40, 232) pingpong producer {
    scf.for %k = %c0 to %K step %c32 {
      tile.mbarrier_wait %empty[%c0], parity %true : !tile.mbarrier<1>
      tile.copy %A[%c0, %k] -> %r[%c0] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 1>
      tile.mbarrier_arrive %full[%c0] : !tile.mbarrier<1>
    }
  } consumer {
    scf.for %k = %c0 to %K step %c32 {
      tile.mbarrier_wait %full[%c0], parity %true : !tile.mbarrier<1>
      %a = tile.load %r[%c0] : !tile.shared<32x32xf16, stages = 1> -> tensor<32x32xf16>
      tile.mbarrier_arrive %empty[%c0] : !tile.mbarrier<1>
    }
  }
  tile.return
}
