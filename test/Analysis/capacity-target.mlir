// Without a chip option, tag-check holds kernels to the module's target
// (tile.target, as tessera-compile --target or --tile-set-target sets it):
// 96 KiB fits sm_80's 163 KiB but not gfx942's 64 KiB of LDS. The pipelining
// model follows the module's target the same way.
// RUN: tessera-opt %s --tile-set-target=chip=sm_80 --tag-check -o /dev/null
// RUN: not tessera-opt %s --tile-set-target=chip=gfx942 --tag-check -o /dev/null 2>&1 | FileCheck %s
// RUN: tessera-opt %s --tile-set-target=chip=gfx942 --tag-check=chip=sm_90a -o /dev/null
// CHECK: error: uses 98304 bytes of shared memory but the target has 65536

// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline-latencies | FileCheck %s --check-prefix=GFX
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline-latencies=chip=gfx942 \
// RUN:   | FileCheck %s --check-prefix=GFX
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-pipeline-latencies \
// RUN:   | FileCheck %s --check-prefix=SM90
// gfx942's model: 128x64 bf16 over 9 bytes per cycle, plus 700 cycles of
// memory latency; sm_90a's: 14 bytes per cycle and 500.
// GFX: tile.copy {{.*}} {tile.latency = 2521 : i64}
// SM90: tile.copy {{.*}} {tile.latency = 1671 : i64}

tile.kernel @k() threads(256) {
  %a = tile.alloc_shared : !tile.shared<128x64xbf16, stages = 4>
  %b = tile.alloc_shared : !tile.shared<64x128xf32>
  tile.return
}
