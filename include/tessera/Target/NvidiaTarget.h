//===- NvidiaTarget.h - Tile kernels to PTX and cubins ---------*- C++ -*-===//

#ifndef TESSERA_TARGET_NVIDIATARGET_H
#define TESSERA_TARGET_NVIDIATARGET_H

#include "tessera/Target/Bundle.h"
#include "tessera/Target/NvidiaOccupancy.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <string>
#include <vector>

namespace tessera {

/// What ptxas reports for one kernel.
struct KernelResources {
  std::string kernel;
  int64_t registers = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  int64_t stackBytes = 0;
  int64_t sharedBytes = 0;
  /// Blocks per SM with these resources and the launch's shared memory;
  /// null for kernels assembleCubin was given no launch shape of.
  std::optional<Occupancy> occupancy;
  /// ptxas' "Potential Performance Loss" notes on the kernel (such as wgmma
  /// instructions it serialized), as it words them.
  std::vector<std::string> advisories;
};

/// Adds the passes from tile kernels (with `tile.target` set) to a
/// gpu.module of per-thread code: layouts, then distribution.
void buildTileToGPUPipeline(mlir::OpPassManager &pm);

/// Adds the passes from that gpu.module to the LLVM dialect for `chip`
/// (upstream NVVM lowering).
void buildGPUToNVVMPipeline(mlir::OpPassManager &pm, llvm::StringRef chip);

/// Gives the dynamic shared memory global external linkage, so that PTX
/// declares it `.extern .shared`, and 1024-byte alignment (run after
/// buildGPUToNVVMPipeline).
void makeDynamicSharedExternal(mlir::ModuleOp module);

/// Serializes the lowered gpu.module of `module` to PTX. `withOptimizedIR`,
/// when given, receives the optimized LLVM IR the NVPTX backend compiles (as
/// bitcode: the emulator's input) as soon as it exists, before the backend
/// runs.
mlir::FailureOr<std::string>
serializeToPtx(mlir::ModuleOp module,
               llvm::function_ref<void(llvm::StringRef)> withOptimizedIR = {});

/// The ptxas the build found (empty if none).
llvm::StringRef getDefaultPtxas();

/// Assembles `ptx` for `chip` with `ptxas` into a cubin; fills `resources`
/// from ptxas' report, with the occupancy of each kernel of `kernels` (its
/// threads and dynamic shared memory). Errors are reported on `loc`.
///
/// With `raiseOccupancy`, each of those kernels whose registers alone keep
/// it from one more block per SM (see occupancyGoal) is asked for that
/// many blocks (`.minnctapersm`); where ptxas reaches them with no new
/// spills and no larger stack frame the directive stays, in the cubin and
/// in `ptx`, else the kernel is assembled as it was.
mlir::FailureOr<std::string>
assembleCubin(mlir::Location loc, std::string &ptx, llvm::StringRef chip,
              llvm::StringRef ptxas, llvm::ArrayRef<KernelInfo> kernels,
              bool raiseOccupancy, std::vector<KernelResources> &resources);

/// Parses ptxas' `-v` report.
std::vector<KernelResources> parsePtxasReport(llvm::StringRef report);

} // namespace tessera

#endif // TESSERA_TARGET_NVIDIATARGET_H
