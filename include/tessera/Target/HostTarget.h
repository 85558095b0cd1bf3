//===- HostTarget.h - Tile kernels to a host shared object -----*- C++ -*-===//

#ifndef TESSERA_TARGET_HOSTTARGET_H
#define TESSERA_TARGET_HOSTTARGET_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <memory>
#include <string>

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace tessera {

struct HostCompileOptions {
  /// The CPU the code is tuned for and may assume (x86-64-v3: AVX2 + FMA).
  std::string cpu = "x86-64-v3";
  /// The linker that turns the object into a shared object.
  std::string linker;
};

/// Adds the passes from tile IR to the LLVM dialect for the host.
void buildHostLoweringPipeline(mlir::OpPassManager &pm);

/// Lowers `module` (tile kernels) in place to the LLVM dialect, then to a
/// position-independent shared object whose bytes are returned. Errors are
/// reported on the module's location.
mlir::FailureOr<std::string>
compileToHostSharedObject(mlir::ModuleOp module,
                          const HostCompileOptions &options);

/// A target machine for the host CPU (PIC, -O3 code generation); null
/// after reporting an error on `loc`.
std::unique_ptr<llvm::TargetMachine>
createHostTargetMachine(mlir::Location loc, const HostCompileOptions &options);

/// Emits `llvmModule` (host triple and data layout set) as an object and
/// links it, with `libraries`, into a shared object whose bytes are
/// returned.
mlir::FailureOr<std::string> linkHostSharedObject(
    mlir::Location loc, llvm::Module &llvmModule, llvm::TargetMachine &machine,
    const HostCompileOptions &options, llvm::ArrayRef<std::string> libraries);

} // namespace tessera

#endif // TESSERA_TARGET_HOSTTARGET_H
