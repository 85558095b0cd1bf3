// Every math op on GPU tiles, each element through the vendor's library
// (libdevice on NVIDIA, ocml on AMD): Y[i] = op_i(X) for the 33 ops in
// the order below, on rows pid * 8 + [0, 8) (ragged at the end). Inputs of
// the ops defined on part of the line are mapped into it: x / (|x| + 1)
// for asin, acos and atanh, |x| + 1/2 for the logarithms and roots, |x| + 3/2
// for acosh.
tile.kernel @math_library(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %half = arith.constant dense<0.5> : tensor<8x64xf32>
  %one = arith.constant dense<1.0> : tensor<8x64xf32>
  %ax = math.absf %x : tensor<8x64xf32>
  %ax1 = arith.addf %ax, %one : tensor<8x64xf32>
  %t = arith.divf %x, %ax1 : tensor<8x64xf32>
  %p = arith.addf %ax, %half : tensor<8x64xf32>
  %q = arith.addf %p, %one : tensor<8x64xf32>
  %tanh = math.tanh %x : tensor<8x64xf32>
  %i0 = arith.constant 0 : index
  tile.store %tanh -> %Y[%i0, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %erf = math.erf %x : tensor<8x64xf32>
  %i1 = arith.constant 1 : index
  tile.store %erf -> %Y[%i1, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %erfc = math.erfc %x : tensor<8x64xf32>
  %i2 = arith.constant 2 : index
  tile.store %erfc -> %Y[%i2, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %exp = math.exp %x : tensor<8x64xf32>
  %i3 = arith.constant 3 : index
  tile.store %exp -> %Y[%i3, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %exp2 = math.exp2 %x : tensor<8x64xf32>
  %i4 = arith.constant 4 : index
  tile.store %exp2 -> %Y[%i4, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %expm1 = math.expm1 %x : tensor<8x64xf32>
  %i5 = arith.constant 5 : index
  tile.store %expm1 -> %Y[%i5, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %sin = math.sin %x : tensor<8x64xf32>
  %i6 = arith.constant 6 : index
  tile.store %sin -> %Y[%i6, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %cos = math.cos %x : tensor<8x64xf32>
  %i7 = arith.constant 7 : index
  tile.store %cos -> %Y[%i7, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %tan = math.tan %x : tensor<8x64xf32>
  %i8 = arith.constant 8 : index
  tile.store %tan -> %Y[%i8, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %atan = math.atan %x : tensor<8x64xf32>
  %i9 = arith.constant 9 : index
  tile.store %atan -> %Y[%i9, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %sinh = math.sinh %x : tensor<8x64xf32>
  %i10 = arith.constant 10 : index
  tile.store %sinh -> %Y[%i10, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %cosh = math.cosh %x : tensor<8x64xf32>
  %i11 = arith.constant 11 : index
  tile.store %cosh -> %Y[%i11, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %asinh = math.asinh %x : tensor<8x64xf32>
  %i12 = arith.constant 12 : index
  tile.store %asinh -> %Y[%i12, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %cbrt = math.cbrt %x : tensor<8x64xf32>
  %i13 = arith.constant 13 : index
  tile.store %cbrt -> %Y[%i13, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %floor = math.floor %x : tensor<8x64xf32>
  %i14 = arith.constant 14 : index
  tile.store %floor -> %Y[%i14, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %ceil = math.ceil %x : tensor<8x64xf32>
  %i15 = arith.constant 15 : index
  tile.store %ceil -> %Y[%i15, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %round = math.round %x : tensor<8x64xf32>
  %i16 = arith.constant 16 : index
  tile.store %round -> %Y[%i16, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %roundeven = math.roundeven %x : tensor<8x64xf32>
  %i17 = arith.constant 17 : index
  tile.store %roundeven -> %Y[%i17, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %trunc = math.trunc %x : tensor<8x64xf32>
  %i18 = arith.constant 18 : index
  tile.store %trunc -> %Y[%i18, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %absf = math.absf %x : tensor<8x64xf32>
  %i19 = arith.constant 19 : index
  tile.store %absf -> %Y[%i19, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %asin = math.asin %t : tensor<8x64xf32>
  %i20 = arith.constant 20 : index
  tile.store %asin -> %Y[%i20, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %acos = math.acos %t : tensor<8x64xf32>
  %i21 = arith.constant 21 : index
  tile.store %acos -> %Y[%i21, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %atanh = math.atanh %t : tensor<8x64xf32>
  %i22 = arith.constant 22 : index
  tile.store %atanh -> %Y[%i22, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %log = math.log %p : tensor<8x64xf32>
  %i23 = arith.constant 23 : index
  tile.store %log -> %Y[%i23, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %log2 = math.log2 %p : tensor<8x64xf32>
  %i24 = arith.constant 24 : index
  tile.store %log2 -> %Y[%i24, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %log10 = math.log10 %p : tensor<8x64xf32>
  %i25 = arith.constant 25 : index
  tile.store %log10 -> %Y[%i25, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %log1p = math.log1p %p : tensor<8x64xf32>
  %i26 = arith.constant 26 : index
  tile.store %log1p -> %Y[%i26, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %sqrt = math.sqrt %p : tensor<8x64xf32>
  %i27 = arith.constant 27 : index
  tile.store %sqrt -> %Y[%i27, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %rsqrt = math.rsqrt %p : tensor<8x64xf32>
  %i28 = arith.constant 28 : index
  tile.store %rsqrt -> %Y[%i28, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %acosh = math.acosh %q : tensor<8x64xf32>
  %i29 = arith.constant 29 : index
  tile.store %acosh -> %Y[%i29, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %atan2 = math.atan2 %x, %t : tensor<8x64xf32>
  %i30 = arith.constant 30 : index
  tile.store %atan2 -> %Y[%i30, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %powf = math.powf %p, %t : tensor<8x64xf32>
  %i31 = arith.constant 31 : index
  tile.store %powf -> %Y[%i31, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  %copysign = math.copysign %x, %t : tensor<8x64xf32>
  %i32 = arith.constant 32 : index
  tile.store %copysign -> %Y[%i32, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  tile.return
}

// bf16 tiles, computed in f32 and rounded back: Y = tanh(X) * rsqrt(|X| + 1)
// (a GELU-like and a norm-like step).
tile.kernel @math_bf16(%X: !tile.view<?x?xbf16>, %Y: !tile.view<?x?xbf16>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c16 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xbf16> -> tensor<16x64xbf16>
  %one = arith.constant dense<1.0> : tensor<16x64xbf16>
  %t = math.tanh %x : tensor<16x64xbf16>
  %ax = math.absf %x : tensor<16x64xbf16>
  %p = arith.addf %ax, %one : tensor<16x64xbf16>
  %r = math.rsqrt %p : tensor<16x64xbf16>
  %y = arith.mulf %t, %r : tensor<16x64xbf16>
  tile.store %y -> %Y[%r0, %c0] : tensor<16x64xbf16> -> !tile.view<?x?xbf16>
  tile.return
}

// min and max with NaN as arith states them: a = x where x > 0, else NaN;
// Y[0..4) = minimumf(a, -x), maximumf(a, -x) (NaN wins), minnumf(a, -x),
// maxnumf(a, -x) (the number wins).
tile.kernel @math_minmax(%X: !tile.view<?x?xf32>, %Y: !tile.view<?x?x?xf32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xf32> -> tensor<8x64xf32>
  %zero = arith.constant dense<0.0> : tensor<8x64xf32>
  %nan = arith.constant dense<0x7FC00000> : tensor<8x64xf32>
  %positive = arith.cmpf ogt, %x, %zero : tensor<8x64xf32>
  %a = tile.select %positive, %x, %nan : tensor<8x64xi1>, tensor<8x64xf32>
  %b = arith.negf %x : tensor<8x64xf32>
  %min = arith.minimumf %a, %b : tensor<8x64xf32>
  %max = arith.maximumf %a, %b : tensor<8x64xf32>
  %minnum = arith.minnumf %a, %b : tensor<8x64xf32>
  %maxnum = arith.maxnumf %a, %b : tensor<8x64xf32>
  tile.store %min -> %Y[%c0, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  tile.store %max -> %Y[%c1, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  tile.store %minnum -> %Y[%c2, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  tile.store %maxnum -> %Y[%c3, %r0, %c0] : tensor<8x64xf32> -> !tile.view<?x?x?xf32>
  tile.return
}

// Integer math: Y[0..4) = absi, ctlz, cttz and ctpop of X (LLVM's
// intrinsics on every target).
tile.kernel @math_bits(%X: !tile.view<?x?xi32>, %Y: !tile.view<?x?x?xi32>)
    threads(64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %pid = tile.program_id x
  %r0 = arith.muli %pid, %c8 : index
  %x = tile.load %X[%r0, %c0] : !tile.view<?x?xi32> -> tensor<8x64xi32>
  %abs = math.absi %x : tensor<8x64xi32>
  %lz = math.ctlz %x : tensor<8x64xi32>
  %tz = math.cttz %x : tensor<8x64xi32>
  %pop = math.ctpop %x : tensor<8x64xi32>
  tile.store %abs -> %Y[%c0, %r0, %c0] : tensor<8x64xi32> -> !tile.view<?x?x?xi32>
  tile.store %lz -> %Y[%c1, %r0, %c0] : tensor<8x64xi32> -> !tile.view<?x?x?xi32>
  tile.store %tz -> %Y[%c2, %r0, %c0] : tensor<8x64xi32> -> !tile.view<?x?x?xi32>
  tile.store %pop -> %Y[%c3, %r0, %c0] : tensor<8x64xi32> -> !tile.view<?x?x?xi32>
  tile.return
}
