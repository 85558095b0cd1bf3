//===- EmulatorTarget.h - GPU device code as a host image ------*- C++ -*-===//

#ifndef TESSERA_TARGET_EMULATORTARGET_H
#define TESSERA_TARGET_EMULATORTARGET_H

#include "tessera/Target/Bundle.h"
#include "tessera/Target/HostTarget.h"

#include "mlir/IR/Location.h"

#include <string>
#include <vector>

namespace tessera {

/// Makes the bytes of an `emu-<chip>` image from the optimized device LLVM
/// IR (bitcode) the GPU backend compiled: a host shared object with the
/// host entry ABI whose GPU intrinsics call the runtime's emulator. An
/// intrinsic the emulator does not implement, or inline assembly, is an
/// error naming it.
mlir::FailureOr<std::string>
buildEmulatorImage(mlir::Location loc, llvm::StringRef deviceBitcode,
                   const std::vector<KernelInfo> &kernels,
                   const HostCompileOptions &options);

} // namespace tessera

#endif // TESSERA_TARGET_EMULATORTARGET_H
