// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Reductions are complete: tag.assert_complete proves that every element
// of an accumulator summed each value of the contracted component in a
// range exactly once, and every store proves no value was summed twice.

// The reference: a K loop over tiles of 32.
tile.kernel @correct(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %next = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the K loop starts one tile late.
tile.kernel @starts_late(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c32 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-note @below {{the tiles of 'k' are summed here}}
    %next = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{tag assertion failed: %acc does not sum every value of 'k' in its range}}
  // expected-note @below {{counterexample: }}
  // expected-note-re @below {{%acc[{{[0-9]+}}, {{[0-9]+}}] never sums k = {{[0-9]+}}}}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the loop steps two tiles at a time, skipping every other tile.
tile.kernel @steps_two_tiles(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-note @below {{the tiles of 'k' are summed here}}
    %next = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{does not sum every value of 'k' in its range}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{never sums k = }}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: each iteration starts from zero instead of the running sum, so
// only the last iteration's tile survives.
tile.kernel @accumulator_reset(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-note @below {{the tiles of 'k' are summed here}}
    %next = tile.mma %a, %b, %z : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{%acc does not sum every value of 'k' in its range}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{never sums k = 0}}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// A loop that runs once may start over: its one iteration is the sum.
tile.kernel @single_iteration_reset(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %c32 step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %next = tile.mma %a, %b, %z : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %c32 : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Starting over from a value that already summed something: what survives
// depends on whether the loop runs, so it is not known.
tile.kernel @reset_after_a_sum(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %a0 = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %b0 = tile.load %B[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %first = tile.mma %a0, %b0, %z : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  // expected-note @below {{each iteration yields a sum that does not add to its iteration argument}}
  %acc = scf.for %k = %c32 to %K step %c32 iter_args(%c = %first) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %next = tile.mma %a, %b, %z : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{what %acc summed is not known}}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: the same tile is added twice per iteration; the store alone
// (without tag.assert_complete) catches it.
tile.kernel @summed_twice(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-note @below {{summed here}}
    %once = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    // expected-note @below {{and here}}
    %next = tile.mma %a, %b, %once : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{an element of %acc sums a value of 'k' twice}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{sums k = }}
  tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: tiles of 32 with a step of 16 overlap, so values are summed twice.
tile.kernel @overlapping_tiles(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-note @below {{summed here}}
    %next = tile.mma %a, %b, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  // expected-error @below {{sums a value of 'k' twice}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{sums k = }}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// A range per element: causal rows sum the keys up to their own position,
// and the loop stops at the diagonal block.
tile.kernel @causal_rows(%P: !tile.view<?x?xf16>, %V: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c32 : index
  %S = tile.dim %V, 0 : !tile.view<?x?xf16>
  tag.bind %P as "P"(q, kv) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %V as "V"(kv, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %diag = arith.addi %m0, %c32 : index
  %end = arith.minui %S, %diag : index
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %o = scf.for %n0 = %c0 to %end step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %p = tile.load %P[%m0, %n0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %v = tile.load %V[%n0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %next = tile.mma %p, %v, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  %rows = tile.iota : tensor<32xindex>
  %m0_t = tile.splat %m0 : index -> tensor<32xindex>
  %q = arith.addi %rows, %m0_t : tensor<32xindex>
  %q2 = tile.broadcast %q dims [1] : tensor<32xindex> -> tensor<32x32xindex>
  %one = tile.splat %c1 : index -> tensor<32x32xindex>
  %q_next = arith.addi %q2, %one : tensor<32x32xindex>
  %S_t = tile.splat %S : index -> tensor<32x32xindex>
  %hi = arith.minui %q_next, %S_t : tensor<32x32xindex>
  tag.assert_complete %o over "kv" from %c0 to %hi, "row q sums keys 0..q" : tensor<32x32xf32>, index, tensor<32x32xindex>
  tile.return
}

// -----

// Mutant: the causal loop stops one block before the diagonal.
tile.kernel @causal_stops_early(%P: !tile.view<?x?xf16>, %V: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %m0 = arith.muli %pid, %c32 : index
  %S = tile.dim %V, 0 : !tile.view<?x?xf16>
  tag.bind %P as "P"(q, kv) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %V as "V"(kv, d) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %end = arith.minui %S, %m0 : index
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %o = scf.for %n0 = %c0 to %end step %c32 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %p = tile.load %P[%m0, %n0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    %v = tile.load %V[%n0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
    // expected-note @below {{the tiles of 'kv' are summed here}}
    %next = tile.mma %p, %v, %c : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  %rows = tile.iota : tensor<32xindex>
  %m0_t = tile.splat %m0 : index -> tensor<32xindex>
  %q = arith.addi %rows, %m0_t : tensor<32xindex>
  %q2 = tile.broadcast %q dims [1] : tensor<32xindex> -> tensor<32x32xindex>
  %one = tile.splat %c1 : index -> tensor<32x32xindex>
  %q_next = arith.addi %q2, %one : tensor<32x32xindex>
  %S_t = tile.splat %S : index -> tensor<32x32xindex>
  %hi = arith.minui %q_next, %S_t : tensor<32x32xindex>
  // expected-error @below {{tag assertion failed: row q sums keys 0..q}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{never sums kv = }}
  tag.assert_complete %o over "kv" from %c0 to %hi, "row q sums keys 0..q" : tensor<32x32xf32>, index, tensor<32x32xindex>
  tile.return
}

// -----

// A value no MMA added to sums nothing.
tile.kernel @not_accumulated(%K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-error @below {{%z sums no value of 'k': no tile.mma over 'k' adds to it}}
  tag.assert_complete %z over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// A product of two accumulations is not a sum of their parts.
tile.kernel @product_of_sums(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %s = tile.mma %a, %b, %z : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
  // expected-note @below {{it combines two accumulations with 'arith.mulf'}}
  %st = arith.mulf %s, %s : tensor<32x32xf32>
  // expected-error @below {{what %st summed is not known}}
  tag.assert_complete %st over "k" from %c0 to %c32 : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Accumulating across nested loops: an outer loop over 64-wide chunks of
// K, an inner one over the chunk's two tiles of 32.
tile.kernel @nested(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %inner = scf.for %j = %c0 to %c64 step %c32 iter_args(%ci = %c) -> (tensor<32x32xf32>) {
      %kj = arith.addi %k, %j : index
      %a = tile.load %A[%c0, %kj] : !tile.view<?x?xf16> -> tensor<32x32xf16>
      %b = tile.load %B[%kj, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
      %next = tile.mma %a, %b, %ci : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      scf.yield %next : tensor<32x32xf32>
    }
    scf.yield %inner : tensor<32x32xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.store %acc -> %C[%c0, %c0] : tensor<32x32xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Split K: the inner loop's bounds follow the outer induction variable
// (chunks of 128, the last one cut at K).
tile.kernel @split_k(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %z = arith.constant dense<0.0> : tensor<32x64xf32>
  %acc = scf.for %k0 = %c0 to %K step %c128 iter_args(%c = %z) -> (tensor<32x64xf32>) {
    %end = arith.addi %k0, %c128 : index
    %hi = arith.minui %end, %K : index
    %inner = scf.for %k = %k0 to %hi step %c64 iter_args(%ci = %c) -> (tensor<32x64xf32>) {
      %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x64xf16>
      %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
      %next = tile.mma %a, %b, %ci : tensor<32x64xf16>, tensor<64x64xf16> -> tensor<32x64xf32>
      scf.yield %next : tensor<32x64xf32>
    }
    scf.yield %inner : tensor<32x64xf32>
  }
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x64xf32>, index, index
  tile.store %acc -> %C[%c0, %c0] : tensor<32x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Mutant: the inner loop covers only the first tile of each chunk.
tile.kernel @nested_skips_tile(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c64 iter_args(%c = %z) -> (tensor<32x32xf32>) {
    %inner = scf.for %j = %c0 to %c32 step %c32 iter_args(%ci = %c) -> (tensor<32x32xf32>) {
      %kj = arith.addi %k, %j : index
      %a = tile.load %A[%c0, %kj] : !tile.view<?x?xf16> -> tensor<32x32xf16>
      %b = tile.load %B[%kj, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
      // expected-note @below {{the tiles of 'k' are summed here}}
      %next = tile.mma %a, %b, %ci : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
      scf.yield %next : tensor<32x32xf32>
    }
    scf.yield %inner : tensor<32x32xf32>
  }
  // expected-error @below {{does not sum every value of 'k' in its range}}
  // expected-note @below {{counterexample: }}
  // expected-note-re @below {{%acc[{{[0-9]+}}, {{[0-9]+}}] never sums k = {{[0-9]+}}}}
  tag.assert_complete %acc over "k" from %c0 to %K : tensor<32x32xf32>, index, index
  tile.return
}

// -----

// Mutant: split K whose chunks overlap (the outer loop steps 64, the inner
// one covers 128): the store finds a value of k summed twice.
tile.kernel @split_k_overlap(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %C: !tile.view<?x?xf32>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xf16>
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %C as "C"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %z = arith.constant dense<0.0> : tensor<32x64xf32>
  %acc = scf.for %k0 = %c0 to %K step %c64 iter_args(%c = %z) -> (tensor<32x64xf32>) {
    %end = arith.addi %k0, %c128 : index
    %hi = arith.minui %end, %K : index
    %inner = scf.for %k = %k0 to %hi step %c64 iter_args(%ci = %c) -> (tensor<32x64xf32>) {
      %a = tile.load %A[%c0, %k] : !tile.view<?x?xf16> -> tensor<32x64xf16>
      %b = tile.load %B[%k, %c0] : !tile.view<?x?xf16> -> tensor<64x64xf16>
      // expected-note @below {{summed here}}
      %next = tile.mma %a, %b, %ci : tensor<32x64xf16>, tensor<64x64xf16> -> tensor<32x64xf32>
      scf.yield %next : tensor<32x64xf32>
    }
    scf.yield %inner : tensor<32x64xf32>
  }
  // expected-error @below {{tag assertion failed: an element of %acc sums a value of 'k' twice}}
  // expected-note @below {{counterexample: }}
  // expected-note-re @below {{%acc[{{[0-9]+}}, {{[0-9]+}}] sums k = {{[0-9]+}} twice}}
  tile.store %acc -> %C[%c0, %c0] : tensor<32x64xf32> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Branches that sum different things leave the sum unknown.
tile.kernel @branches_differ(%A: !tile.view<?x?xf16>, %B: !tile.view<?x?xf16>, %flag: i1) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  tag.bind %A as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  tag.bind %B as "B"(k, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %b = tile.load %B[%c0, %c0] : !tile.view<?x?xf16> -> tensor<32x32xf16>
  %z = arith.constant dense<0.0> : tensor<32x32xf32>
  // expected-note @below {{its branches sum different values}}
  %r = scf.if %flag -> (tensor<32x32xf32>) {
    %s = tile.mma %a, %b, %z : tensor<32x32xf16>, tensor<32x32xf16> -> tensor<32x32xf32>
    scf.yield %s : tensor<32x32xf32>
  } else {
    scf.yield %z : tensor<32x32xf32>
  }
  // expected-error @below {{what %r summed is not known}}
  tag.assert_complete %r over "k" from %c0 to %c32 : tensor<32x32xf32>, index, index
  tile.return
}
