// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics
// Scale-group alignment: every int4 code is scaled by the scale of its own
// group (k floordiv 128) and column.

tile.kernel @correct(%W: !tile.view<?x?xi4>, %S: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tag.bind %W as "W"(k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
  tag.bind %S as "S"(g, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  // A 64-row tile lies inside one group when it starts at a multiple of 64.
  scf.for %k = %c0 to %K step %c64 {
    %codes = tile.load %W[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x32xi4>
    %g = arith.divui %k, %c128 : index
    %s = tile.load %S[%g, %c0] : !tile.view<?x?xf16> -> tensor<1x32xf16>
    tag.assert_eq %codes[(d0, d1) -> (d0, d1)](g, n), %s[(d0, d1) -> (0, d1)](g, n)
        : tensor<64x32xi4>, tensor<1x32xf16>
  }
  tile.return
}

// -----

// Mutant: the scale row is computed for groups of 64, not 128.
tile.kernel @wrong_group_size(%W: !tile.view<?x?xi4>, %S: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  tag.bind %W as "W"(k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
  tag.bind %S as "S"(g, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  scf.for %k = %c0 to %K step %c64 {
    // expected-note @below {{was written here}}
    %codes = tile.load %W[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x32xi4>
    %g = arith.divui %k, %c64 : index
    // expected-note @below {{was written here}}
    %s = tile.load %S[%g, %c0] : !tile.view<?x?xf16> -> tensor<1x32xf16>
    // expected-error @below {{tags differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries W(}}
    tag.assert_eq %codes[(d0, d1) -> (d0, d1)](g, n), %s[(d0, d1) -> (0, d1)](g, n)
        : tensor<64x32xi4>, tensor<1x32xf16>
  }
  tile.return
}

// -----

// Mutant: tiles start 32 rows into a group, so some straddle two groups.
tile.kernel @misaligned_tiles(%W: !tile.view<?x?xi4>, %S: !tile.view<?x?xf16>, %K: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tag.bind %W as "W"(k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
  tag.bind %S as "S"(g, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  scf.for %k = %c32 to %K step %c64 {
    // expected-note @below {{was written here}}
    %codes = tile.load %W[%k, %c0] : !tile.view<?x?xi4> -> tensor<64x32xi4>
    %g = arith.divui %k, %c128 : index
    // expected-note @below {{was written here}}
    %s = tile.load %S[%g, %c0] : !tile.view<?x?xf16> -> tensor<1x32xf16>
    // expected-error @below {{tags differ}}
    // expected-note @below {{counterexample: }}
    // expected-note @below {{carries W(}}
    tag.assert_eq %codes[(d0, d1) -> (d0, d1)](g, n), %s[(d0, d1) -> (0, d1)](g, n)
        : tensor<64x32xi4>, tensor<1x32xf16>
  }
  tile.return
}

// -----

// Mutant: the scales of the next column tile.
tile.kernel @wrong_scale_column(%W: !tile.view<?x?xi4>, %S: !tile.view<?x?xf16>, %k: index) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  tag.bind %W as "W"(k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
  tag.bind %S as "S"(g, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf16>
  %g = arith.divui %k, %c128 : index
  %k0 = arith.muli %g, %c128 : index
  // expected-note @below {{was written here}}
  %codes = tile.load %W[%k0, %c0] : !tile.view<?x?xi4> -> tensor<128x32xi4>
  // expected-note @below {{was written here}}
  %s = tile.load %S[%g, %c32] : !tile.view<?x?xf16> -> tensor<1x32xf16>
  // expected-error @below {{tags differ}}
  // expected-note @below {{counterexample: }}
  // expected-note @below {{carries W(}}
  tag.assert_eq %codes[(d0, d1) -> (d0, d1)](g, n), %s[(d0, d1) -> (0, d1)](g, n)
      : tensor<128x32xi4>, tensor<1x32xf16>
  tile.return
}
