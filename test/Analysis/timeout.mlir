// Z3 4.8.12 does not count the work of nonlinear integer reasoning against
// its rlimit when the query applies an uninterpreted function (here the
// value read from %N): finding a factor of a semiprime read from memory
// would run without end. The wall-clock backstop (`timeout`, seconds)
// makes the assertion undecided instead.
// RUN: not tessera-opt %s --tag-check="timeout=1" 2>&1 | FileCheck %s
// CHECK: error: tag assertion undecided: Z3 ran past the wall-clock backstop of 1 s without counting its work against rlimit=4000000; raise the tag-check option 'timeout' or simplify the assertion

tile.kernel @factor(%N: !tile.view<?xi64>, %x: i64, %y: i64) threads(128) {
  %c0 = arith.constant 0 : index
  %n_t = tile.load %N[%c0] : !tile.view<?xi64> -> tensor<1xi64>
  %n = tensor.extract %n_t[%c0] : tensor<1xi64>
  %one = arith.constant 1 : i64
  %lim = arith.constant 2000000000 : i64
  %big = arith.constant 1000000016000000063 : i64
  %x1 = arith.cmpi sgt, %x, %one : i64
  tag.assume %x1, "x > 1" : i1
  %y1 = arith.cmpi sgt, %y, %one : i64
  tag.assume %y1, "y > 1" : i1
  %x2 = arith.cmpi slt, %x, %lim : i64
  tag.assume %x2, "x small" : i1
  %y2 = arith.cmpi slt, %y, %lim : i64
  tag.assume %y2, "y small" : i1
  %p = arith.muli %x, %y : i64
  %isn = arith.cmpi eq, %p, %n : i64
  tag.assume %isn, "x * y = N[0]" : i1
  %nbig = arith.cmpi eq, %n, %big : i64
  tag.assume %nbig, "N[0] is a semiprime" : i1
  %x_one = arith.cmpi eq, %x, %one : i64
  tag.assert %x_one, "x is 1" : i1
  tile.return
}
