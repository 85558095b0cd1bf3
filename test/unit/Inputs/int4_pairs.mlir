// Unpacks a 4x4 tile of int4 codes (nibble pairs, low nibble first) into
// sign-extended bytes.
tile.kernel @unpack_codes(%W: !tile.view<?x?x2xi4>, %Y: !tile.view<?x?xi8>) threads(32) {
  %c0 = arith.constant 0 : index
  %p = tile.load %W[%c0, %c0, %c0] : !tile.view<?x?x2xi4> -> tensor<4x2x2xi4>
  %u = tile.unpack %p dim 1 order [0, 1] : tensor<4x2x2xi4> -> tensor<4x4xi4>
  %y = arith.extsi %u : tensor<4x4xi4> to tensor<4x4xi8>
  tile.store %y -> %Y[%c0, %c0] : tensor<4x4xi8> -> !tile.view<?x?xi8>
  tile.return
}
