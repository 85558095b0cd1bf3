// y = a * x + y, 256 elements per program instance.
tile.kernel @axpy(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>, %a: f32)
    threads(128) {
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %off = arith.muli %pid, %c256 : index
  tag.bind %X as "X"(i) = (d0) -> (d0) : !tile.view<?xf32>
  tag.bind %Y as "Y"(i) = (d0) -> (d0) : !tile.view<?xf32>
  %x = tile.load %X[%off] : !tile.view<?xf32> -> tensor<256xf32>
  %y = tile.load %Y[%off] : !tile.view<?xf32> -> tensor<256xf32>
  // Both operands of the update are the same element.
  tag.assert_eq %x[(d0) -> (d0)](i), %y[(d0) -> (d0)](i) : tensor<256xf32>, tensor<256xf32>
  %as = tile.splat %a : f32 -> tensor<256xf32>
  %ax = arith.mulf %as, %x : tensor<256xf32>
  %r = arith.addf %ax, %y : tensor<256xf32>
  tile.store %r -> %Y[%off] : tensor<256xf32> -> !tile.view<?xf32>
  tile.return
}
