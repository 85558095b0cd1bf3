//===- Compiler.cpp - Tile kernels to a multi-target bundle ---------------===//
//
// Verifies the kernels of all inputs, runs the requested passes, proves the
// tag invariants, compiles the kernels for every target and writes one
// bundle (see tessera/Compiler/Compiler.h).
//
//===----------------------------------------------------------------------===//

#include "tessera/Compiler/Compiler.h"
#include "tessera/InitAllTessera.h"
#include "tessera/Target/AmdTarget.h"
#include "tessera/Target/EmulatorTarget.h"
#include "tessera/Target/HostTarget.h"
#include "tessera/Target/NvidiaTarget.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"

#include <future>
#include <mutex>

using namespace mlir;
using namespace tessera;

/// The GPU targets this build compiles for: every GPU chip of the target
/// registry.
static const llvm::StringRef kGPUTargets[] = {"sm_80", "sm_90a", "gfx942",
                                              "gfx90a"};

llvm::ArrayRef<llvm::StringRef> tessera::compilerGpuTargets() {
  return kGPUTargets;
}

static bool isAmdChip(StringRef chip) { return chip.starts_with("gfx"); }

void tessera::initializeCompiler() {
  static std::once_flag once;
  std::call_once(once, [] {
    // Every LLVM target registers itself now, before the emulator images'
    // threads look the host's up while another thread compiles for a GPU.
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    registerAllPasses();
  });
}

/// `ptxas`, or the one this build found when it is empty.
static std::string resolvePtxas(StringRef ptxas) {
  return ptxas.empty() ? getDefaultPtxas().str() : ptxas.str();
}

std::string tessera::describeTargets(StringRef ptxasPath) {
  std::string text = "host host\n";
  std::string ptxas = resolvePtxas(ptxasPath);
  bool cubins = !ptxas.empty() && llvm::sys::fs::can_execute(ptxas);
  for (StringRef chip : kGPUTargets)
    if (isAmdChip(chip))
      text += (chip + " " + chip + "-hsaco emu-" + chip + "\n").str();
    else
      text += (chip + (cubins ? " " + chip + "-cubin" : "") + " " + chip +
               "-ptx emu-" + chip + "\n")
                  .str();
  return text;
}

namespace {
/// The emulator image (--device=emu) of one GPU target, built from the
/// optimized device IR on a thread of its own while the GPU backend, and
/// then ptxas or the linker, compile the same IR.
class EmulatorJob {
public:
  /// Starts building the image of `bitcode`.
  void start(Location loc, StringRef bitcode,
             const std::vector<KernelInfo> &kernels, StringRef cpu) {
    HostCompileOptions hostOptions;
    hostOptions.cpu = cpu.str();
    image = std::async(std::launch::async, [loc, hostOptions, kernels,
                                            bitcode = bitcode.str()] {
      return buildEmulatorImage(loc, bitcode, kernels, hostOptions);
    });
  }
  /// Waits for the image and appends it to `images` as `emu-<chip>`.
  LogicalResult finish(Location loc, StringRef chip,
                       const std::vector<KernelInfo> &kernels,
                       std::vector<TargetImage> &images) {
    if (!image.valid())
      return emitError(loc)
             << "no optimized device IR for the " << chip << " emulator image";
    FailureOr<std::string> bytes = image.get();
    if (failed(bytes))
      return failure();
    images.push_back({("emu-" + chip).str(), llvm::sys::getProcessTriple(),
                      *bytes, TargetImage::Kind::Object, kernels});
    return success();
  }

private:
  std::future<FailureOr<std::string>> image;
};

/// One compile of a set of inputs: the module, the options and what it
/// writes.
class Compilation {
public:
  Compilation(MLIRContext &context, const CompileOptions &options,
              CompileResult &result, raw_ostream &diagnostics)
      : context(context), options(options), result(result),
        diagnostics(diagnostics) {}

  /// Compiles `inputs` into the result.
  LogicalResult run(ArrayRef<CompileInput> inputs, llvm::SourceMgr &sources);
  /// Parses `inputs` into `module`, checks the targets (the GPU ones into
  /// `gpuTargets`) and runs the tile passes and tag-check (reporting its
  /// figures as remarks with `printStats`).
  LogicalResult prepare(ArrayRef<CompileInput> inputs, llvm::SourceMgr &sources,
                        OwningOpRef<ModuleOp> &module,
                        std::vector<std::string> &gpuTargets, bool printStats);

private:
  OwningOpRef<ModuleOp> parseInputs(ArrayRef<CompileInput> inputs,
                                    llvm::SourceMgr &sources);
  FailureOr<bool> lowerToLlvm(ModuleOp module, StringRef chip,
                              OwningOpRef<ModuleOp> &copy,
                              const std::vector<KernelInfo> &kernels,
                              std::vector<KernelInfo> &lowered);
  FailureOr<bool> compileGpu(ModuleOp module, StringRef chip,
                             const std::vector<KernelInfo> &kernels,
                             std::vector<TargetImage> &images);
  FailureOr<bool> serializeAmd(ModuleOp module, StringRef chip, ModuleOp copy,
                               const std::vector<KernelInfo> &lowered,
                               std::vector<TargetImage> &images);
  FailureOr<bool> serializeNvidia(ModuleOp module, StringRef chip,
                                  ModuleOp copy,
                                  const std::vector<KernelInfo> &lowered,
                                  std::vector<TargetImage> &images);
  void reportNvidiaResources(ModuleOp module, StringRef chip,
                             ArrayRef<KernelResources> resources,
                             const std::vector<KernelInfo> &lowered);
  /// Makes `module` the result (--emit's forms); true.
  bool emitModule(ModuleOp module);

  MLIRContext &context;
  const CompileOptions &options;
  CompileResult &result;
  raw_ostream &diagnostics;
};
} // namespace

/// Parses every input into one module; kernel names must be unique.
OwningOpRef<ModuleOp> Compilation::parseInputs(ArrayRef<CompileInput> inputs,
                                               llvm::SourceMgr &sources) {
  OwningOpRef<ModuleOp> merged;
  for (const CompileInput &input : inputs) {
    unsigned id = sources.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(input.text, input.name),
        llvm::SMLoc());
    llvm::SourceMgr one;
    one.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBuffer(
            sources.getMemoryBuffer(id)->getBuffer(),
            sources.getMemoryBuffer(id)->getBufferIdentifier(), false),
        llvm::SMLoc());
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(one, ParserConfig(&context));
    if (!module)
      return nullptr;
    if (!merged) {
      merged = std::move(module);
      continue;
    }
    SymbolTable symbols(*merged);
    for (Operation &op :
         llvm::make_early_inc_range(module->getBody()->getOperations())) {
      if (auto kernel = dyn_cast<tile::KernelOp>(op))
        if (Operation *previous = symbols.lookup(kernel.getSymName())) {
          InFlightDiagnostic diag = kernel.emitError()
                                    << "kernel '" << kernel.getSymName()
                                    << "' is defined twice";
          diag.attachNote(previous->getLoc()) << "first defined here";
          return nullptr;
        }
      op.moveBefore(merged->getBody(), merged->getBody()->end());
    }
  }
  return merged;
}

bool Compilation::emitModule(ModuleOp module) {
  result.output.clear();
  llvm::raw_string_ostream os(result.output);
  module.print(os);
  return true;
}

/// The launch metadata of `chip`'s lowering: `kernels` with the threads,
/// dynamic shared memory and tensor maps each gpu.func of `gpuCode`
/// records.
static std::vector<KernelInfo>
loweredKernelInfo(ModuleOp gpuCode, const std::vector<KernelInfo> &kernels) {
  std::vector<KernelInfo> lowered = kernels;
  gpuCode.walk([&](gpu::GPUFuncOp func) {
    for (KernelInfo &info : lowered) {
      if (info.name != func.getName())
        continue;
      // Roles interleaved on chips that cannot run them launch the
      // kernel's own threads.
      if (std::optional<ArrayRef<int32_t>> block = func.getKnownBlockSize())
        info.threads = (*block)[0];
      if (auto bytes = func->getAttrOfType<IntegerAttr>("tessera.shared_bytes"))
        info.sharedBytes = bytes.getInt();
      if (auto maps = func->getAttrOfType<ArrayAttr>("tessera.tensor_maps"))
        for (auto map : maps.getAsValueRange<StringAttr>())
          info.tensorMaps.push_back(map.str());
      if (auto cluster = func->getAttrOfType<StringAttr>("tessera.cluster"))
        info.cluster = cluster.str();
    }
  });
  return lowered;
}

/// A clone of `module` for `chip` in `copy`, lowered to per-thread GPU code
/// (and the GPU passes run on it), then to the LLVM dialect of the chip's
/// vendor; true when emit=gpu or llvm has made that form the result.
FailureOr<bool> Compilation::lowerToLlvm(ModuleOp module, StringRef chip,
                                         OwningOpRef<ModuleOp> &copy,
                                         const std::vector<KernelInfo> &kernels,
                                         std::vector<KernelInfo> &lowered) {
  copy = module.clone();
  setModuleTarget(*copy, chip);
  PassManager toGpu(module.getContext(), ModuleOp::getOperationName());
  buildTileToGPUPipeline(toGpu);
  if (!options.gpuPasses.empty() &&
      failed(parsePassPipeline(options.gpuPasses, toGpu, diagnostics)))
    return emitError(module.getLoc())
           << "cannot parse --gpu-passes='" << options.gpuPasses << "'";
  if (failed(toGpu.run(*copy)))
    return failure();
  lowered = loweredKernelInfo(*copy, kernels);
  if (options.emit == "gpu")
    return emitModule(*copy);
  PassManager toLlvm(module.getContext(), ModuleOp::getOperationName());
  if (isAmdChip(chip))
    buildGPUToROCDLPipeline(toLlvm, chip);
  else
    buildGPUToNVVMPipeline(toLlvm, chip);
  if (failed(toLlvm.run(*copy)))
    return failure();
  // NVPTX and AMDGPU both take an external zero-sized shared array as the
  // dynamic shared memory.
  makeDynamicSharedExternal(*copy);
  if (options.emit == "llvm")
    return emitModule(*copy);
  return false;
}

/// Kernel `name`'s metadata (its threads; the dynamic shared memory, LDS,
/// its buffers take).
static const KernelInfo *findKernel(const std::vector<KernelInfo> &kernels,
                                    StringRef name) {
  for (const KernelInfo &info : kernels)
    if (info.name == name)
      return &info;
  return nullptr;
}

/// Compiles a clone of `module` for GPU `chip` and appends its images; with
/// emit, makes that form the result and returns true.
FailureOr<bool> Compilation::compileGpu(ModuleOp module, StringRef chip,
                                        const std::vector<KernelInfo> &kernels,
                                        std::vector<TargetImage> &images) {
  OwningOpRef<ModuleOp> copy;
  std::vector<KernelInfo> lowered;
  FailureOr<bool> done = lowerToLlvm(module, chip, copy, kernels, lowered);
  if (failed(done) || *done)
    return done;
  return isAmdChip(chip)
             ? serializeAmd(module, chip, *copy, lowered, images)
             : serializeNvidia(module, chip, *copy, lowered, images);
}

/// Appends the HSACO and emulator images of `copy`, `module` lowered to the
/// LLVM dialect for AMD `chip` (its kernels `lowered`).
FailureOr<bool>
Compilation::serializeAmd(ModuleOp module, StringRef chip, ModuleOp copy,
                          const std::vector<KernelInfo> &lowered,
                          std::vector<TargetImage> &images) {
  EmulatorJob emulator;
  std::vector<AmdKernelResources> resources;
  FailureOr<std::string> hsaco = serializeToHsaco(
      copy, chip, lowered, options.raiseOccupancy, resources,
      [&](StringRef bitcode) {
        emulator.start(module.getLoc(), bitcode, lowered, options.hostCpu);
      });
  if (failed(hsaco))
    return failure();
  if (options.resourceUsage) {
    llvm::raw_string_ostream os(result.resourceUsage);
    for (const AmdKernelResources &k : resources) {
      const KernelInfo *info = findKernel(lowered, k.kernel);
      int64_t shared = k.ldsBytes + (info ? info->sharedBytes : 0);
      // Occupancy is what both the registers and the LDS allow.
      int64_t byLds = ldsWavesPerSimd(shared, info ? info->threads : 64,
                                      lookupTarget(chip)->maxSharedBytes);
      os << k.kernel << " " << chip << ": VGPRs " << k.vgprs << ", AGPRs "
         << k.agprs << ", SGPRs " << k.sgprs << ", spills " << k.vgprSpills
         << " VGPRs " << k.sgprSpills << " SGPRs, scratch " << k.scratchBytes
         << " bytes, LDS " << shared << " bytes, occupancy "
         << std::min(k.wavesPerSimd, byLds) << " waves/SIMD (registers "
         << k.wavesPerSimd << ", LDS " << byLds << ")\n";
    }
  }
  images.push_back({chip.str(), "amdgcn-amd-amdhsa", *hsaco,
                    TargetImage::Kind::Hsaco, lowered});
  if (failed(emulator.finish(module.getLoc(), chip, lowered, images)))
    return failure();
  return false;
}

/// --resource-usage's lines for an NVIDIA chip's cubin.
void Compilation::reportNvidiaResources(
    ModuleOp module, StringRef chip, ArrayRef<KernelResources> resources,
    const std::vector<KernelInfo> &lowered) {
  llvm::raw_string_ostream os(result.resourceUsage);
  for (const KernelResources &k : resources) {
    const KernelInfo *info = findKernel(lowered, k.kernel);
    int64_t shared = (info ? info->sharedBytes : 0) + k.sharedBytes;
    os << k.kernel << " " << chip << ": registers " << k.registers;
    // A warp-specialized kernel's roles switch to their own budgets (where
    // they run on warps of their own).
    if (auto kernel = module.lookupSymbol<tile::KernelOp>(k.kernel);
        kernel && lookupTarget(chip)->runsRoles())
      for (auto roles :
           kernel.getBody().front().getOps<tile::WarpSpecializeOp>())
        os << " (setmaxnreg: producer " << roles.getProducerRegisters() << " x "
           << tile::kProducerThreads << " threads, consumers "
           << roles.getConsumerRegisters() << " x "
           << kernel.getThreads() * roles.getConsumerGroups() << ")";
    os << ", spill stores " << k.spillStoreBytes << " bytes, spill loads "
       << k.spillLoadBytes << " bytes, stack " << k.stackBytes
       << " bytes, shared " << shared << " bytes";
    if (const std::optional<Occupancy> &o = k.occupancy)
      os << ", occupancy " << o->blocks << " blocks/SM (registers "
         << o->byRegisters << ", shared memory " << o->bySharedMemory
         << ", warps " << o->byWarps << ")";
    os << "\n";
  }
}

/// Appends the cubin, PTX and emulator images of `copy`, `module` lowered
/// to the LLVM dialect for NVIDIA `chip` (its kernels `lowered`); with
/// emit=ptx, makes the PTX the result and returns true.
FailureOr<bool>
Compilation::serializeNvidia(ModuleOp module, StringRef chip, ModuleOp copy,
                             const std::vector<KernelInfo> &lowered,
                             std::vector<TargetImage> &images) {
  // emit=ptx needs no emulator image.
  EmulatorJob emulator;
  FailureOr<std::string> ptx = serializeToPtx(copy, [&](StringRef bitcode) {
    if (options.emit.empty())
      emulator.start(module.getLoc(), bitcode, lowered, options.hostCpu);
  });
  if (failed(ptx))
    return failure();
  std::string triple = "nvptx64-nvidia-cuda";
  std::string ptxas = resolvePtxas(options.ptxas);
  if (options.emit == "ptx") {
    // The PTX the bundle would hold: with the occupancy directives that
    // assembling it keeps (which needs ptxas).
    std::vector<KernelResources> resources;
    if (!ptxas.empty() && options.raiseOccupancy &&
        failed(assembleCubin(module.getLoc(), *ptx, chip, ptxas, lowered,
                             options.raiseOccupancy, resources)))
      return failure();
    result.output = *ptx;
    return true;
  }
  if (ptxas.empty()) {
    // The PTX and the emulator image need no toolkit; the cubin does.
    emitWarning(module.getLoc())
        << "no ptxas (this build found no CUDA toolkit; pass --ptxas=PATH): "
        << "the bundle holds " << chip
        << " PTX and the emulator image, no cubin";
    if (options.resourceUsage)
      return emitError(module.getLoc()) << "--resource-usage needs ptxas";
  } else {
    std::vector<KernelResources> resources;
    FailureOr<std::string> cubin =
        assembleCubin(module.getLoc(), *ptx, chip, ptxas, lowered,
                      options.raiseOccupancy, resources);
    if (failed(cubin))
      return failure();
    if (options.resourceUsage)
      reportNvidiaResources(module, chip, resources, lowered);
    images.push_back(
        {chip.str(), triple, *cubin, TargetImage::Kind::Cubin, lowered});
  }
  images.push_back({chip.str(), triple, *ptx, TargetImage::Kind::Ptx, lowered});
  // The same device code for the runtime's emulator (--device=emu).
  if (failed(emulator.finish(module.getLoc(), chip, lowered, images)))
    return failure();
  return false;
}

LogicalResult Compilation::prepare(ArrayRef<CompileInput> inputs,
                                   llvm::SourceMgr &sources,
                                   OwningOpRef<ModuleOp> &module,
                                   std::vector<std::string> &gpuTargets,
                                   bool printStats) {
  if (inputs.empty()) {
    diagnostics << "error: no input to compile\n";
    return failure();
  }
  module = parseInputs(inputs, sources);
  if (!module)
    return failure();
  const std::vector<std::string> &targets = options.targets;
  llvm::StringSet<> named;
  for (const std::string &target : targets) {
    if (!named.insert(target).second)
      return emitError(module->getLoc())
             << "target '" << target << "' is given twice";
    if (target == "host")
      continue;
    if (llvm::is_contained(kGPUTargets, target)) {
      gpuTargets.push_back(target);
      continue;
    }
    return emitError(module->getLoc()) << "unknown target '" << target
                                       << "'; known targets: " << listTargets();
  }
  const std::string &emit = options.emit;
  if (!emit.empty()) {
    if (!llvm::is_contained({"gpu", "llvm", "ptx"}, emit))
      return emitError(module->getLoc())
             << "unknown --emit='" << emit << "'; use gpu, llvm or ptx";
    if (gpuTargets.size() != 1 || targets.size() != 1)
      return emitError(module->getLoc())
             << "--emit=" << emit << " needs exactly one GPU target";
    if (emit == "ptx" && isAmdChip(gpuTargets.front()))
      return emitError(module->getLoc())
             << "--emit=ptx needs an NVIDIA target, not " << gpuTargets.front();
  }
  if (module->getOps<tile::KernelOp>().empty())
    return emitError(module->getLoc()) << "no tile.kernel to compile";
  PassManager pm(&context, ModuleOp::getOperationName());
  // Counting scf.while loops become scf.for, which the checker and the
  // lowerings handle.
  pm.addPass(createTileUpliftWhile());
  if (!options.passes.empty() &&
      failed(parsePassPipeline(options.passes, pm, diagnostics)))
    return emitError(module->getLoc())
           << "cannot parse --passes='" << options.passes << "'";
  // Kernels that ask to be persistent (tile.persistent) and that the
  // passes did not make so: after the requested passes, which may have to
  // run first (tile-pipeline{warp-specialize}, tile-stage-stores).
  pm.addPass(createTilePersistent());
  // No target has integer powers: every one computes them alike.
  pm.addPass(createTileExpandPowers());
  // One target: the passes work for it (its shared memory, its latency
  // model). Several: they work for the GPU target with the least shared
  // memory (pipelines that fit it fit the others), and tag-check holds the
  // kernels to that smallest shared memory.
  const TargetInfo *governing = nullptr;
  for (const std::string &target : targets) {
    const TargetInfo *info = lookupTarget(target);
    if (targets.size() == 1 ||
        (info->isGpu() &&
         (!governing || info->maxSharedBytes < governing->maxSharedBytes)))
      governing = info;
  }
  if (governing)
    setModuleTarget(*module, governing->chip);
  int64_t sharedLimit = 0;
  for (const std::string &target : targets) {
    int64_t bytes = lookupTarget(target)->maxSharedBytes;
    sharedLimit = sharedLimit ? std::min(sharedLimit, bytes) : bytes;
  }
  if (options.tagCheck || printStats) {
    TagCheckOptions check;
    if (targets.size() > 1)
      check.maxSharedBytes = sharedLimit;
    check.rlimit = options.tagCheckRlimit;
    check.printStats = printStats;
    pm.addPass(createTagCheck(check));
  }
  return pm.run(*module);
}

LogicalResult Compilation::run(ArrayRef<CompileInput> inputs,
                               llvm::SourceMgr &sources) {
  if (options.targets.empty()) {
    diagnostics << "error: no target; known targets: " << listTargets() << "\n";
    return failure();
  }
  OwningOpRef<ModuleOp> module;
  std::vector<std::string> gpuTargets;
  if (failed(prepare(inputs, sources, module, gpuTargets,
                     /*printStats=*/false)))
    return failure();
  const std::vector<std::string> &targets = options.targets;
  result.kernels = collectKernelInfo(*module);
  std::vector<TargetImage> images;
  if (llvm::is_contained(targets, "host")) {
    OwningOpRef<ModuleOp> copy = module->clone();
    HostCompileOptions hostOptions;
    hostOptions.cpu = options.hostCpu;
    FailureOr<std::string> object =
        compileToHostSharedObject(*copy, hostOptions);
    if (failed(object))
      return failure();
    images.push_back({"host", llvm::sys::getProcessTriple(), *object});
  }
  for (const std::string &chip : gpuTargets) {
    FailureOr<bool> done = compileGpu(*module, chip, result.kernels, images);
    if (failed(done))
      return failure();
    if (*done) // emit made its form the result
      return success();
  }
  result.output = writeBundle(result.kernels, images);
  return success();
}

/// Runs `body` on a compilation of `options` in a context of its own, on a
/// thread with a large stack; remarks go to `remarks` where it is set.
static LogicalResult withCompilation(
    const CompileOptions &options, CompileResult &result,
    raw_ostream &diagnostics, std::vector<std::string> *remarks,
    llvm::function_ref<LogicalResult(Compilation &, llvm::SourceMgr &)> body) {
  initializeCompiler();
  result = CompileResult();
  int status = runWithLargeStack([&] {
    DialectRegistry registry;
    registerAllDialects(registry);
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    // Diagnostics point into the source; the pass pipeline's view of the
    // whole kernel would bury them.
    context.printOpOnDiagnostic(false);
    llvm::SourceMgr sources;
    SourceMgrDiagnosticHandler handler(sources, &context, diagnostics);
    ScopedDiagnosticHandler collect(&context, [&](Diagnostic &diag) {
      if (!remarks || diag.getSeverity() != DiagnosticSeverity::Remark)
        return failure(); // to the source manager's handler
      remarks->push_back(diag.str());
      return success();
    });
    Compilation compilation(context, options, result, diagnostics);
    return failed(body(compilation, sources)) ? 1 : 0;
  });
  return success(status == 0);
}

LogicalResult tessera::compileKernels(ArrayRef<CompileInput> inputs,
                                      const CompileOptions &options,
                                      CompileResult &result,
                                      raw_ostream &diagnostics) {
  return withCompilation(
      options, result, diagnostics, /*remarks=*/nullptr,
      [&](Compilation &compilation, llvm::SourceMgr &sources) {
        return compilation.run(inputs, sources);
      });
}

LogicalResult tessera::checkKernels(ArrayRef<CompileInput> inputs,
                                    const CompileOptions &options,
                                    std::vector<std::string> &proofs,
                                    raw_ostream &diagnostics) {
  proofs.clear();
  CompileResult unused;
  return withCompilation(
      options, unused, diagnostics, &proofs,
      [&](Compilation &compilation, llvm::SourceMgr &sources) {
        OwningOpRef<ModuleOp> module;
        std::vector<std::string> gpuTargets;
        return compilation.prepare(inputs, sources, module, gpuTargets,
                                   /*printStats=*/true);
      });
}
