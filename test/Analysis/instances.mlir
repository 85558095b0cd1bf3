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
