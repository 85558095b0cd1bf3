// Y = 2 X over a 1-D view of any length, walked by a counting scf.while
// (tessera-compile uplifts it to scf.for before checking and lowering).
tile.kernel @double_while(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %K = tile.dim %X, 0 : !tile.view<?xf32>
  tag.bind %X as "X"(i) = (d0) -> (d0) : !tile.view<?xf32>
  tag.bind %Y as "Y"(i) = (d0) -> (d0) : !tile.view<?xf32>
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi slt, %i, %K : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%i: index):
    %x = tile.load %X[%i] : !tile.view<?xf32> -> tensor<64xf32>
    %y = arith.addf %x, %x : tensor<64xf32>
    tile.store %y -> %Y[%i] : tensor<64xf32> -> !tile.view<?xf32>
    %next = arith.addi %i, %c64 : index
    scf.yield %next : index
  }
  tile.return
}
