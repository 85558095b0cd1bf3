// Integer powers (tile-expand-powers): f32 bases to exponents in [-4, 8]
// (fpowi) and i32 bases in [-3, 3] to the same exponents (ipowi), both
// derived from the integer input so that every case occurs.
tile.kernel @powers(%B: !tile.view<?xf32>, %I: !tile.view<?xi32>,
                    %F: !tile.view<?xf32>, %J: !tile.view<?xi32>) threads(128) {
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %at = arith.muli %pid, %c256 : index
  %b = tile.load %B[%at] : !tile.view<?xf32> -> tensor<256xf32>
  %i = tile.load %I[%at] : !tile.view<?xi32> -> tensor<256xi32>
  %c13 = arith.constant dense<13> : tensor<256xi32>
  %c7 = arith.constant dense<7> : tensor<256xi32>
  %c4 = arith.constant dense<4> : tensor<256xi32>
  %c3 = arith.constant dense<3> : tensor<256xi32>
  %r13 = arith.remui %i, %c13 : tensor<256xi32>
  %e = arith.subi %r13, %c4 : tensor<256xi32>
  %q13 = arith.divui %i, %c13 : tensor<256xi32>
  %r7 = arith.remui %q13, %c7 : tensor<256xi32>
  %base = arith.subi %r7, %c3 : tensor<256xi32>
  %f = math.fpowi %b, %e : tensor<256xf32>, tensor<256xi32>
  %j = math.ipowi %base, %e : tensor<256xi32>
  tile.store %f -> %F[%at] : tensor<256xf32> -> !tile.view<?xf32>
  tile.store %j -> %J[%at] : tensor<256xi32> -> !tile.view<?xi32>
  tile.return
}

// Constant exponents (unrolled: x^-5 is 1 / (x * x^4), two squarings and a
// multiply) against the same exponents the pass cannot see as constants
// (i & 0 added: the loop over all 32 bits): the same bits.
tile.kernel @powers_const(%B: !tile.view<?xf32>, %I: !tile.view<?xi32>,
                          %F: !tile.view<?xf32>, %J: !tile.view<?xi32>) threads(128) {
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %at = arith.muli %pid, %c256 : index
  %b = tile.load %B[%at] : !tile.view<?xf32> -> tensor<256xf32>
  %i = tile.load %I[%at] : !tile.view<?xi32> -> tensor<256xi32>
  %c7 = arith.constant dense<7> : tensor<256xi32>
  %cm5 = arith.constant dense<-5> : tensor<256xi32>
  %f = math.fpowi %b, %cm5 : tensor<256xf32>, tensor<256xi32>
  %j = math.ipowi %i, %c7 : tensor<256xi32>
  tile.store %f -> %F[%at] : tensor<256xf32> -> !tile.view<?xf32>
  tile.store %j -> %J[%at] : tensor<256xi32> -> !tile.view<?xi32>
  tile.return
}

tile.kernel @powers_loop(%B: !tile.view<?xf32>, %I: !tile.view<?xi32>,
                         %F: !tile.view<?xf32>, %J: !tile.view<?xi32>) threads(128) {
  %c256 = arith.constant 256 : index
  %pid = tile.program_id x
  %at = arith.muli %pid, %c256 : index
  %b = tile.load %B[%at] : !tile.view<?xf32> -> tensor<256xf32>
  %i = tile.load %I[%at] : !tile.view<?xi32> -> tensor<256xi32>
  %c0 = arith.constant dense<0> : tensor<256xi32>
  %none = arith.andi %i, %c0 : tensor<256xi32>
  %c7 = arith.constant dense<7> : tensor<256xi32>
  %cm5 = arith.constant dense<-5> : tensor<256xi32>
  %e7 = arith.addi %none, %c7 : tensor<256xi32>
  %em5 = arith.addi %none, %cm5 : tensor<256xi32>
  %f = math.fpowi %b, %em5 : tensor<256xf32>, tensor<256xi32>
  %j = math.ipowi %i, %e7 : tensor<256xi32>
  tile.store %f -> %F[%at] : tensor<256xf32> -> !tile.view<?xf32>
  tile.store %j -> %J[%at] : tensor<256xi32> -> !tile.view<?xi32>
  tile.return
}
