//===- tessera-compile.cpp - Compile tile kernels into a bundle -*- C++ -*-===//
//
//   tessera-compile a.mlir [b.mlir...] --target=host[,sm_80,sm_90a,gfx942,
//       gfx90a] -o k.bundle
//       [--emit-header=k.h] [--emit-embed=k.cpp] [--passes=PIPELINE]
//       [--no-tag-check] [--tag-check-rlimit=N] [--emit=gpu|llvm|ptx]
//       [--resource-usage]
//       [--ptxas=PATH] [--raise-occupancy=false] [--gpu-passes=PIPELINE]
//
// A command-line shell over tessera/Compiler/Compiler.h: verifies the
// kernels of all inputs, runs the requested passes, proves the tag
// invariants (unless --no-tag-check), compiles the kernels for every target
// and writes one bundle file (see tessera/Target/Bundle.h), plus a C++
// header of typed launch functions and a C++ source embedding the bundle
// when asked. The output is byte-identical for identical inputs and
// options.
//
//===----------------------------------------------------------------------===//

#include "tessera/Compiler/Compiler.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

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

/// --print-targets: one line per target this build compiles for, with the
/// images it gives. Build scripts check TARGETS against it at configure
/// time.
static void printTargets(const bool &) {
  llvm::outs() << tessera::describeTargets(ptxasPath);
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

static LogicalResult compile() {
  std::vector<tessera::CompileInput> inputs;
  for (const std::string &file : inputFiles) {
    std::string error;
    std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(file, &error);
    if (!input) {
      llvm::errs() << "tessera-compile: " << error << "\n";
      return failure();
    }
    inputs.push_back(
        {input->getBufferIdentifier().str(), input->getBuffer().str()});
  }
  tessera::CompileOptions options;
  options.targets = targets;
  options.passes = passes;
  options.gpuPasses = gpuPasses;
  options.tagCheck = !noTagCheck;
  options.tagCheckRlimit = tagCheckRlimit;
  options.emit = emit;
  options.resourceUsage = resourceUsage;
  options.raiseOccupancy = raiseOccupancy;
  options.ptxas = ptxasPath;
  options.hostCpu = hostCpu;
  tessera::CompileResult result;
  LogicalResult compiled =
      tessera::compileKernels(inputs, options, result, llvm::errs());
  llvm::outs() << result.resourceUsage;
  llvm::outs().flush();
  if (failed(compiled))
    return failure();
  if (failed(writeFile(outputFile, result.output)))
    return failure();
  if (!emit.empty())
    return success();
  std::string source = llvm::sys::path::filename(inputFiles.front()).str();
  if (!emitHeader.empty() &&
      failed(writeFile(emitHeader, tessera::writeLaunchHeader(
                                       result.kernels, headerNamespace, source,
                                       /*embedded=*/!emitEmbed.empty()))))
    return failure();
  if (!emitEmbed.empty() &&
      failed(writeFile(emitEmbed, tessera::writeEmbeddedBundle(
                                      result.output, headerNamespace, source))))
    return failure();
  return success();
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  tessera::initializeCompiler();
#ifdef TESSERA_INCLUDE_TESTS
  tessera::test::registerTestPasses();
#endif
  cl::HideUnrelatedOptions(compileCategory);
  cl::ParseCommandLineOptions(argc, argv,
                              "Tessera kernel compiler: tile kernels to a "
                              "multi-target bundle\n");
  return failed(compile()) ? 1 : 0;
}
