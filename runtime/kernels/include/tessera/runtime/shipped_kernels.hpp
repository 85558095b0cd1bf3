//===- shipped_kernels.hpp - Tessera::kernels for the library ops -*- C++
//-*-===//
//
// The shipped kernels' embedded bundles, added to a KernelLibrary with the
// image for a given device: the host, the emulator, CUDA GPUs (sm_80 and
// sm_90a images: an H100 or H200 takes the sm_90a cubin; the driver
// compiles the PTX for GPUs without a cubin of their own) and HIP GPUs
// (gfx942 code objects, in bundles of their own: `_amd`).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_SHIPPED_KERNELS_HPP
#define TESSERA_RUNTIME_SHIPPED_KERNELS_HPP

#include "tessera/runtime/library.hpp"
// Generated: tessera_shipped_kernels, tessera_shipped_moe_kernels,
// tessera_shipped_gemm_{int8_pc,fp8_b128,int4_g64_zp},
// tessera_shipped_moe_{int8_pc,fp8_b128}, and each one's `_amd` namesake.
#include "tessera_gemm_fp8_b128_kernels.h"
#include "tessera_gemm_fp8_b128_kernels_amd.h"
#include "tessera_gemm_int4_g64_zp_kernels.h"
#include "tessera_gemm_int4_g64_zp_kernels_amd.h"
#include "tessera_gemm_int8_pc_kernels.h"
#include "tessera_gemm_int8_pc_kernels_amd.h"
#include "tessera_kernels.h"
#include "tessera_kernels_amd.h"
#include "tessera_moe_fp8_b128_kernels.h"
#include "tessera_moe_fp8_b128_kernels_amd.h"
#include "tessera_moe_int8_pc_kernels.h"
#include "tessera_moe_int8_pc_kernels_amd.h"
#include "tessera_moe_kernels.h"
#include "tessera_moe_kernels_amd.h"

namespace tessera {

/// Adds the shipped bundles that have an image for `device` to `library`;
/// returns how many did (0: none, and error() says why the last did not).
/// A library op whose kernel is missing reports it when called.
inline int addShippedKernels(KernelLibrary &library, const Device &device) {
  int added = 0;
  using Loader = Module (*)(const Device &);
  for (Loader load :
       {&tessera_shipped_kernels::load, &tessera_shipped_kernels_amd::load,
        &tessera_shipped_moe_kernels::load,
        &tessera_shipped_moe_kernels_amd::load,
        &tessera_shipped_gemm_int8_pc::load,
        &tessera_shipped_gemm_int8_pc_amd::load,
        &tessera_shipped_gemm_fp8_b128::load,
        &tessera_shipped_gemm_fp8_b128_amd::load,
        &tessera_shipped_gemm_int4_g64_zp::load,
        &tessera_shipped_gemm_int4_g64_zp_amd::load,
        &tessera_shipped_moe_int8_pc::load,
        &tessera_shipped_moe_int8_pc_amd::load,
        &tessera_shipped_moe_fp8_b128::load,
        &tessera_shipped_moe_fp8_b128_amd::load})
    if (Module module = load(device)) {
      library.add(std::move(module));
      ++added;
    }
  return added;
}

} // namespace tessera

#endif // TESSERA_RUNTIME_SHIPPED_KERNELS_HPP
