// fp8 e4m3 weights with fp8 activations: the activation tile is quantized
// per row in registers (|x| reduced over the thread's registers, then
// over the lanes of its row by shuffles), and the MMA multiplies the codes
// as bf16, which holds every e4m3 value exactly. The activations' values
// come from the quantized reals rounded to e4m3 precision (mantissa
// rounded to 3 bits: the mask 0xFFF00000; no code bits are made for
// them); the weights' codes are decoded from their bytes. sm_80 runs
// mma.sync m16n8k16 bf16, gfx942 v_mfma_f32_32x32x8_bf16.
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=sm_80 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=SM80
// RUN: tessera-opt %kernels/gemm/gemm_bf16.mlir \
// RUN:   "--tile-quantize=weights=fp8 activations=fp8" \
// RUN:   --tile-set-target=chip=gfx942 --tile-assign-layouts \
// RUN:   --convert-tile-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=GFX942

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
// GFX942: scf.for
// GFX942: gpu.shuffle  xor %{{.*}}, %c32_i32, %c64_i32 : f32
// GFX942: arith.extui %{{.*}} : vector<64xi8> to vector<64xi32>
// GFX942-COUNT-32: amdgpu.mfma 32x32x8 %{{.*}} * %{{.*}} + %{{.*}} blgp =  none : vector<4xbf16>, vector<4xbf16>, vector<16xf32>
// GFX942-NOT: amdgpu.mfma
