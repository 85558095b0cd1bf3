// Integer powers have no GPU lowering of their own (math on float tiles
// does, and absi, ctlz, cttz and ctpop on integer ones): tile-expand-powers
// rewrites them first.
tile.kernel @unsupported_math(%X: !tile.view<?x?xi32>, %Y: !tile.view<?x?xi32>)
    threads(32) {
  %c0 = arith.constant 0 : index
  %x = tile.load %X[%c0, %c0] : !tile.view<?x?xi32> -> tensor<32x32xi32>
  %y = math.ipowi %x, %x : tensor<32x32xi32>
  tile.store %y -> %Y[%c0, %c0] : tensor<32x32xi32> -> !tile.view<?x?xi32>
  tile.return
}
