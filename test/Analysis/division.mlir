// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Division and remainder by a value that may be zero: the targets define
// no result for it (the host and emulator images give one, a GPU another),
// so tag-check proves every divisor that is not a non-zero constant to be
// non-zero, or refutes it with a counterexample.

// Proved: the divisor is assumed positive.
tile.kernel @assumed(%A: !tile.view<?xf32>, %g: index) threads(128) {
  %c0 = arith.constant 0 : index
  %pos = arith.cmpi sgt, %g, %c0 : index
  tag.assume %pos, "g is positive" : i1
  %pid = tile.program_id x
  %q = arith.divui %pid, %g : index
  %r = arith.remui %pid, %g : index
  %s = arith.ceildivsi %pid, %g : index
  tile.return
}

// -----

// Refuted: nothing keeps the kernel argument from being 0 (the issue's
// divui and remsi by 0 that passed tag-check and corrupted the heap).
tile.kernel @unguarded(%A: !tile.view<?xf32>, %g: index) threads(128) {
  %pid = tile.program_id x
  // expected-error @below {{tag assertion failed: the divisor of 'arith.divui' may be zero}}
  // expected-note @below {{counterexample: %g = 0}}
  // expected-note @below {{the targets define no result for a division by zero: assume or check that %g is not zero}}
  %q = arith.divui %pid, %g : index
  // expected-error @below {{tag assertion failed: the divisor of 'arith.remsi' may be zero}}
  // expected-note @below {{counterexample: %g = 0}}
  // expected-note @below {{the targets define no result for a division by zero}}
  %r = arith.remsi %pid, %g : index
  tile.return
}

// -----

// Refuted element-wise: one element of a tile divisor may be zero.
tile.kernel @tile_divisor(%A: !tile.view<?xi32>) threads(128) {
  %c0 = arith.constant 0 : index
  %d = tile.load %A[%c0] : !tile.view<?xi32> -> tensor<16xi32>
  %ones = arith.constant dense<1> : tensor<16xi32>
  // expected-error @below {{tag assertion failed: the divisor of 'arith.floordivsi' may be zero}}
  // expected-note @below {{counterexample}}
  // expected-note @below {{the targets define no result for a division by zero}}
  %q = arith.floordivsi %ones, %d : tensor<16xi32>
  tile.return
}

// -----

// Proved: a view's size is at least the tile loop's bound (not zero inside
// the loop), and constants need no proof.
tile.kernel @inside_loop(%A: !tile.view<?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %n = tile.dim %A, 0 : !tile.view<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %q = arith.divui %i, %n : index
    %r = arith.remui %i, %c7 : index
  }
  tile.return
}
