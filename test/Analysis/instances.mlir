// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics -o /dev/null
// RUN: not tessera-opt %s --split-input-file --tag-check=print-stats -o /dev/null 2>&1 | FileCheck %s
// An assumption about every element of a tile, asserted again about the
// elements of a broadcast of it, is an instance of the assumption: proved
// without Z3. The same statement about a tile loaded one row further is not.

// CHECK: tag-check: @instance: 1 proved structurally, 0 by Z3, 0 failed
tile.kernel @instance(%ids_v: !tile.view<?xi32>) threads(128) {
  %blk = tile.program_id x
  %c16 = arith.constant 16 : index
  %r0 = arith.muli %blk, %c16 : index
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %pos = arith.cmpi sge, %ids, %zero : tensor<16xi32>
  tag.assume %pos, "ids are not negative" : tensor<16xi1>
  %ids2 = tile.broadcast %ids dims [1] : tensor<16xi32> -> tensor<16x16xi32>
  %zero2 = arith.constant dense<0> : tensor<16x16xi32>
  %pos2 = arith.cmpi sge, %ids2, %zero2 : tensor<16x16xi32>
  tag.assert %pos2, "each row's id is not negative" : tensor<16x16xi1>
  tile.return
}

// -----

// CHECK: tag-check: @next_rows: 0 proved structurally, 0 by Z3, 1 failed
tile.kernel @next_rows(%ids_v: !tile.view<?xi32>) threads(128) {
  %blk = tile.program_id x
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %r0 = arith.muli %blk, %c16 : index
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %pos = arith.cmpi sge, %ids, %zero : tensor<16xi32>
  tag.assume %pos, "ids are not negative" : tensor<16xi1>
  %r1 = arith.addi %r0, %c1 : index
  %next = tile.load %ids_v[%r1] : !tile.view<?xi32> -> tensor<16xi32>
  %pos_next = arith.cmpi sge, %next, %zero : tensor<16xi32>
  // expected-error @+3 {{tag assertion failed: the next rows' ids are not negative}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{it is false at element %pos_next[0]}}
  tag.assert %pos_next, "the next rows' ids are not negative" : tensor<16xi1>
  tile.return
}

// -----

// Token numbers: a slot id divided by the positive top-k is not negative
// when ids are not negative (the i32 division then rounds like floor
// division and its quotient, at most the id, does not wrap). The bounds
// the facts give (the ids' assumption instantiated at the element, the
// division's operands' ranges) decide it without Z3, and the divisor's
// assumption that it is not zero.
// CHECK: tag-check: @token_division: 2 proved structurally, 0 by Z3, 0 failed
tile.kernel @token_division(%ids_v: !tile.view<?xi32>, %topk: i32) threads(128) {
  %blk = tile.program_id x
  %c16 = arith.constant 16 : index
  %r0 = arith.muli %blk, %c16 : index
  %zero_s = arith.constant 0 : i32
  %pos_k = arith.cmpi sgt, %topk, %zero_s : i32
  tag.assume %pos_k, "topk is positive" : i1
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %pos = arith.cmpi sge, %ids, %zero : tensor<16xi32>
  tag.assume %pos, "ids are not negative" : tensor<16xi1>
  %k = tile.splat %topk : i32 -> tensor<16xi32>
  %tok = arith.divsi %ids, %k : tensor<16xi32>
  %tok_pos = arith.cmpi sge, %tok, %zero : tensor<16xi32>
  tag.assert %tok_pos, "token >= 0" : tensor<16xi1>
  tile.return
}

// -----

// Without the assumption on the ids the token can be negative (the
// divisor is still proved non-zero).
// CHECK: tag-check: @token_division_unsigned_ids: 1 proved structurally, 0 by Z3, 1 failed
tile.kernel @token_division_unsigned_ids(%ids_v: !tile.view<?xi32>, %topk: i32) threads(128) {
  %blk = tile.program_id x
  %c16 = arith.constant 16 : index
  %r0 = arith.muli %blk, %c16 : index
  %zero_s = arith.constant 0 : i32
  %pos_k = arith.cmpi sgt, %topk, %zero_s : i32
  tag.assume %pos_k, "topk is positive" : i1
  %ids = tile.load %ids_v[%r0] : !tile.view<?xi32> -> tensor<16xi32>
  %zero = arith.constant dense<0> : tensor<16xi32>
  %k = tile.splat %topk : i32 -> tensor<16xi32>
  %tok = arith.divsi %ids, %k : tensor<16xi32>
  %tok_pos = arith.cmpi sge, %tok, %zero : tensor<16xi32>
  // expected-error @+3 {{tag assertion failed: token >= 0}}
  // expected-note @+2 {{counterexample}}
  // expected-note @+1 {{it is false at element}}
  tag.assert %tok_pos, "token >= 0" : tensor<16xi1>
  tile.return
}
