// RUN: tessera-opt %s --tag-check="chip=gfx942" --verify-diagnostics
// RUN: tessera-opt %s --tag-check="chip=sm_90a" -o /dev/null
// RUN: not tessera-opt %s --tag-check="max-shared-bytes=65537" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// LIMIT: uses 98304 bytes of shared memory but the target has 65537
// Shared memory must fit the target: 96 KiB fits sm_90a but not gfx942's
// 64 KiB of LDS.

// expected-error @below {{uses 98304 bytes of shared memory but the target has 65536; use smaller tiles or fewer stages}}
tile.kernel @too_big_for_lds() threads(256) {
  // expected-note @below {{65536 bytes allocated here}}
  %a = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 4>
  // expected-note @below {{32768 bytes allocated here}}
  %b = tile.alloc_shared : !tile.shared<64x128xf32>
  tile.return
}
