// RUN: tessera-opt %s --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file | tessera-opt --split-input-file | FileCheck %s
// RUN: tessera-opt %s --split-input-file --mlir-print-op-generic | tessera-opt --split-input-file | FileCheck %s

// CHECK-LABEL: tile.kernel @bind
tile.kernel @bind(%A: !tile.view<?x?xbf16>, %W: !tile.view<?x?xi4>, %m0: index, %k: index) threads(32) {
  // CHECK: tag.bind %{{.*}} as "A" (m, k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %A as "A"(m, k) = (i, j) -> (i, j) : !tile.view<?x?xbf16>
  // CHECK: tag.bind %{{.*}} as "W" (k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
  tag.bind %W as "W"(k, n, g) = (d0, d1) -> (d0, d1, d0 floordiv 128) : !tile.view<?x?xi4>
  // A ring's slot is the first element index; captures become symbols.
  // CHECK: %[[R:.*]] = tile.alloc_shared
  // CHECK: tag.bind %[[R]] as "A" (m, k) = (d0, d1, d2)[s0, s1] -> (d1 + s0, d2 + s1 + d0 * 64) captures(%{{.*}}, %{{.*}}) : !tile.shared<128x64xbf16, stages = 3>
  %r = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 3>
  tag.bind %r as "A"(m, k) = (s, i, j)[a, b] -> (i + a, j + b + s * 64) captures(%m0, %k) : !tile.shared<128x64xbf16, stages = 3>
  // Component names that are not bare words are quoted.
  // CHECK: tag.bind %{{.*}} as "B" ("row idx", k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  tag.bind %A as "B"("row idx", k) = (d0, d1) -> (d0, d1) : !tile.view<?x?xbf16>
  // CHECK: tag.reset %[[R]] : !tile.shared<128x64xbf16, stages = 3>
  tag.reset %r : !tile.shared<128x64xbf16, stages = 3>
  tile.return
}

// -----

// CHECK-LABEL: tile.kernel @assertions
tile.kernel @assertions(%C: !tile.view<?x?xbf16>, %m0: index, %n0: index, %K: index) threads(32) {
  %a = arith.constant dense<1.0> : tensor<128x64xbf16>
  %b = arith.constant dense<1.0> : tensor<64x128xbf16>
  %out = arith.constant dense<1.0> : tensor<128x128xbf16>
  // CHECK: tag.assert_contract %{{.*}}, %{{.*}} : tensor<128x64xbf16>, tensor<64x128xbf16>
  tag.assert_contract %a, %b : tensor<128x64xbf16>, tensor<64x128xbf16>
  // CHECK: tag.assert_contract %{{.*}}, %{{.*}} over "d" transpose_a transpose_b : tensor<128x64xbf16>, tensor<64x128xbf16>
  tag.assert_contract %a, %b over "d" transpose_a transpose_b : tensor<128x64xbf16>, tensor<64x128xbf16>
  // CHECK: tag.assert_eq %{{.*}}[(d0, d1, d2) -> (d0, d2)] (k), %{{.*}}[(d0, d1, d2) -> (d2, d1)] (k) : tensor<128x64xbf16>, tensor<64x128xbf16>
  tag.assert_eq %a[(i, j, kk) -> (i, kk)](k), %b[(i, j, kk) -> (kk, j)](k) : tensor<128x64xbf16>, tensor<64x128xbf16>
  // CHECK: tag.assert_eq %{{.*}}[(d0, d1)[s0, s1] -> (d0, d1)] (m, n), %{{.*}}[(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)] (m, n) captures(%{{.*}}, %{{.*}}) message "ownership" : tensor<128x128xbf16>, !tile.view<?x?xbf16>
  tag.assert_eq %out[(d0, d1)[s0, s1] -> (d0, d1)](m, n), %C[(d0, d1)[s0, s1] -> (d0 + s0, d1 + s1)](m, n) captures(%m0, %n0) message "ownership" : tensor<128x128xbf16>, !tile.view<?x?xbf16>
  %acc = arith.constant dense<1.0> : tensor<128x128xf32>
  %hi = arith.constant dense<7> : tensor<128x128xindex>
  %zero = arith.constant 0 : index
  // CHECK: tag.assert_complete %{{.*}} over "k" from %{{.*}} to %{{.*}} : tensor<128x128xf32>, index, index
  tag.assert_complete %acc over "k" from %zero to %K : tensor<128x128xf32>, index, index
  // CHECK: tag.assert_complete %{{.*}} over "kv" from %{{.*}} to %{{.*}}, "causal rows" : tensor<128x128xf32>, index, tensor<128x128xindex>
  tag.assert_complete %acc over "kv" from %zero to %hi, "causal rows" : tensor<128x128xf32>, index, tensor<128x128xindex>
  // Whole tags, names included, with an empty component list.
  // CHECK: tag.assert_eq %{{.*}}[(d0, d1) -> (d0, d1)] (), %{{.*}}[(d0, d1) -> (d0, d1)] () : tensor<128x64xbf16>, tensor<128x64xbf16>
  tag.assert_eq %a[(d0, d1) -> (d0, d1)](), %a[(d0, d1) -> (d0, d1)]() : tensor<128x64xbf16>, tensor<128x64xbf16>
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %r = arith.remui %K, %c64 : index
  %div = arith.cmpi eq, %r, %c0 : index
  // CHECK: tag.assume %{{.*}}, "K is a multiple of 64" : i1
  // CHECK: tag.assert %{{.*}} : i1
  tag.assume %div, "K is a multiple of 64" : i1
  tag.assert %div : i1
  // CHECK: %[[Q:.*]] = tag.coord %{{.*}}("q") : tensor<128x64xbf16> -> tensor<128x64xindex>
  // CHECK: tag.assert %{{.*}}, "mask coordinates" : tensor<128x64xi1>
  %q = tag.coord %a("q") : tensor<128x64xbf16> -> tensor<128x64xindex>
  %ok = arith.cmpi eq, %q, %q : tensor<128x64xindex>
  tag.assert %ok, "mask coordinates" : tensor<128x64xi1>
  tile.return
}
