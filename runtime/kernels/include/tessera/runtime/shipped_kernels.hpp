//===- shipped_kernels.hpp - Tessera::kernels for the library ops -*- C++
//-*-===//
//
// The shipped kernels' embedded bundles, added to a KernelLibrary with the
// image for a given device: the host, the emulator, CUDA GPUs (sm_80
// images; the driver compiles the PTX for newer GPUs) and HIP GPUs (gfx942
// code objects).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_SHIPPED_KERNELS_HPP
#define TESSERA_RUNTIME_SHIPPED_KERNELS_HPP

#include "tessera/runtime/library.hpp"
#include "tessera_kernels.h"     // generated: tessera_shipped_kernels
#include "tessera_moe_kernels.h" // generated: tessera_shipped_moe_kernels

namespace tessera {

/// Adds the shipped bundles that have an image for `device` to `library`;
/// returns how many did (0: none, and error() says why the last did not).
/// A library op whose kernel is missing reports it when called.
inline int addShippedKernels(KernelLibrary &library, const Device &device) {
  int added = 0;
  if (Module kernels = tessera_shipped_kernels::load(device)) {
    library.add(std::move(kernels));
    ++added;
  }
  if (Module moe = tessera_shipped_moe_kernels::load(device)) {
    library.add(std::move(moe));
    ++added;
  }
  return added;
}

} // namespace tessera

#endif // TESSERA_RUNTIME_SHIPPED_KERNELS_HPP
