// RUN: tessera-opt %s --split-input-file --verify-diagnostics

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{map has 3 dimensions but the value has 2 element indices (a ring adds its slot as the first)}}
  tag.bind %A as "A"(m, k, x) = (d0, d1, d2) -> (d0, d1, d2) : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %r = tile.alloc_shared : !tile.shared<16x16xf32, stages = 2>
  // expected-error @below {{map has 2 dimensions but the value has 3 element indices}}
  tag.bind %r as "A"(m, k) = (d0, d1) -> (d0, d1) : !tile.shared<16x16xf32, stages = 2>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>, %i: index) threads(32) {
  // expected-error @below {{map has 1 symbols but 0 values are captured; give one capture per symbol}}
  tag.bind %A as "A"(m, k) = (d0, d1)[s0] -> (d0 + s0, d1) : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{names 1 components but the map has 2 results; name every component once}}
  tag.bind %A as "A"(m) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{tag component 'm' is named twice}}
  tag.bind %A as "A"(m, m) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{tag name must not be empty}}
  tag.bind %A as ""(m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?x?xf32>) threads(32) {
  // expected-error @below {{tag component names must not be empty}}
  tag.bind %A as "A"(m, "") = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tile.return
}

// -----

// expected-note @below {{prior use here}}
tile.kernel @k(%A: !tile.view<?x?xf32>, %i: i32) threads(32) {
  // expected-error @below {{use of value '%i' expects different type than prior uses: 'index' vs 'i32'}}
  tag.bind %A as "A"(m, k) = (d0, d1)[s0] -> (d0, d1) captures(%i) : !tile.view<?x?xf32>
  tile.return
}

// -----

tile.kernel @k(%x: f32) threads(32) {
  // expected-error @below {{operand #0 must be strided view of global memory (!tile.view) or shared-memory buffer (!tile.shared) or statically shaped tensor of any type values, but got 'f32'}}
  tag.bind %x as "A"() = () -> () : f32
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x4xf32>
  // expected-error @below {{both maps must range over the same index space, but they have 3 and 2 dimensions}}
  tag.assert_eq %a[(d0, d1, d2) -> (d0, d2)](k), %b[(d0, d1) -> (d0, d1)](k) : tensor<16x8xf32>, tensor<8x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  %b = arith.constant dense<1.0> : tensor<8x4xf32>
  // expected-error @below {{rhs map has 1 results but the value has 2 element indices}}
  tag.assert_eq %a[(d0, d1) -> (d0, d1)](k), %b[(d0, d1) -> (d1)](k) : tensor<16x8xf32>, tensor<8x4xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  // expected-error @below {{lhs map has 0 symbols but 1 values are captured}}
  tag.assert_eq %a[(d0, d1) -> (d0, d1)](k), %a[(d0, d1) -> (d0, d1)](k) captures(%i) : tensor<16x8xf32>, tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  // expected-error @below {{compares 2 components with 1; both sides need the same tag arity}}
  tag.assert_eq %a[(d0, d1) -> (d0, d1)](m, k), %a[(d0, d1) -> (d0, d1)](k) : tensor<16x8xf32>, tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  // expected-error @below {{index variable d2 is used by neither map, so its range is unknown}}
  tag.assert_eq %a[(d0, d1, d2) -> (d0, d1)](k), %a[(d0, d1, d2) -> (d0, d1)](k) : tensor<16x8xf32>, tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  // expected-error @below {{tag component 'k' is named twice}}
  tag.assert_eq %a[(d0, d1) -> (d0, d1)](k, k), %a[(d0, d1) -> (d0, d1)](m, k) : tensor<16x8xf32>, tensor<16x8xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x8xf32>
  %b = arith.constant dense<1.0> : tensor<16x4xf32>
  // expected-error @below {{contraction sizes differ: a has K = 8 but b has K = 4 (check the transpose flags)}}
  tag.assert_contract %a, %b transpose_b : tensor<16x8xf32>, tensor<16x4xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16xf32>
  // expected-error @below {{operands must be 2-D tiles, as for tile.mma}}
  tag.assert_contract %a, %a : tensor<16xf32>, tensor<16xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @below {{the contraction component name must not be empty}}
  tag.assert_contract %a, %a over "" : tensor<16x16xf32>, tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k(%i: index) threads(32) {
  // expected-error @below {{operand #0 must be 1-bit signless integer or tensor of 1-bit signless integer values, but got 'index'}}
  tag.assert %i : index
  tile.return
}

// -----

tile.kernel @k(%i: i32) threads(32) {
  // expected-error @below {{operand #0 must be 1-bit signless integer or tensor of 1-bit signless integer values, but got 'i32'}}
  tag.assume %i : i32
  tile.return
}

// -----

tile.kernel @k(%A: !tile.view<?xf32>) threads(32) {
  // expected-error @below {{operand #0 must be shared-memory buffer (!tile.shared), but got '!tile.view<?xf32>'}}
  tag.reset %A : !tile.view<?xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @below {{result shape must equal the value's shape}}
  %q = tag.coord %a("q") : tensor<16x16xf32> -> tensor<16xindex>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @below {{result must be a tile of integers or indices}}
  %q = tag.coord %a("q") : tensor<16x16xf32> -> tensor<16x16xf32>
  tile.return
}

// -----

tile.kernel @k() threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @below {{component name must not be empty}}
  %q = tag.coord %a("") : tensor<16x16xf32> -> tensor<16x16xi32>
  tile.return
}

// -----

tile.kernel @k(%K: index) threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @below {{the component name must not be empty}}
  tag.assert_complete %a over "" from %K to %K : tensor<16x16xf32>, index, index
  tile.return
}

// -----

tile.kernel @k(%K: index) threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  %hi = arith.constant dense<4> : tensor<16xindex>
  // expected-error @below {{a bound tile must have the value's shape ('tensor<16x16xf32>'), not 'tensor<16xindex>'}}
  tag.assert_complete %a over "k" from %K to %hi : tensor<16x16xf32>, index, tensor<16xindex>
  tile.return
}

// -----

tile.kernel @k(%K: i32) threads(32) {
  %a = arith.constant dense<1.0> : tensor<16x16xf32>
  // expected-error @below {{operand #1 must be index or tensor of index values}}
  tag.assert_complete %a over "k" from %K to %K : tensor<16x16xf32>, i32, i32
  tile.return
}
