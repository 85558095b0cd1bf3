// Epilogues through shared memory: a tile stored into a shared buffer and
// copied out with tile.copy_out (TMA stores on sm_90a, the threads' masked
// stores elsewhere).
tile.kernel @copy_out(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xbf16>)
    threads(128) {
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : index
  %n0 = arith.muli %pid_n, %c128 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %sY = tile.alloc_shared : !tile.shared<64x128xbf16>
  %x = tile.load %X[%m0, %n0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  %y = arith.addf %x, %x : tensor<64x128xbf16>
  tile.store %y -> %sY : tensor<64x128xbf16> -> !tile.shared<64x128xbf16>
  tile.barrier
  tile.copy_out %sY -> %Y[%m0, %n0] async
      : !tile.shared<64x128xbf16> -> !tile.view<?x?xbf16>
  tile.async_commit
  tile.async_wait 0
  tile.return
}

// Out of a ring's slot: on sm_90a a TMA store of the slot; elsewhere the
// threads load the slot and store it.
tile.kernel @copy_out_slot(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xbf16>)
    threads(128) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %pid_m = tile.program_id x
  %pid_n = tile.program_id y
  %m0 = arith.muli %pid_m, %c64 : index
  %n0 = arith.muli %pid_n, %c128 : index
  tag.bind %X as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %Y as "X"(m, n) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  %ring = tile.alloc_shared : !tile.shared<64x128xbf16, stages = 2>
  %x = tile.load %X[%m0, %n0] : !tile.view<?x?xbf16> -> tensor<64x128xbf16>
  tile.store %x -> %ring[%c1] : tensor<64x128xbf16> -> !tile.shared<64x128xbf16, stages = 2>
  tile.barrier
  tile.copy_out %ring[%c1] -> %Y[%m0, %n0]
      : !tile.shared<64x128xbf16, stages = 2> -> !tile.view<?x?xbf16>
  tile.return
}
