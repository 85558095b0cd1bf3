//===- DeviceLibraries.h - The vendors' math libraries ----------*- C++ -*-===//
//
// Private to lib/Target: where CUDA's libdevice and ROCm's device libraries
// (ocml) are, and the check that a module calling them can be linked.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_TARGET_DEVICELIBRARIES_H
#define TESSERA_LIB_TARGET_DEVICELIBRARIES_H

#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace tessera {
/// The CUDA toolkit whose nvvm/libdevice/libdevice.10.bc the NVIDIA
/// serializer links: $CUDA_HOME, $CUDA_PATH or $CUDA_ROOT where one is set,
/// else the toolkit found when Tessera was configured (empty if none).
std::string cudaToolkitPath();
/// The directory whose amdgcn/bitcode holds ROCm's device libraries:
/// $ROCM_PATH where set, else the one found when Tessera was configured
/// (Debian's rocm-device-libs, /opt/rocm; empty if none).
std::string rocmDeviceLibsPath();

/// Fails, naming the first call's location, when a GPU module of `module`
/// calls a function of the vendor's math library (__nv_* for NVIDIA,
/// __ocml_* for AMD) and the library is not where the serializer will
/// look for it.
mlir::LogicalResult checkDeviceLibrary(mlir::ModuleOp module, bool amd);

/// For AMD: defines ocml's __oclc_ISA_version for `chip` in each GPU module
/// that calls ocml, where the device libraries have no
/// oclc_isa_version_<chip> file (older releases lack the newer chips).
void defineIsaVersion(mlir::ModuleOp module, llvm::StringRef chip);
} // namespace tessera

#endif // TESSERA_LIB_TARGET_DEVICELIBRARIES_H
