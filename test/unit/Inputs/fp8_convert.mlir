// The fp8 conversion tests' kernel: Q = e4m3 codes of X quantized with one
// scale per row of 256 (max |x| / 448), Y = C's codes decoded to f32.
tile.kernel @fp8_convert(%X: !tile.view<?x?xf32>, %Q: !tile.view<?x?xf8E4M3FN>,
                         %C: !tile.view<?x?xf8E4M3FN>, %Y: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %row = tile.program_id x
  %x = tile.load %X[%row, %c0] : !tile.view<?x?xf32> -> tensor<1x256xf32>
  %q, %s = tile.quant %x group [1, 256]
      : tensor<1x256xf32> -> tensor<1x256xf8E4M3FN>, tensor<1x1xf32>
  tile.store %q -> %Q[%row, %c0]
      : tensor<1x256xf8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %c = tile.load %C[%row, %c0]
      : !tile.view<?x?xf8E4M3FN> -> tensor<1x256xf8E4M3FN>
  %y = arith.extf %c : tensor<1x256xf8E4M3FN> to tensor<1x256xf32>
  tile.store %y -> %Y[%row, %c0] : tensor<1x256xf32> -> !tile.view<?x?xf32>
  tile.return
}
