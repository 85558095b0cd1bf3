//===- HostTarget.h - Tile kernels to a host shared object -----*- C++ -*-===//

#ifndef TESSERA_TARGET_HOSTTARGET_H
#define TESSERA_TARGET_HOSTTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>

namespace tessera {

struct HostCompileOptions {
  /// The CPU the code is tuned for and may assume (x86-64-v3: AVX2 + FMA).
  std::string cpu = "x86-64-v3";
  /// The linker that turns the object into a shared object.
  std::string linker;
};

/// Adds the passes from tile IR to the LLVM dialect for the host.
mlir::LogicalResult buildHostLoweringPipeline(mlir::OpPassManager &pm);

/// Lowers `module` (tile kernels) in place to the LLVM dialect, then to a
/// position-independent shared object whose bytes are returned. Errors are
/// reported on the module's location.
mlir::FailureOr<std::string>
compileToHostSharedObject(mlir::ModuleOp module,
                          const HostCompileOptions &options);

} // namespace tessera

#endif // TESSERA_TARGET_HOSTTARGET_H
