// RUN: tessera-opt %s --tile-expand-powers | FileCheck %s
// RUN: tessera-opt %s --tile-expand-powers --tag-check -o /dev/null

// fpowi: square-and-multiply over the exponent's 32 bits of magnitude, the
// reciprocal for negative exponents.
// CHECK-LABEL: tile.kernel @fpowi
// CHECK-NOT: math.fpowi
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[E:.*]], %{{.*}} : tensor<64xi32>
// CHECK: %[[MAG:.*]] = tile.select %[[NEG]]
// CHECK: %[[LOOP:.*]]:3 = scf.for %{{.*}} = %c0{{.*}} to %c32 step %c1 iter_args(%[[R:.*]] = %{{.*}}, %[[B:.*]] = %{{.*}}, %[[M:.*]] = %[[MAG]]) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xi32>)
// CHECK: arith.andi %[[M]]
// CHECK: arith.mulf %[[R]], %[[B]]
// CHECK: arith.mulf %[[B]], %[[B]]
// CHECK: arith.shrui %[[M]]
// CHECK: %[[INV:.*]] = arith.divf %{{.*}}, %[[LOOP]]#0
// CHECK: tile.select %[[NEG]], %[[INV]], %[[LOOP]]#0
tile.kernel @fpowi(%X: !tile.view<?xf32>, %N: !tile.view<?xi32>) threads(64) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  %n = tile.load %N[%c0] : !tile.view<?xi32> -> tensor<64xi32>
  %y = math.fpowi %x, %n : tensor<64xf32>, tensor<64xi32>
  tile.store %y -> %X[%c0] : tensor<64xf32> -> !tile.view<?xf32>
  tile.return
}

// ipowi on scalars (i64: 64 steps), with the rule for negative exponents.
// CHECK-LABEL: tile.kernel @ipowi
// CHECK-NOT: math.ipowi
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c64 step %c1
// CHECK-SAME: -> (i64, i64, i64)
// CHECK: arith.select
tile.kernel @ipowi(%X: !tile.view<?xi64>, %a: i64, %b: i64) threads(64) {
  %c0 = arith.constant 0 : index
  %p = math.ipowi %a, %b : i64
  %t = tile.splat %p : i64 -> tensor<64xi64>
  tile.store %t -> %X[%c0] : tensor<64xi64> -> !tile.view<?xi64>
  tile.return
}

// A constant exponent (a splat, and a scalar): the loop's multiplications
// unrolled up to the highest set bit. x^-5: x^4 by two squarings, x * x^4,
// then the reciprocal; a^6: a^2 and a^4 by squarings, a^2 * a^4.
// CHECK-LABEL: tile.kernel @constant_exponents
// CHECK-NOT: scf.for
// CHECK: %[[X:.*]] = tile.load
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]] : tensor<64xf32>
// CHECK-NEXT: %[[X4:.*]] = arith.mulf %[[X2]], %[[X2]] : tensor<64xf32>
// CHECK-NEXT: %[[X5:.*]] = arith.mulf %[[X]], %[[X4]] : tensor<64xf32>
// CHECK: arith.divf %{{.*}}, %[[X5]]
// CHECK: %[[A2:.*]] = arith.muli %[[A:.*]], %[[A]] : i32
// CHECK-NEXT: %[[A4:.*]] = arith.muli %[[A2]], %[[A2]] : i32
// CHECK-NEXT: arith.muli %[[A2]], %[[A4]] : i32
// CHECK-NOT: scf.for
tile.kernel @constant_exponents(%X: !tile.view<?xf32>, %a: i32, %Y: !tile.view<?xi32>) threads(64) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0] : !tile.view<?xf32> -> tensor<64xf32>
  %n = arith.constant dense<-5> : tensor<64xi32>
  %y = math.fpowi %x, %n : tensor<64xf32>, tensor<64xi32>
  tile.store %y -> %X[%c0] : tensor<64xf32> -> !tile.view<?xf32>
  %six = arith.constant 6 : i32
  %p = math.ipowi %a, %six : i32
  %t = tile.splat %p : i32 -> tensor<64xi32>
  tile.store %t -> %Y[%c0] : tensor<64xi32> -> !tile.view<?xi32>
  tile.return
}
