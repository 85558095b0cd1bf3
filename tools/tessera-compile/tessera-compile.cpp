//===- tessera-compile.cpp - Compile tile kernels into a bundle -*- C++ -*-===//
//
//   tessera-compile a.mlir [b.mlir...] --target=host[,sm_80,sm_90a,gfx942,
//       gfx90a] -o k.bundle
//       [--emit-header=k.h] [--emit-embed=k.cpp] [--passes=PIPELINE]
//       [--no-tag-check] [--tag-check-rlimit=N] [--emit=gpu|llvm|ptx]
//       [--resource-usage]
//       [--ptxas=PATH] [--raise-occupancy=false] [--gpu-passes=PIPELINE]
//
// Verifies the kernels of all inputs, runs the requested passes, proves the
// tag invariants (unless --no-tag-check), compiles the kernels for every
// target and writes one bundle file (see tessera/Target/Bundle.h), plus a
// C++ header of typed launch functions and a C++ source embedding the
// bundle when asked. The output is byte-identical for identical inputs and
// options.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllTessera.h"
#include "tessera/Target/AmdTarget.h"
#include "tessera/Target/Bundle.h"
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
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/TargetParser/Host.h"

#include <future>

#ifdef TESSERA_INCLUDE_TESTS
#include "TestPasses.h"
#endif

using namespace mlir;
namespace cl = llvm::cl;

/// tessera-compile's own options: --help lists only these (LLVM's stay
/// accepted).
static cl::OptionCategory compileCategory("tessera-compile options");
static cl::list<std::string> inputFiles(cl::Positional,
                                        cl::desc("<kernels.mlir>..."),
                                        cl::OneOrMore,
                                        cl::cat(compileCategory));
static cl::opt<std::string> outputFile("o", cl::desc("Output bundle"),
                                       cl::value_desc("file"), cl::Required,
                                       cl::cat(compileCategory));
static cl::list<std::string>
    targets("target", cl::desc("Targets: host, sm_80, sm_90a, gfx90a, gfx942"),
            cl::CommaSeparated, cl::OneOrMore, cl::cat(compileCategory));
static cl::opt<bool> noTagCheck("no-tag-check",
                                cl::desc("Skip proving the tag invariants"),
                                cl::cat(compileCategory));
static cl::opt<unsigned> tagCheckRlimit(
    "tag-check-rlimit",
    cl::desc("Z3 resource limit per tag-check query (tag-check's rlimit; "
             "raise it for proofs that need more, e.g. persistent kernels "
             "with rings of 3 slots)"),
    cl::init(4000000), cl::cat(compileCategory));
static cl::opt<std::string>
    passes("passes",
           cl::desc("Tile passes to run before the checker and the lowering, "
                    "as a pass pipeline (e.g. 'canonicalize,cse')"),
           cl::cat(compileCategory));
static cl::opt<std::string>
    emitHeader("emit-header",
               cl::desc("Also write a C++ header of typed launch functions"),
               cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<std::string>
    emitEmbed("emit-embed",
              cl::desc("Also write a C++ source that embeds the bundle; the "
                       "header then declares load(device)"),
              cl::value_desc("file"), cl::cat(compileCategory));
static cl::opt<std::string>
    headerNamespace("header-namespace",
                    cl::desc("Namespace of the generated C++ code"),
                    cl::init("tessera_kernels"), cl::cat(compileCategory));
static cl::opt<std::string>
    emit("emit",
         cl::desc("Write an intermediate form of the one GPU target to -o "
                  "instead of a bundle: gpu (per-thread gpu.module), llvm "
                  "(LLVM dialect) or ptx (as the bundle holds it: with the "
                  "occupancy directives ptxas keeps, where there is ptxas)"),
         cl::value_desc("gpu|llvm|ptx"), cl::cat(compileCategory));
static cl::opt<std::string>
    gpuPasses("gpu-passes",
              cl::desc("Passes to run on the per-thread GPU code (after "
                       "convert-tile-to-gpu, before the NVVM lowering), as a "
                       "pass pipeline"),
              cl::value_desc("pipeline"), cl::cat(compileCategory));
static cl::opt<bool>
    resourceUsage("resource-usage",
                  cl::desc("Print each GPU kernel's registers (VGPRs, AGPRs, "
                           "SGPRs on AMD), spills and "
                           "shared memory per target"),
                  cl::cat(compileCategory));
static cl::opt<bool> raiseOccupancy(
    "raise-occupancy",
    cl::desc("Ask for one more block per SM (NVIDIA: .minnctapersm to "
             "ptxas) or wave per SIMD (AMD: amdgpu-waves-per-eu) where only a "
             "kernel's registers prevent it, keeping it where that adds no "
             "spills (default on)"),
    cl::init(true), cl::cat(compileCategory));
static cl::opt<std::string>
    ptxasPath("ptxas", cl::desc("The ptxas to assemble cubins with"),
              cl::value_desc("path"), cl::init(""), cl::cat(compileCategory));
static cl::opt<std::string> hostCpu("host-cpu",
                                    cl::desc("CPU the host code may assume"),
                                    cl::init("x86-64-v3"),
                                    cl::cat(compileCategory));

/// The GPU targets this build compiles for: every GPU chip of the target
/// registry.
static const llvm::SmallVector<llvm::StringRef> kGPUTargets = {
    "sm_80", "sm_90a", "gfx942", "gfx90a"};

static bool isAmdChip(llvm::StringRef chip) { return chip.starts_with("gfx"); }

/// --print-targets: one line per target this build compiles for, with the
/// images it gives (`sm_80 sm_80-cubin sm_80-ptx emu-sm_80`, no cubin
/// without ptxas; `gfx942 gfx942-hsaco emu-gfx942`). Build scripts check
/// TARGETS against it at configure time.
static void printTargets(const bool &) {
  llvm::outs() << "host host\n";
  std::string ptxas = ptxasPath.empty() ? tessera::getDefaultPtxas().str()
                                        : ptxasPath.getValue();
  bool cubins = !ptxas.empty() && llvm::sys::fs::can_execute(ptxas);
  for (llvm::StringRef chip : kGPUTargets)
    if (isAmdChip(chip))
      llvm::outs() << chip << " " << chip << "-hsaco emu-" << chip << "\n";
    else
      llvm::outs() << chip << (cubins ? " " + chip + "-cubin" : "") << " "
                   << chip << "-ptx emu-" << chip << "\n";
  llvm::outs().flush();
  std::exit(0);
}
static cl::opt<bool> printTargetsFlag(
    "print-targets",
    cl::desc("Print the targets this build compiles for and the images "
             "each gives, then exit"),
    cl::ValueDisallowed,
    cl::callback([](const bool &set) { printTargets(set); }),
    cl::cat(compileCategory));

/// Parses every input into one module; kernel names must be unique.
static OwningOpRef<ModuleOp> parseInputs(MLIRContext &context,
                                         llvm::SourceMgr &sources) {
  OwningOpRef<ModuleOp> merged;
  for (const std::string &file : inputFiles) {
    std::string error;
    auto input = openInputFile(file, &error);
    if (!input) {
      llvm::errs() << "tessera-compile: " << error << "\n";
      return nullptr;
    }
    unsigned id = sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
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
      if (auto kernel = dyn_cast<tessera::tile::KernelOp>(op))
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

/// Writes `data` unless the file already holds it: an unchanged header keeps
/// its timestamp, so build tools need not recompile what includes it.
static LogicalResult writeFile(const std::string &path,
                               const std::string &data) {
  if (auto existing = llvm::MemoryBuffer::getFile(path))
    if ((*existing)->getBuffer() == data)
      return success();
  std::string error;
  auto output = openOutputFile(path, &error);
  if (!output) {
    llvm::errs() << "tessera-compile: " << error << "\n";
    return failure();
  }
  output->os() << data;
  output->keep();
  return success();
}

/// Writes `module` as MLIR text to the output.
static LogicalResult writeModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return writeFile(outputFile, text);
}

/// The launch metadata of `chip`'s lowering: `kernels` with the threads,
/// dynamic shared memory and tensor maps each gpu.func of `gpuCode`
/// records.
static std::vector<tessera::KernelInfo>
loweredKernelInfo(ModuleOp gpuCode,
                  const std::vector<tessera::KernelInfo> &kernels) {
  std::vector<tessera::KernelInfo> lowered = kernels;
  gpuCode.walk([&](gpu::GPUFuncOp func) {
    for (tessera::KernelInfo &info : lowered) {
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
/// (and --gpu-passes run on it), then to the LLVM dialect of the chip's
/// vendor; true when --emit=gpu or llvm has written that form instead.
static FailureOr<bool>
lowerToLlvm(ModuleOp module, StringRef chip, OwningOpRef<ModuleOp> &copy,
            const std::vector<tessera::KernelInfo> &kernels,
            std::vector<tessera::KernelInfo> &lowered) {
  copy = module.clone();
  tessera::setModuleTarget(*copy, chip);
  PassManager toGpu(module.getContext(), ModuleOp::getOperationName());
  tessera::buildTileToGPUPipeline(toGpu);
  if (!gpuPasses.empty() &&
      failed(parsePassPipeline(gpuPasses, toGpu, llvm::errs())))
    return emitError(module.getLoc())
           << "cannot parse --gpu-passes='" << gpuPasses << "'";
  if (failed(toGpu.run(*copy)))
    return failure();
  lowered = loweredKernelInfo(*copy, kernels);
  if (emit == "gpu")
    return failed(writeModule(*copy)) ? FailureOr<bool>(failure()) : true;
  PassManager toLlvm(module.getContext(), ModuleOp::getOperationName());
  if (isAmdChip(chip))
    tessera::buildGPUToROCDLPipeline(toLlvm, chip);
  else
    tessera::buildGPUToNVVMPipeline(toLlvm, chip);
  if (failed(toLlvm.run(*copy)))
    return failure();
  // NVPTX and AMDGPU both take an external zero-sized shared array as the
  // dynamic shared memory.
  tessera::makeDynamicSharedExternal(*copy);
  if (emit == "llvm")
    return failed(writeModule(*copy)) ? FailureOr<bool>(failure()) : true;
  return false;
}

namespace {
/// The emulator image (--device=emu) of one GPU target, built from the
/// optimized device IR on a thread of its own while the GPU backend, and
/// then ptxas or the linker, compile the same IR.
class EmulatorJob {
public:
  /// Starts building the image of `bitcode`.
  void start(Location loc, StringRef bitcode,
             const std::vector<tessera::KernelInfo> &kernels) {
    tessera::HostCompileOptions hostOptions;
    hostOptions.cpu = hostCpu;
    image = std::async(std::launch::async, [loc, hostOptions, kernels,
                                            bitcode = bitcode.str()] {
      return tessera::buildEmulatorImage(loc, bitcode, kernels, hostOptions);
    });
  }
  /// Waits for the image and appends it to `images` as `emu-<chip>`.
  LogicalResult finish(Location loc, StringRef chip,
                       const std::vector<tessera::KernelInfo> &kernels,
                       std::vector<tessera::TargetImage> &images) {
    if (!image.valid())
      return emitError(loc)
             << "no optimized device IR for the " << chip << " emulator image";
    FailureOr<std::string> bytes = image.get();
    if (failed(bytes))
      return failure();
    images.push_back({("emu-" + chip).str(), llvm::sys::getProcessTriple(),
                      *bytes, tessera::TargetImage::Kind::Object, kernels});
    return success();
  }

private:
  std::future<FailureOr<std::string>> image;
};
} // namespace

/// Kernel `name`'s metadata (its threads; the dynamic shared memory, LDS,
/// its buffers take).
static const tessera::KernelInfo *
findKernel(const std::vector<tessera::KernelInfo> &kernels, StringRef name) {
  for (const tessera::KernelInfo &info : kernels)
    if (info.name == name)
      return &info;
  return nullptr;
}

/// Compiles a clone of `module` for AMD `chip` and appends its HSACO and
/// emulator images; with --emit, writes that form instead and returns true.
static FailureOr<bool>
compileAmd(ModuleOp module, StringRef chip,
           const std::vector<tessera::KernelInfo> &kernels,
           std::vector<tessera::TargetImage> &images) {
  OwningOpRef<ModuleOp> copy;
  std::vector<tessera::KernelInfo> lowered;
  FailureOr<bool> done = lowerToLlvm(module, chip, copy, kernels, lowered);
  if (failed(done) || *done)
    return done;
  EmulatorJob emulator;
  std::vector<tessera::AmdKernelResources> resources;
  FailureOr<std::string> hsaco = tessera::serializeToHsaco(
      *copy, chip, lowered, raiseOccupancy, resources, [&](StringRef bitcode) {
        emulator.start(module.getLoc(), bitcode, lowered);
      });
  if (failed(hsaco))
    return failure();
  if (resourceUsage) {
    for (const tessera::AmdKernelResources &k : resources) {
      const tessera::KernelInfo *info = findKernel(lowered, k.kernel);
      int64_t shared = k.ldsBytes + (info ? info->sharedBytes : 0);
      // Occupancy is what both the registers and the LDS allow.
      int64_t byLds =
          tessera::ldsWavesPerSimd(shared, info ? info->threads : 64,
                                   tessera::lookupTarget(chip)->maxSharedBytes);
      llvm::outs() << k.kernel << " " << chip << ": VGPRs " << k.vgprs
                   << ", AGPRs " << k.agprs << ", SGPRs " << k.sgprs
                   << ", spills " << k.vgprSpills << " VGPRs " << k.sgprSpills
                   << " SGPRs, scratch " << k.scratchBytes << " bytes, LDS "
                   << shared << " bytes, occupancy "
                   << std::min(k.wavesPerSimd, byLds)
                   << " waves/SIMD (registers " << k.wavesPerSimd << ", LDS "
                   << byLds << ")\n";
    }
  }
  images.push_back({chip.str(), "amdgcn-amd-amdhsa", *hsaco,
                    tessera::TargetImage::Kind::Hsaco, lowered});
  if (failed(emulator.finish(module.getLoc(), chip, lowered, images)))
    return failure();
  return false;
}

/// Compiles a clone of `module` for NVIDIA `chip` and appends its cubin and
/// PTX images; with --emit, writes that form instead and returns true.
static FailureOr<bool>
compileNvidia(ModuleOp module, StringRef chip,
              const std::vector<tessera::KernelInfo> &kernels,
              std::vector<tessera::TargetImage> &images) {
  OwningOpRef<ModuleOp> copy;
  std::vector<tessera::KernelInfo> lowered;
  FailureOr<bool> done = lowerToLlvm(module, chip, copy, kernels, lowered);
  if (failed(done) || *done)
    return done;
  // --emit=ptx needs no emulator image.
  EmulatorJob emulator;
  FailureOr<std::string> ptx =
      tessera::serializeToPtx(*copy, [&](StringRef bitcode) {
        if (emit.empty())
          emulator.start(module.getLoc(), bitcode, lowered);
      });
  if (failed(ptx))
    return failure();
  std::string triple = "nvptx64-nvidia-cuda";
  std::string ptxas = ptxasPath.empty() ? tessera::getDefaultPtxas().str()
                                        : ptxasPath.getValue();
  if (emit == "ptx") {
    // The PTX the bundle would hold: with the occupancy directives that
    // assembling it keeps (which needs ptxas).
    std::vector<tessera::KernelResources> resources;
    if (!ptxas.empty() && raiseOccupancy &&
        failed(tessera::assembleCubin(module.getLoc(), *ptx, chip, ptxas,
                                      lowered, raiseOccupancy, resources)))
      return failure();
    return failed(writeFile(outputFile, *ptx)) ? FailureOr<bool>(failure())
                                               : true;
  }
  if (ptxas.empty()) {
    // The PTX and the emulator image need no toolkit; the cubin does.
    emitWarning(module.getLoc())
        << "no ptxas (this build found no CUDA toolkit; pass --ptxas=PATH): "
        << "the bundle holds " << chip
        << " PTX and the emulator image, no cubin";
    if (resourceUsage)
      return emitError(module.getLoc()) << "--resource-usage needs ptxas";
  } else {
    std::vector<tessera::KernelResources> resources;
    FailureOr<std::string> cubin = tessera::assembleCubin(
        module.getLoc(), *ptx, chip, ptxas, lowered, raiseOccupancy, resources);
    if (failed(cubin))
      return failure();
    if (resourceUsage)
      for (const tessera::KernelResources &k : resources) {
        const tessera::KernelInfo *info = findKernel(lowered, k.kernel);
        int64_t shared = (info ? info->sharedBytes : 0) + k.sharedBytes;
        llvm::outs() << k.kernel << " " << chip << ": registers "
                     << k.registers;
        // A warp-specialized kernel's roles switch to their own budgets
        // (where they run on warps of their own).
        if (auto kernel =
                module.lookupSymbol<tessera::tile::KernelOp>(k.kernel);
            kernel && tessera::lookupTarget(chip)->runsRoles())
          for (auto roles : kernel.getBody()
                                .front()
                                .getOps<tessera::tile::WarpSpecializeOp>())
            llvm::outs() << " (setmaxnreg: producer "
                         << roles.getProducerRegisters() << " x "
                         << tessera::tile::kProducerThreads
                         << " threads, consumers "
                         << roles.getConsumerRegisters() << " x "
                         << kernel.getThreads() * roles.getConsumerGroups()
                         << ")";
        llvm::outs() << ", spill stores " << k.spillStoreBytes
                     << " bytes, spill loads " << k.spillLoadBytes
                     << " bytes, stack " << k.stackBytes << " bytes, shared "
                     << shared << " bytes";
        if (const std::optional<tessera::Occupancy> &o = k.occupancy)
          llvm::outs() << ", occupancy " << o->blocks
                       << " blocks/SM (registers " << o->byRegisters
                       << ", shared memory " << o->bySharedMemory << ", warps "
                       << o->byWarps << ")";
        llvm::outs() << "\n";
      }
    images.push_back({chip.str(), triple, *cubin,
                      tessera::TargetImage::Kind::Cubin, lowered});
  }
  images.push_back(
      {chip.str(), triple, *ptx, tessera::TargetImage::Kind::Ptx, lowered});
  // The same device code for the runtime's emulator (--device=emu).
  if (failed(emulator.finish(module.getLoc(), chip, lowered, images)))
    return failure();
  return false;
}

static LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sources) {
  OwningOpRef<ModuleOp> module = parseInputs(context, sources);
  if (!module)
    return failure();
  std::vector<std::string> gpuTargets;
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
    return emitError(module->getLoc())
           << "unknown target '" << target
           << "'; known targets: " << tessera::listTargets();
  }
  if (!emit.empty()) {
    if (!llvm::is_contained({"gpu", "llvm", "ptx"}, emit.getValue()))
      return emitError(module->getLoc())
             << "unknown --emit='" << emit << "'; use gpu, llvm or ptx";
    if (gpuTargets.size() != 1 || targets.size() != 1)
      return emitError(module->getLoc())
             << "--emit=" << emit << " needs exactly one GPU target";
    if (emit == "ptx" && isAmdChip(gpuTargets.front()))
      return emitError(module->getLoc())
             << "--emit=ptx needs an NVIDIA target, not " << gpuTargets.front();
  }
  if (module->getOps<tessera::tile::KernelOp>().empty())
    return emitError(module->getLoc()) << "no tile.kernel to compile";
  PassManager pm(&context, ModuleOp::getOperationName());
  // Counting scf.while loops become scf.for, which the checker and the
  // lowerings handle.
  pm.addPass(tessera::createTileUpliftWhile());
  if (!passes.empty() && failed(parsePassPipeline(passes, pm, llvm::errs())))
    return emitError(module->getLoc())
           << "cannot parse --passes='" << passes << "'";
  // Kernels that ask to be persistent (tile.persistent) and that the
  // passes did not make so: after the requested passes, which may have to
  // run first (tile-pipeline{warp-specialize}, tile-stage-stores).
  pm.addPass(tessera::createTilePersistent());
  // No target has integer powers: every one computes them alike.
  pm.addPass(tessera::createTileExpandPowers());
  // One target: the passes work for it (its shared memory, its latency
  // model). Several: they work for the GPU target with the least shared
  // memory (pipelines that fit it fit the others), and tag-check holds the
  // kernels to that smallest shared memory.
  const tessera::TargetInfo *governing = nullptr;
  for (const std::string &target : targets) {
    const tessera::TargetInfo *info = tessera::lookupTarget(target);
    if (targets.size() == 1 ||
        (info->isGpu() &&
         (!governing || info->maxSharedBytes < governing->maxSharedBytes)))
      governing = info;
  }
  if (governing)
    tessera::setModuleTarget(*module, governing->chip);
  int64_t sharedLimit = 0;
  for (const std::string &target : targets) {
    int64_t bytes = tessera::lookupTarget(target)->maxSharedBytes;
    sharedLimit = sharedLimit ? std::min(sharedLimit, bytes) : bytes;
  }
  if (!noTagCheck) {
    tessera::TagCheckOptions check;
    if (targets.size() > 1)
      check.maxSharedBytes = sharedLimit;
    check.rlimit = tagCheckRlimit;
    pm.addPass(tessera::createTagCheck(check));
  }
  if (failed(pm.run(*module)))
    return failure();

  std::vector<tessera::KernelInfo> kernels =
      tessera::collectKernelInfo(*module);
  std::vector<tessera::TargetImage> images;
  if (llvm::is_contained(targets, "host")) {
    OwningOpRef<ModuleOp> copy = module->clone();
    tessera::HostCompileOptions options;
    options.cpu = hostCpu;
    FailureOr<std::string> object =
        tessera::compileToHostSharedObject(*copy, options);
    if (failed(object))
      return failure();
    images.push_back({"host", llvm::sys::getProcessTriple(), *object});
  }
  for (const std::string &chip : gpuTargets) {
    FailureOr<bool> done = isAmdChip(chip)
                               ? compileAmd(*module, chip, kernels, images)
                               : compileNvidia(*module, chip, kernels, images);
    if (failed(done))
      return failure();
    if (*done) // --emit wrote its form
      return success();
  }

  std::string bundle = tessera::writeBundle(kernels, images);
  if (failed(writeFile(outputFile, bundle)))
    return failure();
  std::string source = llvm::sys::path::filename(inputFiles.front()).str();
  if (!emitHeader.empty() &&
      failed(writeFile(emitHeader, tessera::writeLaunchHeader(
                                       kernels, headerNamespace, source,
                                       /*embedded=*/!emitEmbed.empty()))))
    return failure();
  if (!emitEmbed.empty() &&
      failed(writeFile(emitEmbed, tessera::writeEmbeddedBundle(
                                      bundle, headerNamespace, source))))
    return failure();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Every LLVM target registers itself now, before the emulator images'
  // threads look the host's up while the main thread compiles for a GPU.
  llvm::InitializeAllTargetInfos();
  llvm::InitializeAllTargets();
  llvm::InitializeAllTargetMCs();
  llvm::InitializeAllAsmPrinters();
  tessera::registerAllPasses();
#ifdef TESSERA_INCLUDE_TESTS
  tessera::test::registerTestPasses();
#endif
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Tessera kernel compiler: tile kernels to a "
                              "multi-target bundle\n");
  return tessera::runWithLargeStack([] {
    DialectRegistry registry;
    tessera::registerAllDialects(registry);
    MLIRContext context(registry);
    context.loadAllAvailableDialects();
    // Diagnostics point into the source; the pass pipeline's view of the
    // whole kernel would bury them.
    context.printOpOnDiagnostic(false);
    llvm::SourceMgr sources;
    SourceMgrDiagnosticHandler handler(sources, &context);
    return failed(compile(context, sources)) ? 1 : 0;
  });
}
