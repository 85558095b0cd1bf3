// fp8 e4m3 weights with fp8 activations: the activation tile is quantized
// per row in registers (|x| reduced over the thread's registers, then
// over the lanes of its row by shuffles), and the MMA multiplies the codes
// as bf16, which holds every e4m3 value exactly. The activations' values
// come from the quantized reals rounded to e4m3 precision (mantissa
// rounded to 3 bits: the mask 0xFFF00000; no code bits are made for
// them); the weights' codes are decoded from their bytes. sm_80 runs
// mma.sync m16n8k16 bf16, gfx90a v_mfma_f32_32x32x8_bf16. gfx942 has an
// fp8 MFMA (32x32x16) of FNUZ codes, each worth half the e4m3fn code of
// the same bits: the codes go to it as they are (but -0 made +0 and the
// NaNs FNUZ's NaN), and each accumulator block is scaled by 1/4 before
// and 4 after.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=SM80
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=gfx942 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=GFX942
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=gfx90a --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=GFX90A

// SM80-LABEL: gpu.func @gemm_bf16_fp8_b128_af8k64
// SM80-DAG: %[[MANTISSA:.*]] = arith.constant dense<-1048576> : vector<64xi32>
// SM80-DAG: %[[BIAS:.*]] = arith.constant dense<1006632960> : vector<128xi32>
// SM80: scf.for
// SM80: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// SM80: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// SM80: arith.divf %{{.*}}, %{{.*}} : vector<64xf32>
// SM80-NOT: arith.trunci %{{.*}} to vector<64xi8>
// SM80: arith.andi %{{.*}}, %[[MANTISSA]] : vector<64xi32>
// SM80: arith.bitcast %{{.*}} : vector<64xi16> to vector<64xbf16>
// SM80: arith.extui %{{.*}} : vector<128xi8> to vector<128xi32>
// SM80: arith.addi %{{.*}}, %[[BIAS]] : vector<128xi32>
// SM80: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>}

// GFX942-LABEL: gpu.func @gemm_bf16_fp8_b128_af8k64
// GFX942-DAG: %[[QUARTER:.*]] = arith.constant dense<2.500000e-01> : vector<16xf32>
// GFX942-DAG: %[[FOUR:.*]] = arith.constant dense<4.000000e+00> : vector<16xf32>
// GFX942-DAG: %[[NEGZERO:.*]] = arith.constant dense<-128> : vector<64xi8>
// GFX942: scf.for
// GFX942: gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// GFX942: arith.trunci %{{.*}} : vector<64xi32> to vector<64xi8>
// GFX942: arith.cmpi eq, %{{.*}}, %[[NEGZERO]] : vector<64xi8>
// GFX942: arith.bitcast %{{.*}} : vector<8xi8> to vector<8xf8E4M3FNUZ>
// GFX942: amdgpu.mfma 32x32x16 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<8xf8E4M3FNUZ>, vector<8xf8E4M3FNUZ>, vector<16xf32>
// GFX942: arith.mulf %{{.*}}, %[[FOUR]] : vector<16xf32>
// GFX942: arith.mulf %{{.*}}, %[[QUARTER]] : vector<16xf32>
// GFX942-COUNT-4: amdgpu.mfma 32x32x16
// GFX942-NOT: amdgpu.mfma 32x32x8

// GFX90A-LABEL: gpu.func @gemm_bf16_fp8_b128_af8k64
// GFX90A: scf.for
// GFX90A: gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// GFX90A: arith.extui %{{.*}} : vector<64xi8> to vector<64xi32>
// GFX90A-COUNT-32: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// GFX90A-NOT: amdgpu.mfma
