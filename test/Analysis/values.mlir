// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Value-level assertions on index arithmetic, under the caller's
// assumptions.

tile.kernel @offsets_fit_with_bounds(%A: !tile.view<?x?xf16>) threads(128) {
  %c64 = arith.constant 64 : index
  %limit = arith.constant 32768 : index
  %c2_31 = arith.constant 2147483648 : index
  %pid = tile.program_id x
  %M = tile.dim %A, 0 : !tile.view<?x?xf16>
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %m_ok = arith.cmpi ule, %M, %limit : index
  %k_ok = arith.cmpi ule, %K, %limit : index
  tag.assume %m_ok, "M <= 2^15" : i1
  tag.assume %k_ok, "K <= 2^15" : i1
  %m0 = arith.muli %pid, %c64 : index
  %in = arith.cmpi ult, %m0, %M : index
  tag.assume %in, "the grid covers M" : i1
  %row = arith.muli %m0, %K : index
  %fits = arith.cmpi ult, %row, %c2_31 : index
  tag.assert %fits, "the row offset fits in 31 bits" : i1
  tile.return
}

// -----

// Mutant: without a bound on K the offset can overflow int32.
tile.kernel @offsets_overflow(%A: !tile.view<?x?xf16>) threads(128) {
  %c64 = arith.constant 64 : index
  %limit = arith.constant 32768 : index
  %c2_31 = arith.constant 2147483648 : index
  %pid = tile.program_id x
  %M = tile.dim %A, 0 : !tile.view<?x?xf16>
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %m_ok = arith.cmpi ule, %M, %limit : index
  tag.assume %m_ok, "M <= 2^15" : i1
  %m0 = arith.muli %pid, %c64 : index
  %in = arith.cmpi ult, %m0, %M : index
  tag.assume %in, "the grid covers M" : i1
  %row = arith.muli %m0, %K : index
  %fits = arith.cmpi ult, %row, %c2_31 : index
  // expected-error @below {{tag assertion failed: the row offset fits in 31 bits}}
  // expected-note @below {{counterexample: program_id.x = }}
  tag.assert %fits, "the row offset fits in 31 bits" : i1
  tile.return
}

// -----

tile.kernel @divisibility(%K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %r = arith.remui %K, %c128 : index
  %d = arith.cmpi eq, %r, %c0 : index
  tag.assume %d, "K % 128 == 0" : i1
  %r64 = arith.remui %K, %c64 : index
  %d64 = arith.cmpi eq, %r64, %c0 : index
  tag.assert %d64, "K % 64 == 0" : i1
  tile.return
}

// -----

// Mutant: the assumption is too weak for the assertion.
tile.kernel @weak_assumption(%K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = arith.remui %K, %c32 : index
  %d = arith.cmpi eq, %r, %c0 : index
  tag.assume %d, "K % 32 == 0" : i1
  %r64 = arith.remui %K, %c64 : index
  %d64 = arith.cmpi eq, %r64, %c0 : index
  // expected-error @below {{tag assertion failed: K % 64 == 0}}
  // expected-note @below {{counterexample: %K = }}
  tag.assert %d64, "K % 64 == 0" : i1
  tile.return
}

// -----

tile.kernel @whole_tiles_in_loop(%K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %r = arith.remui %K, %c64 : index
  %d = arith.cmpi eq, %r, %c0 : index
  tag.assume %d, "K % 64 == 0" : i1
  scf.for %k = %c0 to %K step %c64 {
    %end = arith.addi %k, %c64 : index
    %ok = arith.cmpi ule, %end, %K : index
    tag.assert %ok, "the tile ends inside K" : i1
  }
  tile.return
}

// -----

// Mutant: no divisibility assumption, so the last tile can run past K.
tile.kernel @ragged_last_tile(%K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %K step %c64 {
    %end = arith.addi %k, %c64 : index
    %ok = arith.cmpi ule, %end, %K : index
    // expected-error @below {{tag assertion failed: the tile ends inside K}}
    // expected-note @below {{counterexample: %K = }}
    tag.assert %ok, "the tile ends inside K" : i1
  }
  tile.return
}

// -----

// Mutant: a tile-wide condition that fails at one element.
tile.kernel @element_condition(%n: index) threads(128) {
  %c63 = arith.constant 63 : index
  %rows = tile.iota : tensor<64xindex>
  %lim = tile.splat %c63 : index -> tensor<64xindex>
  %ok = arith.cmpi ult, %rows, %lim : tensor<64xindex>
  // expected-error @below {{tag assertion failed: every row is below 63}}
  // expected-note @below {{counterexample: i0 = 63}}
  // expected-note @below {{it is false at element %ok[63]}}
  tag.assert %ok, "every row is below 63" : tensor<64xi1>
  tile.return
}
