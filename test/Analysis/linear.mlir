// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics -o /dev/null
// RUN: not tessera-opt %s --split-input-file --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s
// Goals linear in their atoms once their selects, minimums and maximums are
// split into cases are proved without Z3: in each case the facts, the
// case's condition and the negated goal are refuted by Fourier-Motzkin
// elimination with integer rounding. A goal that is false goes to Z3,
// which gives the counterexample.

// Two facts combine: a <= b and b < c give a < c.
// CHECK: tag-check: @chain: 1 proved structurally, 0 by Z3, 0 failed
tile.kernel @chain(%a: index, %b: index, %c: index) threads(128) {
  %ab = arith.cmpi sle, %a, %b : index
  tag.assume %ab, "a <= b" : i1
  %bc = arith.cmpi slt, %b, %c : index
  tag.assume %bc, "b < c" : i1
  %ac = arith.cmpi slt, %a, %c : index
  tag.assert %ac, "a < c" : i1
  tile.return
}

// -----

// The same facts do not give a + 1 < c: Z3 gives the counterexample.
// CHECK: tag-check: @chain_too_far: 0 proved structurally, 0 by Z3, 1 failed
tile.kernel @chain_too_far(%a: index, %b: index, %c: index) threads(128) {
  %c1 = arith.constant 1 : index
  %ab = arith.cmpi sle, %a, %b : index
  tag.assume %ab, "a <= b" : i1
  %bc = arith.cmpi slt, %b, %c : index
  tag.assume %bc, "b < c" : i1
  %a1 = arith.addi %a, %c1 : index
  %ac = arith.cmpi slt, %a1, %c : index
  // expected-error @+2 {{tag assertion failed: a + 1 < c}}
  // expected-note @+1 {{counterexample}}
  tag.assert %ac, "a + 1 < c" : i1
  tile.return
}

// -----

// Integer rounding: 0 <= x < 10 and 2x >= 1 give x >= 1 (over the
// rationals x could be 1/2).
// CHECK: tag-check: @rounding: 1 proved structurally, 0 by Z3, 0 failed
tile.kernel @rounding(%x: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c10 = arith.constant 10 : index
  %lo = arith.cmpi sge, %x, %c0 : index
  %hi = arith.cmpi slt, %x, %c10 : index
  %range = arith.andi %lo, %hi : i1
  tag.assume %range, "0 <= x < 10" : i1
  %x2 = arith.muli %x, %c2 : index
  %half = arith.cmpi sge, %x2, %c1 : index
  tag.assume %half, "2x >= 1" : i1
  %one = arith.cmpi sge, %x, %c1 : index
  tag.assert %one, "x >= 1" : i1
  tile.return
}

// -----

// Minimums and selects split into cases, each case's condition a fact:
// a causal row q = m0 + i (i < 128) stops at min(q + 1, n), inside the
// block's range min(n, m0 + 128), whether the kernel is causal or not.
// CHECK: tag-check: @causal_rows: 1 proved structurally, 0 by Z3, 0 failed
tile.kernel @causal_rows(%n: index, %causal: i1) threads(128) {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c128 : index
  %diag = arith.addi %m0, %c128 : index
  %block_causal = arith.minui %n, %diag : index
  %block_end = arith.select %causal, %block_causal, %n : index
  %rows = tile.iota : tensor<128xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q = arith.addi %rows, %m0_t : tensor<128xindex>
  %one_t = tile.splat %c1 : index -> tensor<128xindex>
  %q1 = arith.addi %q, %one_t : tensor<128xindex>
  %n_t = tile.splat %n : index -> tensor<128xindex>
  %row_causal = arith.minui %q1, %n_t : tensor<128xindex>
  %causal_t = tile.splat %causal : i1 -> tensor<128xi1>
  %row_end = arith.select %causal_t, %row_causal, %n_t
      : tensor<128xi1>, tensor<128xindex>
  %end_t = tile.splat %block_end : index -> tensor<128xindex>
  %inside = arith.cmpi ule, %row_end, %end_t : tensor<128xindex>
  tag.assert %inside, "each row's keys lie in the block's range" : tensor<128xi1>
  tile.return
}

// -----

// Rows of the next block are not: row m0 + 127 of a block that stops at
// m0 + 127 needs a key the block does not reach.
// CHECK: tag-check: @causal_rows_short: 0 proved structurally, 0 by Z3, 1 failed
tile.kernel @causal_rows_short(%n: index, %causal: i1) threads(128) {
  %c1 = arith.constant 1 : index
  %c127 = arith.constant 127 : index
  %c128 = arith.constant 128 : index
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c128 : index
  %diag = arith.addi %m0, %c127 : index
  %block_causal = arith.minui %n, %diag : index
  %block_end = arith.select %causal, %block_causal, %n : index
  %rows = tile.iota : tensor<128xindex>
  %m0_t = tile.splat %m0 : index -> tensor<128xindex>
  %q = arith.addi %rows, %m0_t : tensor<128xindex>
  %one_t = tile.splat %c1 : index -> tensor<128xindex>
  %q1 = arith.addi %q, %one_t : tensor<128xindex>
  %n_t = tile.splat %n : index -> tensor<128xindex>
  %row_causal = arith.minui %q1, %n_t : tensor<128xindex>
  %causal_t = tile.splat %causal : i1 -> tensor<128xi1>
  %row_end = arith.select %causal_t, %row_causal, %n_t
      : tensor<128xi1>, tensor<128xindex>
  %end_t = tile.splat %block_end : index -> tensor<128xindex>
  %inside = arith.cmpi ule, %row_end, %end_t : tensor<128xindex>
  // expected-error @+3 {{tag assertion failed: each row's keys lie in the block's range}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{it is false at element %inside[127]}}
  tag.assert %inside, "each row's keys lie in the block's range" : tensor<128xi1>
  tile.return
}

// -----

// Signed minimum: min(a, b) <= a and <= b, whichever is smaller.
// CHECK: tag-check: @minimum: 1 proved structurally, 0 by Z3, 0 failed
tile.kernel @minimum(%a: i32, %b: i32) threads(128) {
  %m = arith.minsi %a, %b : i32
  %le_a = arith.cmpi sle, %m, %a : i32
  %le_b = arith.cmpi sle, %m, %b : i32
  %both = arith.andi %le_a, %le_b : i1
  tag.assert %both, "min(a, b) <= a, b" : i1
  tile.return
}
