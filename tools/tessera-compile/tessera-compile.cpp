//===- tessera-compile.cpp - Compile tile kernels into a bundle -*- C++ -*-===//
//
//   tessera-compile k.mlir --target=host -o k.bundle
//
// Verifies the kernels, proves their tag invariants (unless --no-tag-check),
// compiles them for every requested target and writes one bundle file (see
// tessera/Target/Bundle.h). The output is byte-identical for identical
// inputs and options.
//
//===----------------------------------------------------------------------===//

#include "tessera/InitAllTessera.h"
#include "tessera/Target/Bundle.h"
#include "tessera/Target/HostTarget.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<kernels.mlir>"), cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("Output bundle"),
                                       cl::value_desc("file"), cl::Required);
static cl::list<std::string>
    targets("target", cl::desc("Targets: host, sm_80, sm_90a, gfx90a, gfx942"),
            cl::CommaSeparated, cl::OneOrMore);
static cl::opt<bool> noTagCheck("no-tag-check",
                                cl::desc("Skip proving the tag invariants"));
static cl::opt<std::string>
    emitHeader("emit-header",
               cl::desc("Also write a C++ header of typed launch functions"),
               cl::value_desc("file"));
static cl::opt<std::string>
    headerNamespace("header-namespace",
                    cl::desc("Namespace of the generated header"),
                    cl::init("tessera_kernels"));
static cl::opt<std::string> hostCpu("host-cpu",
                                    cl::desc("CPU the host code may assume"),
                                    cl::init("x86-64-v3"));

static LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sources) {
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sources, ParserConfig(&context));
  if (!module)
    return failure();
  for (const std::string &target : targets) {
    if (target == "host")
      continue;
    if (llvm::is_contained({"sm_80", "sm_90a", "gfx90a", "gfx942"}, target))
      return emitError(module->getLoc())
             << "target '" << target
             << "' is not supported by this build yet; use --target=host";
    return emitError(module->getLoc())
           << "unknown target '" << target
           << "'; known targets: host, sm_80, sm_90a, gfx90a, gfx942";
  }
  if (module->getOps<tessera::tile::KernelOp>().empty())
    return emitError(module->getLoc()) << "no tile.kernel to compile";
  if (!noTagCheck) {
    PassManager pm(&context, ModuleOp::getOperationName());
    if (failed(parsePassPipeline("tag-check", pm)) || failed(pm.run(*module)))
      return failure();
  }
  std::vector<tessera::KernelInfo> kernels =
      tessera::collectKernelInfo(*module);
  std::vector<tessera::TargetImage> images;
  for (const std::string &target : targets) {
    (void)target; // only host so far
    OwningOpRef<ModuleOp> copy = module->clone();
    tessera::HostCompileOptions options;
    options.cpu = hostCpu;
    FailureOr<std::string> object =
        tessera::compileToHostSharedObject(*copy, options);
    if (failed(object))
      return failure();
    images.push_back({"host", llvm::sys::getProcessTriple(), *object});
  }
  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "tessera-compile: " << error << "\n";
    return failure();
  }
  output->os() << tessera::writeBundle(kernels, images);
  output->keep();
  if (!emitHeader.empty()) {
    auto header = openOutputFile(emitHeader, &error);
    if (!header) {
      llvm::errs() << "tessera-compile: " << error << "\n";
      return failure();
    }
    header->os() << tessera::writeLaunchHeader(
        kernels, headerNamespace,
        llvm::sys::path::filename(inputFile.getValue()));
    header->keep();
  }
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tessera::registerAllPasses();
  cl::ParseCommandLineOptions(argc, argv,
                              "Tessera kernel compiler: tile kernels to a "
                              "multi-target bundle\n");
  DialectRegistry registry;
  tessera::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "tessera-compile: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sources, &context);
  return failed(compile(context, sources)) ? 1 : 0;
}
