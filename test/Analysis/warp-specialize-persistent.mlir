// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// tag-check on a persistent warp-specialized kernel: each role loops over
// the tiles, carrying its count of main-loop iterations, and the protocol's
// obligations hold for iteration n of the role (not of the tile); each
// mutant breaks the counting or the rotation.

// -----

// The 3-slot hand-over of a persistent kernel (tile-persistent's form):
// each role's tile loop carries the count of its main loop's iterations,
// and the slots and parities are rotated by it. Proved, for every count.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refuted: the consumers wait on the slot of the tile's own iteration, not
// the role's (the count is not a multiple of 3 after most tiles).
tile.kernel @unrotated_slot(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        // expected-error @below {{tag assertion failed: the consumer's wait of iteration n is on slot n mod 3}}
        // expected-note @below {{counterexample:}}
        tile.mbarrier_wait %full[%s], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refuted: the producer's parity ignores the rounds of earlier tiles.
tile.kernel @parity_not_flipped(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        %unflipped = arith.xori %par, %wrap : i1
        // expected-error @below {{tag assertion failed: the producer's wait of iteration n is for the phase of parity (n div S + 1) mod 2}}
        // expected-note @below {{counterexample:}}
        tile.mbarrier_wait %empty[%slot], parity %unflipped : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refused: the producer's main loop restarts its count at every tile.
tile.kernel @count_restarts(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{loops over tiles around the producer role's main loop without counting that loop's iterations from tile to tile}}
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %c0) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refused: the count grows by 2 an iteration.
tile.kernel @count_steps_by_two(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %rA = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %rB = tile.alloc_shared : !tile.shared<32x32xf16, stages = 3>
  %full = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %empty = tile.alloc_mbarrier arrivals(1) : !tile.mbarrier<3>
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{loops over tiles around the producer role's main loop without counting that loop's iterations from tile to tile}}
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c2 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refused: the tile loop does not carry the main loop's count.
tile.kernel @count_dropped(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    // expected-error @below {{loops over tiles around the producer role's main loop without counting that loop's iterations from tile to tile}}
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %base : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refused: the consumers walk other tiles than the producer.
tile.kernel @tiles_differ(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    // expected-error @below {{runs over another range than the producer's tile loop}}
    %cdone = scf.for %t = %c0 to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      %acc, %count = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}

// -----

// Refused: a tile's main loops run over other ranges (the consumers'
// bound depends on the tile, the producer's does not).
tile.kernel @steps_differ(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>, %K: index,
    %gx: index {tile.grid = 0}, %gy: index {tile.grid = 1}, %gz: index {tile.grid = 2}, %p: index {tile.grid = 3})
    threads(128) attributes {tile.persistent = #tile.persistent<group = 8>} {
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
  %w = tile.program_id x
  %gxy = arith.muli %gx, %gy : index
  %tiles = arith.muli %gxy, %gz : index
  tile.warp_specialize registers(40, 232) producer {
    %pdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %count = scf.for %k = %c0 to %K step %c32 iter_args(%n = %base) -> (index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %q1 = arith.addi %q, %c1 : index
        %par = arith.index_cast %q1 : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %empty[%slot], parity %par2 : !tile.mbarrier<3>
        tile.copy %A[%m0, %k] -> %rA[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.copy %B[%k, %n0] -> %rB[%slot] async : !tile.view<?x?xf16> -> !tile.shared<32x32xf16, stages = 3>
        tile.mbarrier_arrive %full[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %next : index
      }
      scf.yield %count : index
    }
  } consumer {
    %cdone = scf.for %t = %w to %tiles step %p iter_args(%base = %c0) -> (index) {
      %x, %y, %z = tile.tile_coords %t of(%gx, %gy, %gz) group 8
      %m0 = arith.muli %x, %c32 : index
      %n0 = arith.muli %y, %c32 : index
      %shift = arith.remui %base, %c3 : index
      %round = arith.divui %base, %c3 : index
      %flip = arith.index_cast %round : index to i1
      %zero = arith.constant dense<0.0> : tensor<32x32xf32>
      // expected-error @below {{runs over another range than the producer's loop}}
      %acc, %count = scf.for %k = %c0 to %m0 step %c32 iter_args(%c = %zero, %n = %base) -> (tensor<32x32xf32>, index) {
        %i = arith.divui %k, %c32 : index
        %s = arith.remui %i, %c3 : index
        %q = arith.divui %i, %c3 : index
        %par = arith.index_cast %q : index to i1
        %sum = arith.addi %s, %shift : index
        %wrap = arith.cmpi uge, %sum, %c3 : index
        %less = arith.subi %sum, %c3 : index
        %slot = arith.select %wrap, %less, %sum : index
        %par1 = arith.xori %par, %flip : i1
        %par2 = arith.xori %par1, %wrap : i1
        tile.mbarrier_wait %full[%slot], parity %par2 : !tile.mbarrier<3>
        %a = tile.load %rA[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        %b = tile.load %rB[%slot] : !tile.shared<32x32xf16, stages = 3> -> tensor<32x32xf16>
        tag.assert_contract %a, %b : tensor<32x32xf16>, tensor<32x32xf16>
        %d = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
        tile.mbarrier_arrive %empty[%slot] : !tile.mbarrier<3>
        %next = arith.addi %n, %c1 : index
        scf.yield %d, %next : tensor<32x32xf32>, index
      }
      tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
      tile.store %acc -> %C[%m0, %n0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
      scf.yield %count : index
    }
  }
  tile.return
}
