// C = GELU(A B + bias) in bf16 with f32 accumulation, as a user writes it,
// GELU in its tanh form: 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))).
//
// gemm_bias_gelu: a 64x64 tile of C a program, K in steps of 32 with the
// operand tiles loaded straight from the views (ragged edges read as 0);
// launch (ceil(M / 64), ceil(N / 64)) programs. gemm_bias_gelu_naive, its
// reference: 32x32 tiles, K in steps of 16, tanh written as
// 1 - 2 / (e^(2u) + 1); launch (ceil(M / 32), ceil(N / 32)).
tile.kernel @gemm_bias_gelu(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>,
                            %bias: !tile.view<?xf32>,
                            %C: !tile.view<?x?xbf16>) threads(128) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c64 : index
  %n0 = arith.muli %pn, %c64 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<64x64xf32>
  %acc = scf.for %k = %c0 to %K step %c32 iter_args(%c = %zero)
      -> (tensor<64x64xf32>) {
    %a = tile.load %A[%m0, %k] : !tile.view<?x?xbf16> -> tensor<64x32xbf16>
    %b = tile.load %B[%k, %n0] : !tile.view<?x?xbf16> -> tensor<32x64xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    scf.yield %next : tensor<64x64xf32>
  }
  %bias1 = tile.load %bias[%n0] : !tile.view<?xf32> -> tensor<64xf32>
  %biasb = tile.broadcast %bias1 dims [0] : tensor<64xf32> -> tensor<64x64xf32>
  %x = arith.addf %acc, %biasb : tensor<64x64xf32>
  %x2 = arith.mulf %x, %x : tensor<64x64xf32>
  %x3 = arith.mulf %x2, %x : tensor<64x64xf32>
  %k1 = arith.constant dense<0.044715> : tensor<64x64xf32>
  %t1 = arith.mulf %x3, %k1 : tensor<64x64xf32>
  %inner = arith.addf %x, %t1 : tensor<64x64xf32>
  %k2 = arith.constant dense<0.7978845608> : tensor<64x64xf32>
  %u = arith.mulf %inner, %k2 : tensor<64x64xf32>
  %th = math.tanh %u : tensor<64x64xf32>
  %one = arith.constant dense<1.0> : tensor<64x64xf32>
  %half = arith.constant dense<0.5> : tensor<64x64xf32>
  %p = arith.addf %th, %one : tensor<64x64xf32>
  %hx = arith.mulf %x, %half : tensor<64x64xf32>
  %y = arith.mulf %hx, %p : tensor<64x64xf32>
  %yh = arith.truncf %y : tensor<64x64xf32> to tensor<64x64xbf16>
  tile.store %yh -> %C[%m0, %n0] : tensor<64x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}

tile.kernel @gemm_bias_gelu_naive(%A: !tile.view<?x?xbf16>,
                                  %B: !tile.view<?x?xbf16>,
                                  %bias: !tile.view<?xf32>,
                                  %C: !tile.view<?x?xbf16>) threads(64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pm = tile.program_id x
  %pn = tile.program_id y
  %m0 = arith.muli %pm, %c32 : index
  %n0 = arith.muli %pn, %c32 : index
  %K = tile.dim %A, 1 : !tile.view<?x?xbf16>
  %zero = arith.constant dense<0.0> : tensor<32x32xf32>
  %acc = scf.for %k = %c0 to %K step %c16 iter_args(%c = %zero)
      -> (tensor<32x32xf32>) {
    %a = tile.load %A[%m0, %k] : !tile.view<?x?xbf16> -> tensor<32x16xbf16>
    %b = tile.load %B[%k, %n0] : !tile.view<?x?xbf16> -> tensor<16x32xbf16>
    %next = tile.mma %a, %b, %c
        : tensor<32x16xbf16>, tensor<16x32xbf16> -> tensor<32x32xf32>
    scf.yield %next : tensor<32x32xf32>
  }
  %bias1 = tile.load %bias[%n0] : !tile.view<?xf32> -> tensor<32xf32>
  %biasb = tile.broadcast %bias1 dims [0] : tensor<32xf32> -> tensor<32x32xf32>
  %x = arith.addf %acc, %biasb : tensor<32x32xf32>
  %x2 = arith.mulf %x, %x : tensor<32x32xf32>
  %k1 = arith.constant dense<0.044715> : tensor<32x32xf32>
  %t1 = arith.mulf %x2, %k1 : tensor<32x32xf32>
  %one = arith.constant dense<1.0> : tensor<32x32xf32>
  %t2 = arith.addf %t1, %one : tensor<32x32xf32>
  %inner = arith.mulf %x, %t2 : tensor<32x32xf32>
  %k2 = arith.constant dense<1.5957691216> : tensor<32x32xf32>
  %u2 = arith.mulf %inner, %k2 : tensor<32x32xf32>
  %e = math.exp %u2 : tensor<32x32xf32>
  %e1 = arith.addf %e, %one : tensor<32x32xf32>
  %two = arith.constant dense<2.0> : tensor<32x32xf32>
  %q = arith.divf %two, %e1 : tensor<32x32xf32>
  %th = arith.subf %one, %q : tensor<32x32xf32>
  %half = arith.constant dense<0.5> : tensor<32x32xf32>
  %p = arith.addf %th, %one : tensor<32x32xf32>
  %hx = arith.mulf %x, %half : tensor<32x32xf32>
  %y = arith.mulf %hx, %p : tensor<32x32xf32>
  %yh = arith.truncf %y : tensor<32x32xf32> to tensor<32x32xbf16>
  tile.store %yh -> %C[%m0, %n0] : tensor<32x32xbf16> -> !tile.view<?x?xbf16>
  tile.return
}
