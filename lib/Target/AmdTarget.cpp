//===- AmdTarget.cpp - Tile kernels to AMD HSACO --------------------------===//
//
// Upstream's ROCDL lowering (math through ocml, linked from ROCm's device
// libraries) and LLVM optimization, then the AMDGPU backend and ld.lld for
// the code object, and the kernels' resources from the code object's
// msgpack metadata.
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/AmdTarget.h"
#include "DeviceLibraries.h"
#include "tessera/Target/HostTarget.h"
#include "tessera/Target/OccupancyGoals.h"
#include "tessera/Target/TargetInfo.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace tessera;

static constexpr llvm::StringLiteral kAmdTriple = "amdgcn-amd-amdhsa";

void tessera::buildGPUToROCDLPipeline(OpPassManager &pm, StringRef chip) {
  GpuROCDLAttachTargetOptions attach;
  attach.chip = chip.str();
  attach.optLevel = 3;
  // Code object v5: what ROCm 5.x and 6.x runtimes load.
  attach.abiVersion = "500";
  pm.addPass(createGpuROCDLAttachTarget(attach));
  // Math on scalars becomes ocml calls (a module pass: it runs before the
  // GPU modules' own pipeline).
  ConvertMathToROCDLOptions math;
  math.chipset = chip.str();
  pm.addPass(createConvertMathToROCDL(math));
  OpPassManager &gpu = pm.nest<gpu::GPUModuleOp>();
  ConvertAMDGPUToROCDLPassOptions amdgpu;
  amdgpu.chipset = chip.str();
  gpu.addPass(createConvertAMDGPUToROCDLPass(amdgpu));
  gpu.addPass(createConvertVectorToSCFPass());
  gpu.addPass(createSCFToControlFlowPass());
  gpu.addPass(memref::createExpandStridedMetadataPass());
  gpu.addPass(createLowerAffinePass());
  // Vector ops go with the GPU ops: converting them first leaves LDS
  // memrefs unconverted.
  ConvertGpuOpsToROCDLOpsOptions rocdl;
  rocdl.chipset = chip.str();
  rocdl.runtime = gpu::amd::Runtime::HIP;
  gpu.addPass(createConvertGpuOpsToROCDLOps(rocdl));
  // n-D vectors and strided slices (MFMA operands) need their own patterns.
  gpu.addPass(createConvertVectorToLLVMPass());
  gpu.addPass(createUBToLLVMConversionPass());
  gpu.addPass(createCanonicalizerPass());
  gpu.addPass(createCSEPass());
  gpu.addPass(createReconcileUnrealizedCastsPass());
  // The device code's instructions keep the kernel source's lines (a DWARF
  // line table in the code object), which debuggers and the emulator's
  // reports show.
  LLVM::DIScopeForLLVMFuncOpPassOptions lines;
  lines.emissionKind = LLVM::DIEmissionKind::LineTablesOnly;
  pm.addPass(LLVM::createDIScopeForLLVMFuncOpPass(lines));
}

/// Compiles the optimized device IR `bitcode` for `chip` and links the code
/// object, the kernels in `waves` asked for at least that many waves per
/// SIMD ("amdgpu-waves-per-eu": the backend then keeps their registers
/// within what that many waves leave).
static FailureOr<std::string>
compileHsaco(Location loc, StringRef bitcode, StringRef chip,
             const llvm::StringMap<int64_t> &waves) {
  llvm::LLVMContext context;
  auto parsed = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "device.bc"), context);
  if (!parsed)
    return emitError(loc) << "cannot read the optimized device IR: "
                          << llvm::toString(parsed.takeError());
  std::unique_ptr<llvm::Module> llvmModule = std::move(*parsed);
  for (const auto &[name, goal] : waves)
    if (llvm::Function *f = llvmModule->getFunction(name))
      f->addFnAttr("amdgpu-waves-per-eu", std::to_string(goal));
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTarget();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUAsmPrinter();
  llvm::Triple triple(kAmdTriple);
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc) << "this LLVM has no AMDGPU target: " << error;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, chip, "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(loc) << "cannot create an AMDGPU target machine for "
                          << chip;
  FailureOr<std::string> hsaco =
      linkHostSharedObject(loc, *llvmModule, *machine, {}, {});
  if (failed(hsaco))
    return failure();
  if (!StringRef(*hsaco).starts_with("\x7f"
                                     "ELF"))
    return emitError(loc) << "linking produced no HSA code object";
  return hsaco;
}

std::optional<int64_t> tessera::amdOccupancyGoal(int64_t registers,
                                                 int64_t byRegisters,
                                                 int64_t byLds) {
  int64_t goal = byRegisters + 1;
  if (byRegisters <= 0 || goal > std::min<int64_t>(byLds, 8))
    return std::nullopt;
  // What `goal` waves leave each lane of the 512 (unified VGPRs and AGPRs,
  // granules of 8): a goal that takes more than a fifth of the registers
  // would spill.
  int64_t budget = 512 / goal / 8 * 8;
  if (5 * budget < 4 * registers)
    return std::nullopt;
  return goal;
}

static const AmdKernelResources *
findResources(const std::vector<AmdKernelResources> &all, StringRef name) {
  for (const AmdKernelResources &k : all)
    if (k.kernel == name)
      return &k;
  return nullptr;
}

FailureOr<std::string>
tessera::serializeToHsaco(ModuleOp module, StringRef chip,
                          ArrayRef<KernelInfo> kernels, bool raiseOccupancy,
                          std::vector<AmdKernelResources> &resources,
                          llvm::function_ref<void(StringRef)> withOptimizedIR) {
  Location loc = module.getLoc();
  // Upstream's serializer gives the optimized module (its offload format);
  // the AMDGPU backend then compiles it (as llc -O3 would: the same code as
  // upstream's own binary format) and ld.lld links the code object, so no
  // ROCm toolkit directory is needed.
  // Math calls ocml, which the serializer links from the device libraries.
  if (failed(checkDeviceLibrary(module, /*amd=*/true)))
    return failure();
  defineIsaVersion(module, chip);
  std::string deviceLibs = rocmDeviceLibsPath();
  gpu::TargetOptions options(deviceLibs, {}, {}, {},
                             gpu::CompilationTarget::Offload);
  if (failed(gpu::transformGpuModulesToBinaries(module, nullptr, options)))
    return failure();
  std::string bitcode;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      bitcode += cast<gpu::ObjectAttr>(object).getObject().getValue();
  });
  if (withOptimizedIR)
    withOptimizedIR(bitcode);
  FailureOr<std::string> hsaco = compileHsaco(loc, bitcode, chip, {});
  if (failed(hsaco))
    return failure();
  auto read = readHsacoResources(loc, *hsaco);
  if (failed(read))
    return failure();
  resources = std::move(*read);
  // Each kernel's waves per SIMD by its LDS: the launch's (dynamic) and
  // the code object's (static).
  int64_t ldsPerCu = lookupTarget(chip)->maxSharedBytes;
  llvm::StringMap<int64_t> goals;
  if (raiseOccupancy)
    for (const KernelInfo &info : kernels)
      if (const AmdKernelResources *k = findResources(resources, info.name))
        if (std::optional<int64_t> goal =
                amdOccupancyGoal(k->vgprs, k->wavesPerSimd,
                                 ldsWavesPerSimd(info.sharedBytes + k->ldsBytes,
                                                 info.threads, ldsPerCu)))
          goals[info.name] = *goal;
  // Ask for the goals; keep those the backend met without new spills or
  // scratch, and compile again with only those if some were missed.
  struct Raised {
    std::string hsaco;
    std::vector<AmdKernelResources> resources;
  };
  auto compile =
      [&](const llvm::StringMap<int64_t> &asked) -> FailureOr<Raised> {
    FailureOr<std::string> raised = compileHsaco(loc, bitcode, chip, asked);
    if (failed(raised))
      return failure();
    auto after = readHsacoResources(loc, *raised);
    if (failed(after))
      return failure();
    return Raised{std::move(*raised), std::move(*after)};
  };
  auto met = [&](Raised &raised, StringRef name, int64_t goal) {
    const AmdKernelResources *was = findResources(resources, name);
    const AmdKernelResources *now = findResources(raised.resources, name);
    return was && now && now->wavesPerSimd >= goal &&
           now->vgprSpills <= was->vgprSpills &&
           now->sgprSpills <= was->sgprSpills &&
           now->scratchBytes <= was->scratchBytes;
  };
  FailureOr<std::optional<Raised>> raised =
      compileForGoals<Raised>(std::move(goals), compile, met);
  if (failed(raised))
    return failure();
  if (*raised) {
    resources = std::move((*raised)->resources);
    hsaco = std::move((*raised)->hsaco);
  }
  return hsaco;
}

FailureOr<std::vector<AmdKernelResources>>
tessera::readHsacoResources(Location loc, StringRef hsaco) {
  auto object = llvm::object::ELF64LEObjectFile::create(
      llvm::MemoryBufferRef(hsaco, "hsaco"));
  if (!object) {
    llvm::consumeError(object.takeError());
    return emitError(loc) << "the HSA code object is not a 64-bit ELF file";
  }
  const llvm::object::ELF64LEFile &elf = object->getELFFile();
  auto headers = elf.program_headers();
  if (!headers) {
    llvm::consumeError(headers.takeError());
    return emitError(loc) << "the HSA code object has no program headers";
  }
  llvm::msgpack::Document doc;
  bool found = false;
  for (const auto &header : *headers) {
    if (header.p_type != llvm::ELF::PT_NOTE)
      continue;
    llvm::Error error = llvm::Error::success();
    for (const auto &note : elf.notes(header, error))
      if (note.getType() == llvm::ELF::NT_AMDGPU_METADATA &&
          note.getName() == "AMDGPU") {
        ArrayRef<uint8_t> desc = note.getDesc(header.p_align);
        found = doc.readFromBlob(
            StringRef(reinterpret_cast<const char *>(desc.data()), desc.size()),
            /*Multi=*/false);
      }
    llvm::consumeError(std::move(error));
  }
  if (!found)
    return emitError(loc) << "the HSA code object has no AMDGPU metadata";
  std::vector<AmdKernelResources> kernels;
  llvm::msgpack::MapDocNode root = doc.getRoot().getMap();
  for (llvm::msgpack::DocNode &node : root["amdhsa.kernels"].getArray()) {
    llvm::msgpack::MapDocNode kernel = node.getMap();
    auto number = [&](StringRef key) -> int64_t {
      llvm::msgpack::DocNode &value = kernel[key];
      if (value.getKind() == llvm::msgpack::Type::UInt)
        return int64_t(value.getUInt());
      if (value.getKind() == llvm::msgpack::Type::Int)
        return value.getInt();
      return 0;
    };
    AmdKernelResources k;
    k.kernel = kernel[".name"].getString().str();
    k.vgprs = number(".vgpr_count");
    k.agprs = number(".agpr_count");
    k.sgprs = number(".sgpr_count");
    k.vgprSpills = number(".vgpr_spill_count");
    k.sgprSpills = number(".sgpr_spill_count");
    k.ldsBytes = number(".group_segment_fixed_size");
    k.scratchBytes = number(".private_segment_fixed_size");
    // CDNA2/3: .vgpr_count is the unified count (arch VGPRs and AGPRs) the
    // wave allocates from 512 per SIMD lane, in granules of 8; 8 waves per
    // SIMD at most.
    int64_t granules = std::max<int64_t>(8, llvm::alignTo(k.vgprs, 8));
    k.wavesPerSimd = std::min<int64_t>(8, 512 / granules);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

int64_t tessera::ldsWavesPerSimd(int64_t ldsBytes, int64_t threads,
                                 int64_t ldsPerCu) {
  constexpr int64_t kMaxWaves = 8, kSimds = 4, kGranule = 512;
  if (ldsBytes <= 0)
    return kMaxWaves;
  int64_t groups = ldsPerCu / int64_t(llvm::alignTo(ldsBytes, kGranule));
  int64_t waves = groups * int64_t(llvm::divideCeil(threads, 64));
  return std::min(kMaxWaves, int64_t(llvm::divideCeil(waves, kSimds)));
}
