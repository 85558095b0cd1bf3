// RUN: tessera-opt %s --define-integer-division | FileCheck %s
// Divisions whose divisor may be 0 (or, signed, -1 with the least value)
// get a guarded divisor and a defined result: x / 0 = 0, x % 0 = x,
// MIN / -1 = MIN, MIN % -1 = 0. Safe constant divisors are left alone.

// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%[[X:[a-z0-9]+]]: index, %[[D:[a-z0-9]+]]: index)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[BYZERO:.*]] = arith.cmpi eq, %[[D]], %[[ZERO]] : index
// CHECK: %[[SAFE:.*]] = arith.select %[[BYZERO]], %[[ONE]], %[[D]] : index
// CHECK: %[[Q:.*]] = arith.divui %[[X]], %[[SAFE]] : index
// CHECK: %[[QR:.*]] = arith.select %[[BYZERO]], %[[ZERO]], %[[Q]] : index
// CHECK: %[[R:.*]] = arith.remui %[[X]], %{{.*}} : index
// CHECK: %[[RR:.*]] = arith.select %{{.*}}, %[[X]], %[[R]] : index
// CHECK: arith.divui %[[X]], %c64 : index
// CHECK: return %[[QR]], %[[RR]]
func.func @unsigned(%x: index, %d: index) -> (index, index, index) {
  %c64 = arith.constant 64 : index
  %q = arith.divui %x, %d : index
  %r = arith.remui %x, %d : index
  %s = arith.divui %x, %c64 : index
  return %q, %r, %s : index, index, index
}

// Signed: -1 is guarded too, also in a vector; 7 is not.
// CHECK-LABEL: func.func @signed
// CHECK-SAME: (%[[X:[a-z0-9]+]]: vector<4xi32>, %[[D:[a-z0-9]+]]: vector<4xi32>,
// CHECK: %[[BYZERO:.*]] = arith.cmpi eq, %[[D]], %{{.*}} : vector<4xi32>
// CHECK: %[[MIN:.*]] = arith.constant dense<-2147483648> : vector<4xi32>
// CHECK: %[[M1:.*]] = arith.constant dense<-1> : vector<4xi32>
// CHECK: %[[ISMIN:.*]] = arith.cmpi eq, %[[X]], %[[MIN]] : vector<4xi32>
// CHECK: %[[ISM1:.*]] = arith.cmpi eq, %[[D]], %[[M1]] : vector<4xi32>
// CHECK: %[[OVER:.*]] = arith.andi %[[ISMIN]], %[[ISM1]] : vector<4xi1>
// CHECK: %[[UNSAFE:.*]] = arith.ori %[[BYZERO]], %[[OVER]] : vector<4xi1>
// CHECK: %[[SAFE:.*]] = arith.select %[[UNSAFE]], %{{.*}}, %[[D]] : vector<4xi1>, vector<4xi32>
// CHECK: arith.divsi %[[X]], %[[SAFE]] : vector<4xi32>
// CHECK: arith.floordivsi
// CHECK: %[[MINUS:.*]] = arith.constant -1 : i64
// CHECK: arith.cmpi eq, %{{.*}}, %[[MINUS]] : i64
// CHECK: arith.ceildivsi
// CHECK: arith.remsi %{{.*}}, %c7_i64 : i64
func.func @signed(%x: vector<4xi32>, %d: vector<4xi32>, %y: i64)
    -> (vector<4xi32>, i64, i64, i64) {
  %c7 = arith.constant 7 : i64
  %minus = arith.constant -1 : i64
  %q = arith.divsi %x, %d : vector<4xi32>
  %f = arith.floordivsi %y, %y : i64
  %c = arith.ceildivsi %y, %minus : i64
  %r = arith.remsi %y, %c7 : i64
  return %q, %f, %c, %r : vector<4xi32>, i64, i64, i64
}
