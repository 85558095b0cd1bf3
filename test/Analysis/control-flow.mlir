// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Facts are scoped to the branch that states them, every region op is
// walked or rejected, ops the checker does not model give unknown tags, and
// a proof under contradictory facts is an error.

// An assumption inside one branch does not hold after the scf.if.
tile.kernel @assume_in_branch(%K: index, %c: i1) threads(32) {
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %K, %c0 : index
  scf.if %c {
    tag.assume %z, "K == 0" : i1
    tag.assert %z, "K == 0 in the branch" : i1
  }
  // expected-error @below {{tag assertion failed: K == 0 after the branch}}
  // expected-note @below {{counterexample:}}
  tag.assert %z, "K == 0 after the branch" : i1
  tile.return
}

// -----

// ... nor in the other branch.
tile.kernel @assume_in_other_branch(%K: index, %c: i1) threads(32) {
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %K, %c0 : index
  scf.if %c {
    tag.assume %z, "K == 0" : i1
  } else {
    // expected-error @below {{tag assertion failed: K == 0 in the else branch}}
    // expected-note @below {{counterexample:}}
    tag.assert %z, "K == 0 in the else branch" : i1
  }
  tile.return
}

// -----

// After the branch it holds under the branch's condition, and the
// condition is a fact inside it.
tile.kernel @assume_under_condition(%K: index, %c: i1) threads(32) {
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %K, %c0 : index
  scf.if %c {
    tag.assume %z, "K == 0" : i1
    tag.assert %c, "the condition holds in the branch" : i1
  }
  %true = arith.constant true
  %not_c = arith.xori %c, %true : i1
  %implied = arith.ori %not_c, %z : i1
  tag.assert %implied, "c implies K == 0" : i1
  tile.return
}

// -----

// scf.if results are the chosen branch's values.
tile.kernel @if_results(%K: index, %c: i1) threads(32) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %v = scf.if %c -> index {
    scf.yield %c1 : index
  } else {
    scf.yield %c2 : index
  }
  %lo = arith.cmpi sge, %v, %c1 : index
  %hi = arith.cmpi sle, %v, %c2 : index
  tag.assert %lo, "v >= 1" : i1
  tag.assert %hi, "v <= 2" : i1
  %one = arith.cmpi eq, %v, %c1 : index
  // expected-error @below {{tag assertion failed: v == 1}}
  // expected-note @below {{counterexample:}}
  tag.assert %one, "v == 1" : i1
  tile.return
}

// -----

// scf.index_switch: each case knows its value.
tile.kernel @switch_cases(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %lt = arith.cmpi ult, %K, %c10 : index
  scf.index_switch %K
  case 3 {
    %is3 = arith.cmpi eq, %K, %c3 : index
    tag.assert %is3, "K == 3 in case 3" : i1
    scf.yield
  }
  default {
    %not3 = arith.cmpi ne, %K, %c3 : index
    tag.assert %not3, "K != 3 by default" : i1
    // expected-error @below {{tag assertion failed: K < 10 by default}}
    // expected-note @below {{counterexample:}}
    tag.assert %lt, "K < 10 by default" : i1
  }
  tile.return
}

// -----

// scf.execute_region is walked: its assertions are checked.
tile.kernel @execute_region(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %K, %c0 : index
  scf.execute_region {
    // expected-error @below {{tag assertion failed: K == 0 in the region}}
    // expected-note @below {{counterexample:}}
    tag.assert %z, "K == 0 in the region" : i1
    scf.yield
  }
  tile.return
}

// -----

// scf.while is not modelled: rejected, not walked past.
tile.kernel @while_rejected(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %z = arith.cmpi eq, %K, %c0 : index
  // expected-error @below {{the tag checker does not model 'scf.while'; its regions would go unchecked}}
  // expected-note @below {{becomes an scf.for with --tile-uplift-while}}
  scf.while : () -> () {
    scf.condition(%z)
  } do {
    tag.assert %z, "K == 0" : i1
    scf.yield
  }
  tile.return
}

// -----

// An op the checker does not model gives an unknown tag, not the join's
// identity: the contraction is not proved.
tile.kernel @unmodelled_tag(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<64x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x64xf16>
  // expected-note @below {{the tag checker does not model 'tensor.empty', so its result's tag is unknown}}
  %x = tensor.empty() : tensor<64x32xf16>
  %ax = arith.addf %a, %x : tensor<64x32xf16>
  // expected-error @below {{tag assertion failed: %ax has an unknown tag}}
  tag.assert_contract %ax, %b : tensor<64x32xf16>, tensor<32x64xf16>
  tile.return
}

// -----

// Contradictory assumptions prove nothing.
tile.kernel @vacuous(%K: index) threads(32) {
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %c20 = arith.constant 20 : index
  %lt = arith.cmpi slt, %K, %c10 : index
  %gt = arith.cmpi sgt, %K, %c20 : index
  // expected-note @below {{the assumption 'K < 10'}}
  tag.assume %lt, "K < 10" : i1
  // expected-note @below {{the assumption 'K > 20'}}
  tag.assume %gt, "K > 20" : i1
  %is5 = arith.cmpi eq, %K, %c5 : index
  // expected-error @below {{tag assertion is vacuous: the facts in scope contradict each other}}
  tag.assert %is5, "K == 5" : i1
  tile.return
}

// -----

// Even a statement true whatever the values (proved without Z3) is
// vacuous under contradictory assumptions.
tile.kernel @vacuous_structural(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c20 = arith.constant 20 : index
  %lt = arith.cmpi slt, %K, %c10 : index
  %gt = arith.cmpi sgt, %K, %c20 : index
  // expected-note @below {{the assumption 'K < 10'}}
  tag.assume %lt, "K < 10" : i1
  // expected-note @below {{the assumption 'K > 20'}}
  tag.assume %gt, "K > 20" : i1
  %same = arith.addi %K, %c0 : index
  %eq = arith.cmpi eq, %same, %K : index
  // expected-error @below {{tag assertion is vacuous: the facts in scope contradict each other}}
  tag.assert %eq, "K + 0 == K" : i1
  tile.return
}

// -----

// Assumptions about every element of a tile contradict each other (at
// the first element already).
tile.kernel @vacuous_tile_assumptions(%ids: !tile.view<?xi32>, %K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %zero = arith.constant dense<0> : tensor<16xi32>
  %x = tile.load %ids[%c0] : !tile.view<?xi32> -> tensor<16xi32>
  %neg = arith.cmpi slt, %x, %zero : tensor<16xi32>
  // expected-note @below {{the assumption 'ids are negative'}}
  tag.assume %neg, "ids are negative" : tensor<16xi1>
  %pos = arith.cmpi sgt, %x, %zero : tensor<16xi32>
  // expected-note @below {{the assumption 'ids are positive'}}
  tag.assume %pos, "ids are positive" : tensor<16xi1>
  %small = arith.cmpi slt, %K, %c10 : index
  tag.assume %small, "K < 10" : i1
  // expected-error @below {{tag assertion is vacuous: the facts in scope contradict each other}}
  tag.assert %small, "K < 10" : i1
  tile.return
}

// -----

// An assumption that contradicts a branch's condition makes the branch's
// assertions vacuous.
tile.kernel @vacuous_branch(%K: index) threads(32) {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %small = arith.cmpi slt, %K, %c10 : index
  // expected-note @below {{the assumption 'K < 10'}}
  tag.assume %small, "K < 10" : i1
  %big = arith.cmpi sge, %K, %c10 : index
  // expected-note @below {{the condition of this branch}}
  scf.if %big {
    %z = arith.cmpi eq, %K, %c0 : index
    // expected-error @below {{tag assertion is vacuous}}
    tag.assert %z, "K == 0" : i1
  }
  tile.return
}
