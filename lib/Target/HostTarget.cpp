//===- HostTarget.cpp - Tile kernels to a host shared object ----*- C++ -*-===//
//
// Lowers to the LLVM dialect, translates in process, optimizes with LLVM's
// O3 pipeline for the host CPU, emits an object and links it into a shared
// object with ld.lld. The output depends only on the input and options.
//
//===----------------------------------------------------------------------===//

#include "tessera/Target/HostTarget.h"

#include "TempFile.h"

#include "tessera/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
using namespace tessera;

void tessera::buildHostLoweringPipeline(OpPassManager &pm) {
  pm.addPass(createConvertTileToHost());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createLowerAffinePass());
  // Arithmetic and math on f16 and bf16 in f32, whose conversions the
  // expansion below makes bit operations (the host image has no
  // compiler-rt for x86-64's f16 and bf16 libcalls).
  pm.addPass(math::createMathExtendToSupportedTypes());
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"f16", "bf16"};
  emulate.targetTypeStr = "f32";
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  // No division may trap (SIGFPE) on a divisor the caller passes.
  pm.addPass(createDefineIntegerDivision());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  // What has no LLVM intrinsic (erf, atan2, cbrt, ...) calls libm.
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

std::unique_ptr<llvm::TargetMachine>
tessera::createHostTargetMachine(Location loc,
                                 const HostCompileOptions &options) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::string triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target) {
    emitError(loc) << "no LLVM target for the host: " << error;
    return nullptr;
  }
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), options.cpu, "", targetOptions, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    emitError(loc) << "cannot create a target machine for cpu '" << options.cpu
                   << "'";
  return machine;
}

FailureOr<std::string> tessera::linkHostSharedObject(
    Location loc, llvm::Module &llvmModule, llvm::TargetMachine &machine,
    const HostCompileOptions &options, ArrayRef<std::string> libraries) {
  TempFile object, shared;
  if (llvm::sys::fs::createTemporaryFile("tessera", "o", object.path) ||
      llvm::sys::fs::createTemporaryFile("tessera", "so", shared.path))
    return emitError(loc) << "cannot create temporary files";
  {
    std::error_code ec;
    llvm::raw_fd_ostream out(object.path, ec);
    if (ec)
      return emitError(loc)
             << "cannot write " << object.path << ": " << ec.message();
    llvm::legacy::PassManager codegen;
    if (machine.addPassesToEmitFile(codegen, out, nullptr,
                                    llvm::CodeGenFileType::ObjectFile))
      return emitError(loc) << "the host target cannot emit objects";
    codegen.run(llvmModule);
  }

  std::string linker = options.linker;
  if (linker.empty())
    linker = TESSERA_DEFAULT_LINKER;
  llvm::SmallVector<llvm::StringRef> argv = {
      linker, "-shared", "--hash-style=gnu", "-o", shared.path, object.path};
  for (const std::string &library : libraries)
    argv.push_back(library);
  std::string message;
  if (llvm::sys::ExecuteAndWait(linker, argv, std::nullopt, {}, 0, 0,
                                &message) != 0)
    return emitError(loc) << "linking the host shared object with '" << linker
                          << "' failed" << (message.empty() ? "" : ": ")
                          << message;
  auto buffer = llvm::MemoryBuffer::getFile(shared.path);
  if (!buffer)
    return emitError(loc) << "cannot read the linked shared object";
  return (*buffer)->getBuffer().str();
}

FailureOr<std::string>
tessera::compileToHostSharedObject(ModuleOp module,
                                   const HostCompileOptions &options) {
  Location loc = module.getLoc();
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  buildHostLoweringPipeline(pm);
  if (failed(pm.run(module)))
    return failure();

  std::unique_ptr<llvm::TargetMachine> machine =
      createHostTargetMachine(loc, options);
  if (!machine)
    return failure();
  registerBuiltinDialectTranslation(*module.getContext());
  registerLLVMDialectTranslation(*module.getContext());
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext, "tessera_kernels");
  if (!llvmModule)
    return emitError(loc) << "translation to LLVM IR failed";
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());
  if (llvm::Error err =
          makeOptimizingTransformer(3, 0, machine.get())(llvmModule.get()))
    return emitError(loc) << "LLVM optimization failed: "
                          << llvm::toString(std::move(err));
  return linkHostSharedObject(loc, *llvmModule, *machine, options, {});
}
