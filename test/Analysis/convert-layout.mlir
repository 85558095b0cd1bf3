// RUN: tessera-opt %s --split-input-file --tag-check --verify-diagnostics -o /dev/null
// tile.convert_layout keeps every element (and its tag) where it is in the
// tile: only which thread holds it changes.

#a = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#b = #tile.linear<register = [[8, 0], [0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
tile.kernel @same_place(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>) threads(32) {
  %c0 = arith.constant 0 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x8xf32, #a>
  %y = tile.convert_layout %x : tensor<16x8xf32, #a> -> tensor<16x8xf32, #b>
  tile.store %y -> %Y[%c0, %c0] : tensor<16x8xf32, #b> -> !tile.view<?x?xf32>
  tile.return
}

// -----

// Y expects X transposed: a conversion does not transpose.
#a = #tile.linear<register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
#b = #tile.linear<register = [[8, 0], [0, 1]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = []>
tile.kernel @not_a_transpose(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?xf32>) threads(32) {
  %c0 = arith.constant 0 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xf32>
  // expected-note @below {{%Y[0, 1]'s tag is bound here}}
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d1, d0) : !tile.view<?x?xf32>
  // expected-note @below {{%y[0, 1] was written here}}
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x8xf32, #a>
  %y = tile.convert_layout %x : tensor<16x8xf32, #a> -> tensor<16x8xf32, #b>
  // expected-error @below {{tag assertion failed: stored data does not belong where it lands (m, n)}}
  // expected-note @below {{counterexample: %Y.dim0 = 1, %Y.dim1 = 2, i0 = 0, i1 = 1}}
  // expected-note @below {{%y[0, 1] carries X(0, 1); %Y[0, 1] carries X(1, 0)}}
  tile.store %y -> %Y[%c0, %c0] : tensor<16x8xf32, #b> -> !tile.view<?x?xf32>
  tile.return
}
