// RUN: tessera-opt %s --tag-check=emit-smt -o /dev/null | FileCheck %s
// Verification conditions print as SMT-LIB 2 that any solver can run: one
// block per assertion, with the facts in scope and the negated goal.

// CHECK: ; loc("{{.*}}emit-smt.mlir":{{[0-9]+}}:{{[0-9]+}}): the tile ends inside K
// CHECK-DAG: (declare-const K Int)
// CHECK-DAG: (declare-const k Int)
// CHECK: (assert
// CHECK: (not (<= 0
// CHECK: (check-sat)
// CHECK: ; loc("{{.*}}emit-smt.mlir":{{[0-9]+}}:{{[0-9]+}}): constant offsets: proved structurally
tile.kernel @whole_tiles(%K: index) threads(128) {
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
  %a = arith.addi %c64, %c64 : index
  %c128 = arith.constant 128 : index
  %same = arith.cmpi eq, %a, %c128 : index
  tag.assert %same, "constant offsets" : i1
  tile.return
}
