//===- AmdTarget.h - Tile kernels to AMD HSACO -----------------*- C++ -*-===//
//
// The AMD backend after convert-tile-to-gpu: upstream's ROCDL lowering,
// serialization to an HSA code object (HSACO, code object v5) in process
// with the AMDGPU backend and ld.lld, and the resource figures of its
// metadata.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TARGET_AMDTARGET_H
#define TESSERA_TARGET_AMDTARGET_H

#include "tessera/Target/Bundle.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"

#include <optional>
#include <string>
#include <vector>

namespace tessera {

/// One kernel's resources, from the code object's AMDGPU metadata.
struct AmdKernelResources {
  std::string kernel;
  int64_t vgprs = 0, agprs = 0, sgprs = 0;
  int64_t vgprSpills = 0, sgprSpills = 0;
  /// Static LDS and private (scratch) bytes per work-item.
  int64_t ldsBytes = 0, scratchBytes = 0;
  /// Waves per SIMD the registers allow (at most 8).
  int64_t wavesPerSimd = 0;
};

/// Waves per SIMD that workgroups of `threads` work-items, each taking
/// `ldsBytes` of LDS, allow on a CDNA compute unit whose four SIMDs share
/// `ldsPerCu` bytes: the workgroups that fit, their waves of 64 spread
/// over the SIMDs (at most 8).
int64_t ldsWavesPerSimd(int64_t ldsBytes, int64_t threads, int64_t ldsPerCu);

/// Adds upstream's lowering of the gpu.module (amdgpu, vector, scf, gpu
/// ops) to the ROCDL and LLVM dialects for `chip`, and its target
/// attribute.
void buildGPUToROCDLPipeline(mlir::OpPassManager &pm, llvm::StringRef chip);

/// The waves per SIMD to ask the AMDGPU backend for when a kernel's
/// `registers` (unified VGPRs and AGPRs) allow `byRegisters` and its LDS
/// `byLds`: one more where registers alone limit it and that many waves
/// leave at least 80% of its registers; none otherwise.
std::optional<int64_t> amdOccupancyGoal(int64_t registers, int64_t byRegisters,
                                        int64_t byLds);

/// Serializes the lowered gpu.module of `module` to an HSACO for `chip`,
/// linked by the ld.lld found at configure time, and reads each kernel's
/// `resources` from it. With `raiseOccupancy`, a kernel of `kernels`
/// (their threads and dynamic LDS) that registers alone keep from one more
/// wave per SIMD is compiled again asked for it ("amdgpu-waves-per-eu"),
/// which is kept where the backend reaches it with no new spills or
/// scratch. `withOptimizedIR`, when given, receives the optimized LLVM
/// module the AMDGPU backend compiles, as bitcode (the emulator's input),
/// before the backend runs.
mlir::FailureOr<std::string> serializeToHsaco(
    mlir::ModuleOp module, llvm::StringRef chip,
    llvm::ArrayRef<KernelInfo> kernels, bool raiseOccupancy,
    std::vector<AmdKernelResources> &resources,
    llvm::function_ref<void(llvm::StringRef)> withOptimizedIR = {});

/// The resources of each kernel of `hsaco`, read from its NT_AMDGPU_METADATA
/// note; an error on `loc` when there is none.
mlir::FailureOr<std::vector<AmdKernelResources>>
readHsacoResources(mlir::Location loc, llvm::StringRef hsaco);

} // namespace tessera

#endif // TESSERA_TARGET_AMDTARGET_H
