// Gathering copies (tile.copy ... rows(...)) into shared memory, against
// tile.gather into registers. Row indices are 5 * ids[r] + 20 with ids the
// runner's small random integers (-8 to 8): from -20 to 60, so that
// negative and past-the-end rows (which read as zeros) come up beside
// rows inside the view. Y[p, :] = X[5 * ids[p] + 20, :], one program per
// 64 rows of Y.

// A software-pipelined loop over 64-column steps: the gathers fill a ring
// asynchronously (cp.async on NVIDIA), staged in registers on AMD.
tile.kernel @gather_copy_pipelined(%X: !tile.view<?x?xbf16>,
                                   %ids: !tile.view<?xi32>,
                                   %Y: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %D = tile.dim %X, 1 : !tile.view<?x?xbf16>
  %raw = tile.load %ids[%r0] : !tile.view<?xi32> -> tensor<64xi32>
  %five = arith.constant dense<5> : tensor<64xi32>
  %twenty = arith.constant dense<20> : tensor<64xi32>
  %scaled = arith.muli %raw, %five : tensor<64xi32>
  %rows = arith.addi %scaled, %twenty : tensor<64xi32>
  %sX = tile.alloc_shared : !tile.shared<64x64xbf16>
  scf.for %k = %c0 to %D step %c64 {
    tile.copy %X[%c0, %k] rows(%rows : tensor<64xi32>) -> %sX
        : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %x = tile.load %sX : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    tile.store %x -> %Y[%r0, %k] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
    tile.barrier
  } {tile.pipeline = #tile.pipeline<stages = 3>}
  tile.return
}

// One synchronous gathering copy of a 32x128 tile of f32 (columns 0-127).
tile.kernel @gather_copy_once(%X: !tile.view<?x?xf32>,
                              %ids: !tile.view<?xi32>,
                              %Y: !tile.view<?x?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c32 : index
  %raw = tile.load %ids[%r0] : !tile.view<?xi32> -> tensor<32xi32>
  %five = arith.constant dense<5> : tensor<32xi32>
  %twenty = arith.constant dense<20> : tensor<32xi32>
  %scaled = arith.muli %raw, %five : tensor<32xi32>
  %rows = arith.addi %scaled, %twenty : tensor<32xi32>
  %sX = tile.alloc_shared : !tile.shared<32x128xf32>
  tile.copy %X[%c0, %c0] rows(%rows : tensor<32xi32>) -> %sX
      : !tile.view<?x?xf32> -> !tile.shared<32x128xf32>
  tile.barrier
  %x = tile.load %sX : !tile.shared<32x128xf32> -> tensor<32x128xf32>
  tile.store %x -> %Y[%r0, %c0] : tensor<32x128xf32> -> !tile.view<?x?xf32>
  tile.return
}

// The references: the same rows gathered into registers.
tile.kernel @gather_ref(%X: !tile.view<?x?xbf16>, %ids: !tile.view<?xi32>,
                        %Y: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c64 : index
  %D = tile.dim %X, 1 : !tile.view<?x?xbf16>
  %raw = tile.load %ids[%r0] : !tile.view<?xi32> -> tensor<64xi32>
  %five = arith.constant dense<5> : tensor<64xi32>
  %twenty = arith.constant dense<20> : tensor<64xi32>
  %scaled = arith.muli %raw, %five : tensor<64xi32>
  %rows = arith.addi %scaled, %twenty : tensor<64xi32>
  scf.for %k = %c0 to %D step %c64 {
    %x = tile.gather %X[%c0, %k] rows(%rows)
        : !tile.view<?x?xbf16>, tensor<64xi32> -> tensor<64x64xbf16>
    tile.store %x -> %Y[%r0, %k] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  }
  tile.return
}

tile.kernel @gather_ref_f32(%X: !tile.view<?x?xf32>, %ids: !tile.view<?xi32>,
                            %Y: !tile.view<?x?xf32>) threads(64) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c32 : index
  %raw = tile.load %ids[%r0] : !tile.view<?xi32> -> tensor<32xi32>
  %five = arith.constant dense<5> : tensor<32xi32>
  %twenty = arith.constant dense<20> : tensor<32xi32>
  %scaled = arith.muli %raw, %five : tensor<32xi32>
  %rows = arith.addi %scaled, %twenty : tensor<32xi32>
  %x = tile.gather %X[%c0, %c0] rows(%rows)
      : !tile.view<?x?xf32>, tensor<32xi32> -> tensor<32x128xf32>
  tile.store %x -> %Y[%r0, %c0] : tensor<32x128xf32> -> !tile.view<?x?xf32>
  tile.return
}
