// The bf16 GEMM and attention on gfx942 (wave64). Copies into LDS are
// 16-byte raw buffer loads and LDS stores (no cp.async; commit groups and
// waits vanish), and the pipeline keeps one LDS buffer per operand: the next
// K tiles are staged in registers while the MFMAs run. Each 16-register accumulator block takes one amdgpu.mfma 32x32x8 per
// K step of 8. Attention's accumulators are laid out transposed (lanes along
// rows) so that its row reductions stay within a wave and P is the next
// MMA's A operand without a conversion.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline --tile-assign-layouts --convert-tile-to-gpu \
// RUN:   --canonicalize --cse | FileCheck %s
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline --tile-assign-layouts | FileCheck %s --check-prefix=LAYOUT
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir --tile-set-target=chip=gfx942 \
// RUN:   --tile-pipeline --tile-assign-layouts --tile-layout-report -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REPORT
// RUN: tessera-opt %kernels/attention/flash_attention_fwd.mlir \
// RUN:   --tile-set-target=chip=gfx942 --tile-pipeline --tile-assign-layouts \
// RUN:   | FileCheck %s --check-prefix=ATTN

// CHECK-LABEL: gpu.func @gemm_bf16
// CHECK-NOT: nvgpu.
// CHECK-NOT: nvvm.
// CHECK: memref.view {{.*}} to memref<128x64xbf16, #gpu.address_space<workgroup>>
// A buffer resource per copy: based at the tile's origin, num_records the
// bytes from there to the view's last element ((rows left - 1) * pitch +
// columns left, at most 2^31), none when the origin is past the view.
// CHECK: %[[BASE:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// CHECK: %[[LEFT:.*]] = arith.subi %[[SIZES:.*]]#0, %{{.*}} : index
// CHECK: %[[LAST:.*]] = arith.subi %[[LEFT]], %c1 : index
// CHECK: %[[ROWS:.*]] = arith.muli %[[LAST]], %[[PITCH:.*]]#0 : index
// CHECK: %[[ELEMENTS:.*]] = arith.addi %[[ROWS]], %[[SIZES]]#1 : index
// CHECK: %[[BYTES:.*]] = arith.muli %[[ELEMENTS]], %c2 : index
// CHECK: %[[EXTENT:.*]] = arith.minsi %[[BYTES]], %c2147483648 : index
// CHECK: %[[RECORDS:.*]] = arith.select %{{.*}}, %[[EXTENT]], %c0 : index
// CHECK: %[[N:.*]] = arith.index_cast %[[RECORDS]] : index to i64
// CHECK: %[[RSRC:.*]] = rocdl.make.buffer.rsrc %[[BASE]], %c0_i16, %[[N]], %c159744_i32 : !llvm.ptr to <8>
// Whole chunks of 16-byte aligned rows are one buffer_load_dwordx4 (from
// offset 2^31, out of range, when none of the chunk is inside the view) if
// the tile's 128 rows span at most 2^31 bytes (2^30 bf16 elements); the
// rest load element by element.
// CHECK: %[[SPAN:.*]] = arith.muli %[[PITCH]]#0, %c127 : index
// CHECK: %[[SPAN2:.*]] = arith.addi %[[SPAN]], %c64 : index
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %[[SPAN2]], %c1073741824 : index
// CHECK: %[[DIRECT:.*]] = arith.andi %[[FITS]], %{{.*}} : i1
// CHECK: %[[NONE:.*]] = arith.cmpi eq, %[[COUNT:.*]], %c0 : index
// CHECK: %[[ALL:.*]] = arith.cmpi eq, %[[COUNT]], %c8 : index
// CHECK: %[[EITHER:.*]] = arith.ori %[[NONE]], %[[ALL]] : i1
// CHECK: %[[WHOLE:.*]] = arith.andi %[[DIRECT]], %[[EITHER]] : i1
// CHECK: scf.if %[[WHOLE]] {
// CHECK: %[[AT:.*]] = arith.select %[[NONE]], %c-2147483648_i32, %{{.*}} : i32
// CHECK: %[[WORDS:.*]] = rocdl.raw.ptr.buffer.load %[[RSRC]], %[[AT]], %c0_i32, %c0_i32 : vector<4xi32>
// CHECK: %[[CHUNK:.*]] = vector.bitcast %[[WORDS]] : vector<4xi32> to vector<8xbf16>
// CHECK: vector.store %[[CHUNK]], %{{.*}} {alignment = 16 : i64} : memref<128x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: } else {
// CHECK: memref.load %{{.*}} : memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: scf.for
// The next K tiles load into registers first, chunk by chunk as the copy
// does (a buffer resource per tile, zeros out of range), and stay there
// until the body's last barrier.
// CHECK: %[[NEXT:.*]] = rocdl.make.buffer.rsrc
// CHECK: %[[STAGED:.*]] = scf.if %{{.*}} -> (vector<8xbf16>) {
// CHECK: %[[NWORDS:.*]] = rocdl.raw.ptr.buffer.load %[[NEXT]], %{{.*}}, %c0_i32, %c0_i32 : vector<4xi32>
// CHECK: vector.bitcast %[[NWORDS]] : vector<4xi32> to vector<8xbf16>
// CHECK: } else {
// CHECK: memref.load %{{.*}} : memref<?x?xbf16, strided<[?, 1], offset: ?>>
// CHECK: gpu.barrier
// CHECK: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp = none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// CHECK: gpu.barrier
// CHECK-NEXT: vector.store %[[STAGED]], %{{.*}} {alignment = 16 : i64} : memref<128x64xbf16, #gpu.address_space<workgroup>>, vector<8xbf16>
// CHECK: scf.yield
// The epilogue: each element a buffer store, at offset 2^31 (dropped) when
// it lies outside C or another thread stores it.
// CHECK: %[[C:.*]] = rocdl.make.buffer.rsrc
// CHECK: %[[AT:.*]] = arith.select %{{.*}}, %{{.*}}, %c-2147483648_i32 : i32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : bf16 to i16
// CHECK: rocdl.raw.ptr.buffer.store %[[BITS]], %[[C]], %[[AT]], %c0_i32, %c0_i32 : i16
// CHECK-NOT: nvvm.

// The MFMA atoms tiled over a 2x2 grid of waves, each 64x64 of the
// accumulator (two 32x32 blocks each way).
// LAYOUT: tile.mma {{.*}} -> tensor<128x128xf32, #tile.linear<register = {{\[}}[1, 0], [2, 0], [8, 0], [16, 0], [0, 32], [32, 0]], lane = {{\[}}[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [4, 0]], warp = {{\[}}[0, 64], [64, 0]]>>

// ATTN: tile.mma {{.*}} transpose_b : {{.*}} -> tensor<128x64xf32, #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], warp = {{\[}}[32, 0], [64, 0]]>>
// ATTN: tile.mma %{{.*}}, %{{.*}}, %{{.*}} : tensor<128x64xbf16, #tile.linear<register = {{\[}}[0, 1], [0, 2], [0, 8], [0, 16], [0, 32]], lane = {{\[}}[1, 0], [2, 0], [4, 0], [8, 0], [16, 0], [0, 4]], warp = {{\[}}[32, 0], [64, 0]]>>

// A's four K elements per lane are one 8-byte LDS load; B's are a column
// (element by element). The report claims no bank-conflict degree on AMD.
// REPORT: remark: shared %{{.*}}: swizzle vec 8, per_phase 1, max_phase 8; written by copies with 16-byte stores; written by %{{.*}} with 16-byte vector stores; read by %{{.*}} with 8-byte vector loads; LDS bank conflicts are not modelled for gfx942 yet
// REPORT: remark: shared %{{.*}}: swizzle vec 8, per_phase 1, max_phase 8; written by copies with 16-byte stores; written by %{{.*}} with 16-byte vector stores; read by %{{.*}} element by element; LDS bank conflicts are not modelled for gfx942 yet
