//===- NvidiaTarget.cpp - Tile kernels to PTX and cubins ------------------===//
//
// tile-assign-layouts and convert-tile-to-gpu, then upstream's NVVM
// lowering and serialization to PTX in process (gpu-module-to-binary), then
// the CUDA toolkit's ptxas for the cubin and its resource report.
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/NvidiaTarget.h"
#include "tessera/Target/OccupancyGoals.h"

#include "DeviceLibraries.h"
#include "TempFile.h"

#include "tessera/Conversion/Passes.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

using namespace mlir;
using namespace tessera;

void tessera::buildTileToGPUPipeline(OpPassManager &pm) {
  // Roles run on warps of their own on sm_90a only; elsewhere interleaved.
  pm.addPass(createTileInterleaveRoles());
  pm.addPass(createTileAssignLayouts());
  pm.addPass(createConvertTileToGPU());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tessera::buildGPUToNVVMPipeline(OpPassManager &pm, StringRef chip) {
  GpuNVVMAttachTargetOptions attach;
  attach.chip = chip.str();
  attach.features = "+ptx80";
  attach.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(attach));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  gpu.addPass(createConvertNVGPUToNVVMPass());
  gpu.addPass(createConvertVectorToSCFPass());
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(memref::createExpandStridedMetadataPass());
  gpu.addPass(createLowerAffinePass());
  gpu.addPass(createConvertGpuOpsToNVVMOps());
  // Math that libdevice does not cover (trunc) as LLVM intrinsics.
  gpu.addPass(createConvertMathToLLVMPass());
  // n-D vectors (ldmatrix results) and poison need their own patterns.
  gpu.addPass(createConvertVectorToLLVMPass());
  gpu.addPass(createUBToLLVMConversionPass());
  gpu.addPass(createConvertNVVMToLLVMPass());
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  gpu.addPass(createReconcileUnrealizedCastsPass());
  // The device code's instructions keep the kernel source's lines: PTX
  // .file/.loc directives only (no DWARF sections), which profilers and
  // the emulator's reports show.
  LLVM::DIScopeForLLVMFuncOpPassOptions lines;
  lines.emissionKind = LLVM::DIEmissionKind::DebugDirectivesOnly;
  pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(lines));
}

void tessera::makeDynamicSharedExternal(ModuleOp module) {
  // Upstream lowers gpu.dynamic_shared_memory to an *internal* [0 x i8]
  // global, which NVPTX prints as a 1-byte static `.shared` variable that
  // the dynamic region then follows; an external one becomes
  // `.extern .shared ... []`, the dynamic shared memory itself.
  // It is 1024-byte aligned: sm_90a's 128-byte swizzled TMA and wgmma
  // tiles swizzle on address bits, and the lowering places them at
  // multiples of 1024 bytes from its start.
  module.walk([](LLVM::GlobalOp global) {
    auto array = dyn_cast<LLVM::LLVMArrayType>(global.getGlobalType());
    if (global.getAddrSpace() == 3 && array && array.getNumElements() == 0) {
      global.setLinkage(LLVM::Linkage::External);
      global.setAlignment(
          std::max<uint64_t>(global.getAlignment().value_or(0), 1024));
    }
  });
}

FailureOr<std::string>
tessera::serializeToPtx(ModuleOp module,
                        llvm::function_ref<void(StringRef)> withOptimizedIR) {
  // One LLVM optimization run gives both the PTX and, through the
  // optimized-IR callback, the exact module the NVPTX backend receives.
  auto keepIR = [&](llvm::Module &llvmModule) {
    if (!withOptimizedIR)
      return;
    std::string bitcode;
    llvm::raw_string_ostream os(bitcode);
    llvm::WriteBitcodeToFile(llvmModule, os);
    withOptimizedIR(bitcode);
  };
  if (failed(checkDeviceLibrary(module, /*amd=*/false)))
    return failure();
  std::string toolkit = cudaToolkitPath();
  gpu::TargetOptions options(toolkit, {}, {}, {},
                             gpu::CompilationTarget::Assembly, {}, {}, {},
                             keepIR);
  // Upstream's serializer always looks for libdevice in the CUDA toolkit and
  // reports an error when there is none, then goes on: a module that calls
  // no libdevice function (checkDeviceLibrary passed) needs none, so
  // without a toolkit that report is noise. It is held back, and shown
  // only if serialization fails.
  SmallVector<Diagnostic> libdeviceReports;
  LogicalResult serialized = success();
  {
    ScopedDiagnosticHandler handler(
        module.getContext(), [&](Diagnostic &diag) -> LogicalResult {
          std::string text = diag.str();
          if (diag.getSeverity() != DiagnosticSeverity::Error ||
              !(StringRef(text).starts_with("CUDA path: ") ||
                StringRef(text).starts_with("LibDevice path: ")))
            return failure(); // on to the next handler
          libdeviceReports.push_back(std::move(diag));
          return success();
        });
    serialized = gpu::transformGpuModulesToBinaries(module, nullptr, options);
  }
  if (failed(serialized)) {
    for (Diagnostic &diag : libdeviceReports)
      module.getContext()->getDiagEngine().emit(std::move(diag));
    return failure();
  }
  std::string ptx;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx += cast<gpu::ObjectAttr>(object).getObject().getValue();
  });
  if (ptx.empty())
    return emitError(module.getLoc()) << "serialization produced no PTX";
  return ptx;
}

StringRef tessera::getDefaultPtxas() { return TESSERA_DEFAULT_PTXAS; }

std::vector<KernelResources> tessera::parsePtxasReport(StringRef report) {
  std::vector<KernelResources> kernels;
  llvm::Regex function("Function properties for ([A-Za-z0-9_]+)");
  llvm::Regex frame("([0-9]+) bytes stack frame, ([0-9]+) bytes spill "
                    "stores, ([0-9]+) bytes spill loads");
  llvm::Regex used("Used ([0-9]+) registers");
  llvm::Regex smem("([0-9]+) bytes smem");
  // Printed before the kernel's properties.
  llvm::Regex advisory("Potential Performance Loss: (.*) in the function "
                       "'([A-Za-z0-9_]+)'");
  llvm::StringMap<std::vector<std::string>> advisories;
  SmallVector<StringRef> lines;
  report.split(lines, '\n');
  for (StringRef line : lines) {
    SmallVector<StringRef> m;
    if (advisory.match(line, &m)) {
      // ptxas' wording has runs of spaces.
      SmallVector<StringRef> words;
      m[1].split(words, ' ', -1, /*KeepEmpty=*/false);
      advisories[m[2]].push_back(llvm::join(words, " "));
      continue;
    }
    if (function.match(line, &m)) {
      kernels.push_back({m[1].str()});
      continue;
    }
    if (kernels.empty())
      continue;
    KernelResources &k = kernels.back();
    if (frame.match(line, &m)) {
      m[1].getAsInteger(10, k.stackBytes);
      m[2].getAsInteger(10, k.spillStoreBytes);
      m[3].getAsInteger(10, k.spillLoadBytes);
    }
    if (used.match(line, &m))
      m[1].getAsInteger(10, k.registers);
    if (smem.match(line, &m))
      m[1].getAsInteger(10, k.sharedBytes);
  }
  for (KernelResources &k : kernels)
    k.advisories = advisories.lookup(k.kernel);
  return kernels;
}

/// One ptxas run: the cubin of `ptx`, and ptxas' report in `resources`.
static FailureOr<std::string>
runPtxas(Location loc, StringRef ptx, StringRef chip, StringRef ptxas,
         std::vector<KernelResources> &resources) {
  TempFile input, output, report;
  if (llvm::sys::fs::createTemporaryFile("tessera", "ptx", input.path) ||
      llvm::sys::fs::createTemporaryFile("tessera", "cubin", output.path) ||
      llvm::sys::fs::createTemporaryFile("tessera", "txt", report.path))
    return emitError(loc) << "cannot create temporary files";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(input.path, ec);
    if (ec)
      return emitError(loc) << "cannot write " << input.path;
    out << ptx;
  }
  std::string arch = ("-arch=" + chip).str();
  SmallVector<StringRef> argv = {ptxas,      arch, "-O3",      "-v",
                                 input.path, "-o", output.path};
  std::optional<StringRef> redirects[] = {std::nullopt, report.path.str(),
                                          report.path.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, argv, std::nullopt, redirects, 0, 0,
                                     &message);
  auto text = llvm::MemoryBuffer::getFile(report.path);
  StringRef log = text ? (*text)->getBuffer() : "";
  if (rc != 0)
    return emitError(loc) << "ptxas failed for " << chip << " ("
                          << (message.empty() ? "exit " + std::to_string(rc)
                                              : message)
                          << "): " << log.trim();
  resources = parsePtxasReport(log);
  auto cubin = llvm::MemoryBuffer::getFile(output.path);
  if (!cubin)
    return emitError(loc) << "ptxas wrote no cubin";
  return (*cubin)->getBuffer().str();
}

/// The report of kernel `name` in `all`, or null.
static KernelResources *findResources(std::vector<KernelResources> &all,
                                      StringRef name) {
  for (KernelResources &k : all)
    if (k.kernel == name)
      return &k;
  return nullptr;
}

FailureOr<std::string>
tessera::assembleCubin(Location loc, std::string &ptx, StringRef chip,
                       StringRef ptxas, ArrayRef<KernelInfo> kernels,
                       bool raiseOccupancy,
                       std::vector<KernelResources> &resources) {
  // Each kernel's occupancy: its threads, and the shared memory of the
  // launch (dynamic) and of ptxas' placement (static).
  auto withOccupancy = [&](std::vector<KernelResources> &all) {
    for (const KernelInfo &info : kernels)
      if (KernelResources *k = findResources(all, info.name))
        k->occupancy = nvidiaOccupancy(chip, k->registers, info.threads,
                                       info.sharedBytes + k->sharedBytes);
  };
  // ptxas' notes on the cubin kept are warnings.
  auto advise = [&](FailureOr<std::string> kept) {
    for (const KernelResources &k : resources)
      for (const std::string &note : k.advisories)
        emitWarning(loc) << "ptxas, " << k.kernel << " on " << chip
                         << ": potential performance loss: " << note;
    return kept;
  };
  FailureOr<std::string> cubin = runPtxas(loc, ptx, chip, ptxas, resources);
  if (failed(cubin))
    return failure();
  withOccupancy(resources);
  llvm::StringMap<int64_t> goals;
  if (raiseOccupancy)
    for (const KernelInfo &info : kernels)
      if (const KernelResources *k = findResources(resources, info.name))
        if (std::optional<int64_t> goal =
                occupancyGoal(chip, k->registers, info.threads,
                              info.sharedBytes + k->sharedBytes))
          goals[k->kernel] = *goal;
  // Ask for the goals; keep those ptxas met without new spills or a larger
  // stack frame, and assemble again with only those if some were missed.
  struct Capped {
    std::string ptx, cubin;
    std::vector<KernelResources> resources;
  };
  auto compile =
      [&](const llvm::StringMap<int64_t> &asked) -> FailureOr<Capped> {
    Capped capped{withMinBlocksPerSm(ptx, asked), "", {}};
    FailureOr<std::string> cubin =
        runPtxas(loc, capped.ptx, chip, ptxas, capped.resources);
    if (failed(cubin))
      return failure();
    capped.cubin = std::move(*cubin);
    withOccupancy(capped.resources);
    return capped;
  };
  auto met = [&](Capped &capped, StringRef name, int64_t goal) {
    const KernelResources *before = findResources(resources, name);
    const KernelResources *after = findResources(capped.resources, name);
    return before && after && after->occupancy &&
           after->occupancy->blocks >= goal &&
           after->spillStoreBytes <= before->spillStoreBytes &&
           after->spillLoadBytes <= before->spillLoadBytes &&
           after->stackBytes <= before->stackBytes;
  };
  FailureOr<std::optional<Capped>> raised =
      compileForGoals<Capped>(std::move(goals), compile, met);
  if (failed(raised))
    return failure();
  if (*raised) {
    ptx = std::move((*raised)->ptx);
    resources = std::move((*raised)->resources);
    cubin = std::move((*raised)->cubin);
  }
  return advise(cubin);
}
