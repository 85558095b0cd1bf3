// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Integer arithmetic is modelled exactly as arith defines it: widths wrap
// around, unsigned ops and comparisons read their operands modulo 2^N,
// divisions truncate or floor as named, casts truncate or extend. Each
// false statement below was "proved" when integers were unbounded.

// A cast that truncates 2^32 to i32 gives 0.
tile.kernel @index_cast_truncates(%K: index) threads(32) {
  %c0 = arith.constant 0 : i32
  %two32 = arith.constant 4294967296 : index
  %is = arith.cmpi eq, %K, %two32 : index
  tag.assume %is, "K == 2^32" : i1
  %t = arith.index_cast %K : index to i32
  %nz = arith.cmpi ne, %t, %c0 : i32
  // expected-error @below {{tag assertion failed: the cast keeps K}}
  // expected-note @below {{counterexample: %K = 4294967296}}
  tag.assert %nz, "the cast keeps K" : i1
  tile.return
}

// -----

// Signed and unsigned comparisons differ on negative values.
tile.kernel @slt_is_not_ult(%K: index) threads(32) {
  %c10 = arith.constant 10 : index
  %s = arith.cmpi slt, %K, %c10 : index
  tag.assume %s, "K < 10 (signed)" : i1
  %u = arith.cmpi ult, %K, %c10 : index
  // expected-error @below {{tag assertion failed: K < 10 (unsigned)}}
  // expected-note @below {{counterexample: %K = -}}
  tag.assert %u, "K < 10 (unsigned)" : i1
  tile.return
}

// -----

// With K also non-negative, the unsigned comparison follows.
tile.kernel @slt_and_nonnegative_is_ult(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %s = arith.cmpi slt, %K, %c10 : index
  tag.assume %s, "K < 10 (signed)" : i1
  %n = arith.cmpi sge, %K, %c0 : index
  tag.assume %n, "K >= 0" : i1
  %u = arith.cmpi ult, %K, %c10 : index
  tag.assert %u, "K < 10 (unsigned)" : i1
  tile.return
}

// -----

// An i32 product of positive values can wrap to a negative one.
tile.kernel @i32_product_wraps(%a: i32, %b: i32) threads(32) {
  %c0 = arith.constant 0 : i32
  %pa = arith.cmpi sgt, %a, %c0 : i32
  %pb = arith.cmpi sgt, %b, %c0 : i32
  tag.assume %pa, "a > 0" : i1
  tag.assume %pb, "b > 0" : i1
  %p = arith.muli %a, %b : i32
  %pos = arith.cmpi sgt, %p, %c0 : i32
  // expected-error @below {{tag assertion failed: a * b > 0}}
  // expected-note @below {{counterexample: %a = }}
  tag.assert %pos, "a * b > 0" : i1
  tile.return
}

// -----

// Bounded factors cannot wrap: proved.
tile.kernel @i32_product_bounded(%a: i32, %b: i32) threads(32) {
  %c0 = arith.constant 0 : i32
  %c1000 = arith.constant 1000 : i32
  %pa = arith.cmpi sgt, %a, %c0 : i32
  %pb = arith.cmpi sgt, %b, %c0 : i32
  %la = arith.cmpi slt, %a, %c1000 : i32
  %lb = arith.cmpi slt, %b, %c1000 : i32
  tag.assume %pa, "a > 0" : i1
  tag.assume %pb, "b > 0" : i1
  tag.assume %la, "a < 1000" : i1
  tag.assume %lb, "b < 1000" : i1
  %p = arith.muli %a, %b : i32
  %pos = arith.cmpi sgt, %p, %c0 : i32
  tag.assert %pos, "a * b > 0" : i1
  tile.return
}

// -----

// Division truncates towards zero; floordivsi and ceildivsi round as named;
// remsi takes the dividend's sign.
tile.kernel @signed_division(%a: i32, %b: i32) threads(32) {
  %cm7 = arith.constant -7 : i32
  %c2 = arith.constant 2 : i32
  %cm3 = arith.constant -3 : i32
  %cm4 = arith.constant -4 : i32
  %cm1 = arith.constant -1 : i32
  %ia = arith.cmpi eq, %a, %cm7 : i32
  %ib = arith.cmpi eq, %b, %c2 : i32
  tag.assume %ia, "a == -7" : i1
  tag.assume %ib, "b == 2" : i1
  %q = arith.divsi %a, %b : i32
  %q_ok = arith.cmpi eq, %q, %cm3 : i32
  tag.assert %q_ok, "-7 divsi 2 == -3" : i1
  %f = arith.floordivsi %a, %b : i32
  %f_ok = arith.cmpi eq, %f, %cm4 : i32
  tag.assert %f_ok, "-7 floordivsi 2 == -4" : i1
  %c = arith.ceildivsi %a, %b : i32
  %c_ok = arith.cmpi eq, %c, %cm3 : i32
  tag.assert %c_ok, "-7 ceildivsi 2 == -3" : i1
  %r = arith.remsi %a, %b : i32
  %r_ok = arith.cmpi eq, %r, %cm1 : i32
  tag.assert %r_ok, "-7 remsi 2 == -1" : i1
  tile.return
}

// -----

// Unsigned division reads -7 as 2^32 - 7.
tile.kernel @unsigned_division(%a: i32) threads(32) {
  %cm7 = arith.constant -7 : i32
  %c2 = arith.constant 2 : i32
  %half = arith.constant 2147483644 : i32
  %ia = arith.cmpi eq, %a, %cm7 : i32
  tag.assume %ia, "a == -7" : i1
  %q = arith.divui %a, %c2 : i32
  %q_ok = arith.cmpi eq, %q, %half : i32
  tag.assert %q_ok, "-7 divui 2 == 2^31 - 4" : i1
  %r = arith.remui %a, %c2 : i32
  %one = arith.constant 1 : i32
  %r_ok = arith.cmpi eq, %r, %one : i32
  tag.assert %r_ok, "-7 remui 2 == 1" : i1
  tile.return
}

// -----

// Extension and truncation: extui of a negative i8 is positive; trunci
// keeps the low bits; shifts and masks by constants.
tile.kernel @casts_and_bits(%x: i8, %y: i32) threads(32) {
  %cm1 = arith.constant -1 : i8
  %ix = arith.cmpi eq, %x, %cm1 : i8
  tag.assume %ix, "x == -1" : i1
  %u = arith.extui %x : i8 to i32
  %s = arith.extsi %x : i8 to i32
  %c255 = arith.constant 255 : i32
  %cm1_32 = arith.constant -1 : i32
  %u_ok = arith.cmpi eq, %u, %c255 : i32
  %s_ok = arith.cmpi eq, %s, %cm1_32 : i32
  tag.assert %u_ok, "extui -1 : i8 == 255" : i1
  tag.assert %s_ok, "extsi -1 : i8 == -1" : i1
  %c300 = arith.constant 300 : i32
  %iy = arith.cmpi eq, %y, %c300 : i32
  tag.assume %iy, "y == 300" : i1
  %t = arith.trunci %y : i32 to i8
  %c44 = arith.constant 44 : i8
  %t_ok = arith.cmpi eq, %t, %c44 : i8
  tag.assert %t_ok, "trunci 300 : i8 == 44" : i1
  %c4 = arith.constant 4 : i32
  %c15 = arith.constant 15 : i32
  %sh = arith.shrui %y, %c4 : i32
  %lo = arith.andi %y, %c15 : i32
  %c18 = arith.constant 18 : i32
  %c12 = arith.constant 12 : i32
  %sh_ok = arith.cmpi eq, %sh, %c18 : i32
  %lo_ok = arith.cmpi eq, %lo, %c12 : i32
  tag.assert %sh_ok, "300 >> 4 == 18" : i1
  tag.assert %lo_ok, "300 & 15 == 12" : i1
  tile.return
}

// -----

// An index sum near 2^63 wraps around.
tile.kernel @index_wraps(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pos = arith.cmpi sge, %K, %c0 : index
  tag.assume %pos, "K >= 0" : i1
  %e = arith.addi %K, %c64 : index
  %grows = arith.cmpi sgt, %e, %K : index
  // expected-error @below {{tag assertion failed: K + 64 > K}}
  // expected-note @below {{counterexample: %K = 92233720368547757}}
  tag.assert %grows, "K + 64 > K" : i1
  tile.return
}

// -----

// A value the checker does not model is unknown, and the failure says so.
tile.kernel @unmodelled_value(%a: i32, %b: i32) threads(32) {
  %x = arith.xori %a, %b : i32
  // expected-note @below {{is unknown: the tag checker does not model 'arith.xori' here}}
  %y = arith.xori %x, %b : i32
  %same = arith.cmpi eq, %y, %a : i32
  // expected-error @below {{tag assertion failed: (a ^ b) ^ b == a}}
  // expected-note @below {{counterexample:}}
  tag.assert %same, "(a ^ b) ^ b == a" : i1
  tile.return
}

// -----

// Found by the differential test: index_castui between index and i64 keeps
// the bits, so a negative index stays negative.
tile.kernel @index_castui_same_width(%a: i32) threads(32) {
  %c-42 = arith.constant -42 : i64
  %i = arith.index_cast %a : i32 to index
  %u = arith.index_castui %i : index to i64
  %gt = arith.cmpi sgt, %u, %c-42 : i64
  // expected-error @below {{tag assertion failed: the cast is non-negative}}
  // expected-note @below {{counterexample: %a = -}}
  tag.assert %gt, "the cast is non-negative" : i1
  tile.return
}

// -----

// Found by the differential test: i64 -1 cast to index is -1, and its
// unsigned quotient by 96 is larger than it (signed).
tile.kernel @index_castui_then_divui(%a: i64) threads(32) {
  %c96 = arith.constant 96 : index
  %i = arith.index_castui %a : i64 to index
  %q = arith.divui %i, %c96 : index
  %le = arith.cmpi sle, %q, %i : index
  // expected-error @below {{tag assertion failed: the quotient is at most the dividend}}
  // expected-note @below {{counterexample: %a = -}}
  tag.assert %le, "the quotient is at most the dividend" : i1
  tile.return
}

// -----

// An iteration argument moved by a loop-invariant amount is an induction:
// at iteration k it is init + 64 k, and after the loop init + 64 n.
tile.kernel @induction(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pos = arith.cmpi sge, %n, %c0 : index
  tag.assume %pos, "n >= 0" : i1
  %r:2 = scf.for %k = %c0 to %n step %c1 iter_args(%off = %c128, %same = %c1) -> (index, index) {
    %k64 = arith.muli %k, %c64 : index
    %expect = arith.addi %k64, %c128 : index
    %eq = arith.cmpi eq, %off, %expect : index
    tag.assert %eq, "the offset is 128 + 64 k" : i1
    %one = arith.cmpi eq, %same, %c1 : index
    tag.assert %one, "an argument the loop yields back keeps its value" : i1
    %next = arith.addi %c64, %off : index
    scf.yield %next, %same : index, index
  }
  %n64 = arith.muli %n, %c64 : index
  %total = arith.addi %n64, %c128 : index
  %done = arith.cmpi eq, %r#0, %total : index
  tag.assert %done, "the loop ends at 128 + 64 n" : i1
  tile.return
}

// -----

// Mutant: the offset moves back by 32 instead of forward by 64.
tile.kernel @induction_wrong_step(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%off = %c0) -> (index) {
    %expect = arith.muli %k, %c64 : index
    %eq = arith.cmpi eq, %off, %expect : index
    // expected-error @below {{tag assertion failed: the offset is 64 k}}
    // expected-note-re @below {{counterexample: %k = {{[1-9][0-9]*}}}}
    tag.assert %eq, "the offset is 64 k" : i1
    %next = arith.subi %off, %c32 : index
    scf.yield %next : index
  }
  tile.return
}

// -----

// An i8 induction wraps: 100 per iteration is negative at the second.
tile.kernel @induction_wraps(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i8
  %d = arith.constant 100 : i8
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %z) -> (i8) {
    %nonneg = arith.cmpi sge, %acc, %z : i8
    // expected-error @below {{tag assertion failed: acc >= 0}}
    // expected-note @below {{counterexample: %k = 2}}
    tag.assert %nonneg, "acc >= 0" : i1
    %next = arith.addi %acc, %d : i8
    scf.yield %next : i8
  }
  tile.return
}

// -----

// Anything else carried around a loop is an arbitrary value of its type
// at the head: a doubling is not an induction.
tile.kernel @not_an_induction(%n: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%x = %c1) -> (index) {
    %pos = arith.cmpi sgt, %x, %c0 : index
    // expected-error @below {{tag assertion failed: x > 0}}
    // expected-note @below {{counterexample: }}
    tag.assert %pos, "x > 0" : i1
    %next = arith.addi %x, %x : index
    scf.yield %next : index
  }
  tile.return
}

// -----

// A loop from 0 in steps of 128 visits multiples of 128: with d in
// [0, 128), k + d lies in k's group of 128 and leaves remainder d.
tile.kernel @multiples_of_the_step(%A: !tile.view<?x?xf16>, %d: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %lo = arith.cmpi sge, %d, %c0 : index
  tag.assume %lo, "d >= 0" : i1
  %hi = arith.cmpi slt, %d, %c128 : index
  tag.assume %hi, "d < 128" : i1
  scf.for %k = %c0 to %K step %c128 {
    %kd = arith.addi %k, %d : index
    %q = arith.floordivsi %kd, %c128 : index
    %qk = arith.floordivsi %k, %c128 : index
    %same = arith.cmpi eq, %q, %qk : index
    tag.assert %same, "k + d is in k's group" : i1
    %r = arith.remsi %kd, %c128 : index
    %rd = arith.cmpi eq, %r, %d : index
    tag.assert %rd, "k + d leaves d" : i1
  }
  tile.return
}

// -----

// Mutants: d may reach 128, or the loop starts off the multiples.
tile.kernel @multiples_d_too_large(%A: !tile.view<?x?xf16>, %d: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %lo = arith.cmpi sge, %d, %c0 : index
  tag.assume %lo, "d >= 0" : i1
  %hi = arith.cmpi sle, %d, %c128 : index
  tag.assume %hi, "d <= 128" : i1
  scf.for %k = %c0 to %K step %c128 {
    %kd = arith.addi %k, %d : index
    %q = arith.floordivsi %kd, %c128 : index
    %qk = arith.floordivsi %k, %c128 : index
    %same = arith.cmpi eq, %q, %qk : index
    // expected-error @below {{tag assertion failed: k + d is in k's group}}
    // expected-note @below {{d = 128}}
    tag.assert %same, "k + d is in k's group" : i1
  }
  tile.return
}

// -----

tile.kernel @multiples_off_by_one(%A: !tile.view<?x?xf16>, %d: index) threads(32) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  %lo = arith.cmpi sge, %d, %c0 : index
  tag.assume %lo, "d >= 0" : i1
  %hi = arith.cmpi slt, %d, %c128 : index
  tag.assume %hi, "d < 128" : i1
  scf.for %k = %c1 to %K step %c128 {
    %kd = arith.addi %k, %d : index
    %r = arith.remsi %kd, %c128 : index
    %rd = arith.cmpi eq, %r, %d : index
    // expected-error @below {{tag assertion failed: k + d leaves d}}
    // expected-note @below {{counterexample: }}
    tag.assert %rd, "k + d leaves d" : i1
  }
  tile.return
}
