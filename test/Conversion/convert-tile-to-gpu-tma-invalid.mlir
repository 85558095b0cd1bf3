// RUN: tessera-opt %s --split-input-file --convert-tile-to-gpu --verify-diagnostics
// Buffers marked tile.tma (TMA-filled, wgmma-read) that the sm_90a lowering
// cannot place, fill or read.

module attributes {tile.target = "sm_80"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
    // expected-error @below {{'tile.copy' op into a tile.tma buffer needs sm_90a, not sm_80}}
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?x?x?xbf16>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
    // expected-error @below {{'tile.copy' op into a tile.tma buffer must copy from a 2-D or 3-D kernel argument}}
    tile.copy %A[%c0, %c0, %c0, %c0] -> %s : !tile.view<?x?x?x?xbf16> -> !tile.shared<64x64xbf16>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>) threads(128) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'tile.alloc_shared' op marked tile.tma must have rows of 32, 64 or a multiple of 128 bytes, a multiple of 8 and at most 256 rows}}
    %s = tile.alloc_shared {tile.tma} : !tile.shared<64x96xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x96xbf16>
    tile.return
  }
}

// -----

module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>) threads(128) {
    %c0 = arith.constant 0 : index
    // expected-error @below {{'tile.alloc_shared' op needs 33 mbarriers; at most 32 TMA buffer slots are supported}}
    %s = tile.alloc_shared {tile.tma} : !tile.shared<8x64xbf16, stages = 33>
    tile.copy %A[%c0, %c0] -> %s[%c0] : !tile.view<?x?xbf16> -> !tile.shared<8x64xbf16, stages = 33>
    tile.return
  }
}

// -----

#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#coalesced = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16, #coalesced>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @below {{'tile.mma' op of kind wgmma needs bf16, f16 or f8E4M3FN operands, B loaded from a tile.tma buffer}}
    %d = tile.mma %a, %a, %z kind wgmma : tensor<64x64xbf16, #coalesced>, tensor<64x64xbf16, #coalesced> -> tensor<64x64xf32, #acc>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32, #acc> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

// An A in registers (wgmma's register operand) must be in its fragments.
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#coalesced = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %B: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %a = tile.load %A[%c0, %c0] : !tile.view<?x?xbf16> -> tensor<64x64xbf16, #coalesced>
    %s = tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
    tile.copy %B[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    %b = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16, #coalesced>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error-re @below {{'tile.mma' op has an A operand in registers whose layout is not the wgmma register fragments' ({{.*}})}}
    %d = tile.mma %a, %b, %z kind wgmma : tensor<64x64xbf16, #coalesced>, tensor<64x64xbf16, #coalesced> -> tensor<64x64xf32, #acc>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32, #acc> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

#coalesced = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
#acc = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16, #coalesced>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @below {{'tile.mma' op has an accumulator layout that is not the wgmma fragments' ([64x64] register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]] lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]] warp = [[16, 0], [32, 0]])}}
    %d = tile.mma %a, %a, %z kind wgmma : tensor<64x64xbf16, #coalesced>, tensor<64x64xbf16, #coalesced> -> tensor<64x64xf32, #acc>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32, #acc> -> !tile.view<?x?xf32>
    tile.return
  }
}

// -----

#coalesced = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [16, 0], [32, 0]], lane = [[0, 8], [0, 16], [0, 32], [1, 0], [2, 0]], warp = [[4, 0], [8, 0]]>
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xbf16>) threads(128) {
    %c0 = arith.constant 0 : index
    %s = tile.alloc_shared {tile.tma} : !tile.shared<64x64xbf16>
    tile.copy %A[%c0, %c0] -> %s : !tile.view<?x?xbf16> -> !tile.shared<64x64xbf16>
    // expected-error @below {{'tile.load' op of a tile.tma buffer is used by 'tile.store'; only wgmma MMAs read such buffers}}
    %a = tile.load %s : !tile.shared<64x64xbf16> -> tensor<64x64xbf16, #coalesced>
    tile.store %a -> %A[%c0, %c0] : tensor<64x64xbf16, #coalesced> -> !tile.view<?x?xbf16>
    tile.return
  }
}

// -----

// 8-bit wgmma (m64nNk32) takes A from registers and B K-major only.
#acc = #tile.linear<register = [[0, 1], [8, 0], [0, 8], [0, 16], [0, 32]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[16, 0], [32, 0]]>
#coalesced = #tile.linear<register = [[0, 1], [0, 2], [0, 4], [0, 8], [32, 0]], lane = [[0, 16], [0, 32], [1, 0], [2, 0], [4, 0]], warp = [[8, 0], [16, 0]]>
module attributes {tile.target = "sm_90a"} {
  tile.kernel @k(%A: !tile.view<?x?xf8E4M3FN>, %B: !tile.view<?x?xf8E4M3FN>, %C: !tile.view<?x?xf32>) threads(128) {
    %c0 = arith.constant 0 : index
    %sa = tile.alloc_shared {tile.tma} : !tile.shared<64x64xf8E4M3FN>
    %sb = tile.alloc_shared {tile.tma} : !tile.shared<64x64xf8E4M3FN>
    tile.copy %A[%c0, %c0] -> %sa : !tile.view<?x?xf8E4M3FN> -> !tile.shared<64x64xf8E4M3FN>
    tile.copy %B[%c0, %c0] -> %sb : !tile.view<?x?xf8E4M3FN> -> !tile.shared<64x64xf8E4M3FN>
    %a = tile.load %sa : !tile.shared<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #coalesced>
    %b = tile.load %sb : !tile.shared<64x64xf8E4M3FN> -> tensor<64x64xf8E4M3FN, #coalesced>
    %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
    // expected-error @below {{'tile.mma' op of kind wgmma on f8E4M3FN operands needs A in registers and B stored [N, K] (transpose_b): 8-bit wgmma reads K-major B only}}
    %d = tile.mma %a, %b, %z kind wgmma transpose_b : tensor<64x64xf8E4M3FN, #coalesced>, tensor<64x64xf8E4M3FN, #coalesced> -> tensor<64x64xf32, #acc>
    tile.store %d -> %C[%c0, %c0] : tensor<64x64xf32, #acc> -> !tile.view<?x?xf32>
    tile.return
  }
}
