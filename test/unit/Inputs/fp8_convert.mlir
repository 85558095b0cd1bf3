// The fp8 conversion tests' kernel, for the host and the GPU targets. Per
// 32-row tile of 64 columns: Q = e4m3 codes of X quantized with one scale
// per row (max |x| / 448), Y = C's codes decoded to f32, V = Q times the
// identity I (fp8 codes of 1 and 0): the values of the codes as the MMA
// reads them (on GPUs computed from the quantized reals, not decoded).
tile.kernel @fp8_convert(%X: !tile.view<?x?xf32>, %Q: !tile.view<?x?xf8E4M3FN>,
                         %C: !tile.view<?x?xf8E4M3FN>, %Y: !tile.view<?x?xf32>,
                         %I: !tile.view<?x?xf8E4M3FN>, %V: !tile.view<?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %pid = tile.program_id x
  %row = arith.muli %pid, %c32 : index
  %x = tile.load %X[%row, %c0] : !tile.view<?x?xf32> -> tensor<32x64xf32>
  %q, %s = tile.quant %x group [1, 64]
      : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x1xf32>
  tile.store %q -> %Q[%row, %c0]
      : tensor<32x64xf8E4M3FN> -> !tile.view<?x?xf8E4M3FN>
  %c = tile.load %C[%row, %c0]
      : !tile.view<?x?xf8E4M3FN> -> tensor<32x64xf8E4M3FN>
  %y = arith.extf %c : tensor<32x64xf8E4M3FN> to tensor<32x64xf32>
  tile.store %y -> %Y[%row, %c0] : tensor<32x64xf32> -> !tile.view<?x?xf32>
  %i = tile.load %I[%c0, %c0]
      : !tile.view<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
  %zero = arith.constant dense<0.0> : tensor<32x64xf32>
  %v = tile.mma %q, %i, %zero
      : tensor<32x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<32x64xf32>
  tile.store %v -> %V[%row, %c0] : tensor<32x64xf32> -> !tile.view<?x?xf32>
  tile.return
}
