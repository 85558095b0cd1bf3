// RUN: tessera-opt %s --split-input-file --tile-assign-layouts --verify-diagnostics
// RUN: not tessera-opt %s --tile-set-target=chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP

// CHIP: error: unknown chip 'sm_75'; known: host, sm_80, sm_90a, gfx90a, gfx942

// expected-error @below {{tile-assign-layouts needs a GPU target: set the module's tile.target}}
module {
  tile.kernel @k() threads(32) {
    tile.return
  }
}

// -----

// An MMA smaller than one 16x16 MFMA block (16x16 ones take the tiles too
// small for 32x32 blocks).
module attributes {tile.target = "gfx942"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(64) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<8x16xbf16>
    %b = tile.load %B[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<16x16xbf16>
    %z = arith.constant dense<0.0> : tensor<8x16xf32>
    // expected-error @below {{'tile.mma' op cannot be distributed over v_mfma f32 32x32x8: a 32x32x8 MFMA needs M >= 32, N >= 32 and K >= 8; 16x16x16: a 16x16x16 MFMA needs M >= 16, N >= 16 and K >= 16}}
    %d = tile.mma %a, %b, %z : tensor<8x16xbf16>, tensor<16x16xbf16> -> tensor<8x16xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<8x16xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'tile.load' op makes a tile whose sizes are not powers of two, which the sm_80 backend does not lay out yet}}
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<8x6xf32>
    tile.return
  }
}

// -----

// Codes unpacked in a permuted order are not a split of one layout.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%W: !tile.view<?x?x2xi4>) threads(32) {
    %c0 = arith.constant 0 : index
    %p = tile.load %W[%c0, %c0, %c0] : !tile.view<?x?x2xi4> -> tensor<16x8x2xi4>
    // expected-error @below {{'tile.unpack' op with a permuted order is not supported by the sm_80 backend yet}}
    %u = tile.unpack %p dim 1 order [1, 0] : tensor<16x8x2xi4> -> tensor<16x16xi4>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%X: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    // expected-error @below {{'tile.quant' op to 'i4' is not supported by the sm_80 backend yet (i8 and f8E4M3FN are)}}
    %q, %s = tile.quant %x group [1, 16] : tensor<16x16xf32> -> tensor<16x16xi4>, tensor<16x1xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "gfx942"} {
  tile.kernel @k(%X: !tile.view<?x?xf32>) threads(64) {
    %c0 = arith.constant 0 : index
    %x = tile.load %X[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    // expected-error @below {{'tile.quant' op to 'i4' is not supported by the gfx942 backend yet (i8 and f8E4M3FN are)}}
    %q, %s = tile.quant %x group [1, 16] : tensor<16x16xf32> -> tensor<16x16xi4>, tensor<16x1xf32>
    tile.return
  }
}

// -----

// gfx942's int8 MFMAs are 32x32x16 and 16x16x32: a K of 8 is less than
// one step of either (gfx90a's 32x32x8i8 takes it).
module attributes {tile.target = "gfx942"} {
  tile.kernel @k(%A: !tile.view<?x?xi8>, %B: !tile.view<?x?xi8>, %C: !tile.view<?x?xi32>) threads(64) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xi8> -> tensor<32x8xi8>
    %b = tile.load %B[%c0, %c0] : !tile.view<?x?xi8> -> tensor<8x32xi8>
    %z = arith.constant dense<0> : tensor<32x32xi32>
    // expected-error @below {{'tile.mma' op cannot be distributed over v_mfma i32 32x32x16: a 32x32x16 MFMA needs M >= 32, N >= 32 and K >= 16; 16x16x32: a 16x16x32 MFMA needs M >= 16, N >= 16 and K >= 32}}
    %d = tile.mma %a, %b, %z : tensor<32x8xi8>, tensor<8x32xi8> -> tensor<32x32xi32>
    tile.store %d -> %C[%c0, %c0] : tensor<32x32xi32> -> !tile.view<?x?xi32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%A: !tile.view<?x?xf32>, %C: !tile.view<?x?xf32>) threads(32) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf32> -> tensor<16x16xf32>
    %z = arith.constant dense<0.0> : tensor<16x16xf32>
    // expected-error @below {{'tile.mma' op on 'f32' operands is not supported by the sm_80 backend yet (bf16 and f16 are, i8 with i32 accumulators and f8E4M3FN with f32 ones)}}
    %d = tile.mma %a, %a, %z : tensor<16x16xf32>, tensor<16x16xf32> -> tensor<16x16xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<16x16xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// wgmma is an sm_90a instruction.
module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op of kind wgmma needs sm_90a, not sm_80}}
    %d = tile.mma %a, %a, %z kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// A pinned wgmma whose operands are not in TMA-filled shared buffers.
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: an operand is not a tile.load from shared memory used only by this MMA}}
    %d = tile.mma %a, %a, %z kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %b = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: a transposed A operand is not supported yet}}
    %d = tile.mma %a, %b, %z kind wgmma transpose_a : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x32xbf16>
    %t = tile.alloc_shared : !tile.shared<32x64xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x32xbf16>
    tile.copy %A[%c0, %c0] -> %t : !tile.view<?x?xbf16> -> !tile.shared<32x64xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x32xbf16> -> tensor<64x32xbf16>
    %b = tile.load %t : !tile.shared<32x64xbf16> -> tensor<32x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: wgmma from swizzled tiles needs K a multiple of 64, not 32}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x32xbf16>, tensor<32x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x64xbf16>
    %t = tile.alloc_shared : !tile.shared<64x32xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %t : !tile.view<?x?xbf16> -> !tile.shared<64x32xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %b = tile.load %t : !tile.shared<64x32xbf16> -> tensor<64x32xbf16>
    %z = arith.constant dense<0.0> : tensor<64x32xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: wgmma from swizzled tiles needs 64 <= N <= 256, not 32}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xbf16>, tensor<64x32xbf16> -> tensor<64x32xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x32xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// Each reason wgmma cannot be used, when kind wgmma pins it.
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %b = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: an operand is not loaded from a shared buffer}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xf16>, %C: !tile.view<?x?xf16>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x64xf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xf16> -> !tile.shared<64x64xf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x64xf16> -> tensor<64x64xf16>
    %b = tile.load %s : !tile.shared<64x64xf16> -> tensor<64x64xf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf16>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: the accumulator is not f32}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf16>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf16> -> !tile.view<?x?xf16>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<512x64xbf16>
    %t = tile.alloc_shared : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<512x64xbf16>
    tile.copy %A[%c0, %c0] -> %t : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<512x64xbf16> -> tensor<512x64xbf16>
    %b = tile.load %t : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<512x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: an operand tile has more than 256 rows (a TMA box's limit)}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<512x64xbf16>, tensor<64x64xbf16> -> tensor<512x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<512x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %s pad(1.0 : bf16) : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %b = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: a copy into an operand's buffer pads with non-zeros}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?x?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0, %c0, %c0] -> %s : !tile.view<?x?x?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %b = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: a copy into an operand's buffer is not from a 2-D or 3-D kernel argument}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// A buffer that a second MMA reads too.
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.barrier
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %b = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %a2 = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %b2 = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: an operand's shared buffer is used other than by copies into it and loads for this MMA}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    %e = tile.mma %a2, %b2, %d : tensor<64x64xbf16>, tensor<64x64xbf16> -> tensor<64x64xf32>
    tile.store %e -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// 8-bit wgmma (m64nNk32) reads B K-major only: B must be stored [N, K].
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xf8E4M3FN>, %B: !tile.view<?x?xf8E4M3FN>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %sb = tile.alloc_shared : !tile.shared<64x64xf8E4M3FN>
    tile.copy %B[%c0, %c0] -> %sb : !tile.view<?x?xf8E4M3FN> -> !tile.shared<64x64xf8E4M3FN>
    tile.barrier
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = tile.load %sb : !tile.shared<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: 8-bit wgmma reads B K-major only, and B is stored [K, N] (no transpose_b)}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// 8-bit wgmma reads A from registers only so far.
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xf8E4M3FN>, %B: !tile.view<?x?xf8E4M3FN>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %sa = tile.alloc_shared : !tile.shared<64x64xf8E4M3FN>
    tile.copy %A[%c0, %c0] -> %sa : !tile.view<?x?xf8E4M3FN> -> !tile.shared<64x64xf8E4M3FN>
    %sb = tile.alloc_shared : !tile.shared<64x64xf8E4M3FN>
    tile.copy %B[%c0, %c0] -> %sb : !tile.view<?x?xf8E4M3FN> -> !tile.shared<64x64xf8E4M3FN>
    tile.barrier
    %a = tile.load %sa : !tile.shared<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %b = tile.load %sb : !tile.shared<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN>
    %z = arith.constant dense<0.0> : tensor<64x64xf32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: 8-bit wgmma with A read from shared memory is not supported yet}}
    %d = tile.mma %a, %b, %z kind wgmma transpose_b : tensor<64x64xf8E4M3FN>, tensor<64x64xf8E4M3FN> -> tensor<64x64xf32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// int8 MMAs stay mma.sync m16n8k32 (integer wgmma is not built).
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xi8>, %B: !tile.view<?x?xi8>, %C: !tile.view<?x?xi32>) threads(128) {
    %c0 = arith.constant 0 : index
    %sb = tile.alloc_shared : !tile.shared<64x64xi8>
    tile.copy %B[%c0, %c0] -> %sb : !tile.view<?x?xi8> -> !tile.shared<64x64xi8>
    tile.barrier
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xi8> -> tensor<64x64xi8>
    %b = tile.load %sb : !tile.shared<64x64xi8> -> tensor<64x64xi8>
    %z = arith.constant dense<0> : tensor<64x64xi32>
    // expected-error @below {{'tile.mma' op cannot run as wgmma: wgmma on 8-bit integers is not supported yet}}
    %d = tile.mma %a, %b, %z kind wgmma transpose_b : tensor<64x64xi8>, tensor<64x64xi8> -> tensor<64x64xi32>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xi32> -> !tile.view<?x?xi32>
    tile.return
  }
}
