// RUN: tessera-opt %s --split-input-file --tile-uplift-while | FileCheck %s
// RUN: tessera-opt %s --split-input-file --tile-uplift-while --tag-check --verify-diagnostics -o /dev/null
// tessera-compile uplifts first: a kernel walking a view with a counting
// while loop compiles for the host and the GPUs and computes the same
// there (lengths 100, 64 and 0).
// RUN: tessera-compile %S/Inputs/counting-while.mlir --target=host,sm_80,gfx942 -o %t.bundle 2>/dev/null
// RUN: tessera-run %t.bundle --device=emu --chip=sm_80 --compare=host --kernel=double_while --grid=1 --view=0:100 --view=1:100 | FileCheck %s --check-prefix=SAME
// RUN: tessera-run %t.bundle --device=emu --chip=gfx942 --compare=host --kernel=double_while --grid=1 --view=0:64 --view=1:64 | FileCheck %s --check-prefix=SAME
// RUN: tessera-run %t.bundle --device=emu --chip=sm_80 --compare=host --kernel=double_while --grid=1 --view=0:0 --view=1:0 | FileCheck %s --check-prefix=SAME
// SAME: PASS

// A counting loop becomes an scf.for over the same range and step, whose
// facts (lb <= i < ub) prove the assertion inside it.
// CHECK-LABEL: tile.kernel @counting
// CHECK-NOT: scf.while
// CHECK: scf.for %[[I:.*]] = %c0 to %{{.*}} step %c32 {
// CHECK:   arith.cmpi slt, %[[I]]
// CHECK:   tag.assert
tile.kernel @counting(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>) threads(32) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %X, 0 : !tile.view<?xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi slt, %i, %K : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    %in = arith.cmpi slt, %i, %K : index
    tag.assert %in, "i < K in the loop" : i1
    %x = tile.load %X[%i] : !tile.view<?xf32> -> tensor<32xf32>
    tile.store %x -> %Y[%i] : tensor<32xf32> -> !tile.view<?xf32>
    %next = arith.addi %i, %c32 : index
    scf.yield %next : index
  }
  tile.return
}

// -----

// A loop whose condition is not a comparison of its counter stays a
// while loop, which tag-check rejects.
// CHECK-LABEL: tile.kernel @data_dependent
// CHECK: scf.while
tile.kernel @data_dependent(%flags: !tile.view<?xi32>) threads(32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  // expected-error @below {{the tag checker does not model 'scf.while'}}
  // expected-note @below {{--tile-uplift-while}}
  %r = scf.while (%i = %c0) : (index) -> index {
    %f = tile.load %flags[%i] : !tile.view<?xi32> -> tensor<1xi32>
    %v = tensor.extract %f[%c0] : tensor<1xi32>
    %go = arith.cmpi ne, %v, %zero : i32
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    %next = arith.addi %i, %c1 : index
    scf.yield %next : index
  }
  tile.return
}
