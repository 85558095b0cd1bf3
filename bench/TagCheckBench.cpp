//===- TagCheckBench.cpp - Times the tag checker per kernel -----*- C++ -*-===//
//
// For every kernel in the given .mlir files (chunks separated by
// `// -----` are checked one by one, like --split-input-file), runs the
// checker several times and prints the median time and how its assertions
// were decided: structurally, by Z3, or refuted (mutants are expected to
// fail). Usage: tessera-bench-tagcheck [--runs=N] file.mlir...
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/InitAllTessera.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <vector>

using namespace mlir;

static llvm::cl::list<std::string> inputs(llvm::cl::Positional,
                                          llvm::cl::desc("<file.mlir>..."),
                                          llvm::cl::OneOrMore);
static llvm::cl::opt<unsigned> runs("runs", llvm::cl::desc("Runs per kernel"),
                                    llvm::cl::init(7));

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "tag-check benchmark\n");
  DialectRegistry registry;
  tessera::registerAllDialects(registry);
  MLIRContext context(registry);
  // Mutants fail on purpose; their diagnostics are not the point here.
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) {});

  llvm::outs() << llvm::format("%-44s %10s %7s %5s %7s\n", "kernel",
                               "median ms", "struct", "z3", "failed");
  for (const std::string &file : inputs) {
    auto buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      llvm::errs() << "cannot read " << file << "\n";
      return 1;
    }
    llvm::SmallVector<llvm::StringRef> chunks;
    (*buffer)->getBuffer().split(chunks, "// -----");
    for (llvm::StringRef chunk : chunks) {
      OwningOpRef<ModuleOp> module =
          parseSourceString<ModuleOp>(chunk, ParserConfig(&context));
      if (!module)
        continue;
      module->walk([&](tessera::tile::KernelOp kernel) {
        tessera::analysis::TagCheckOptions options;
        tessera::analysis::TagCheckSession session(&context, options);
        tessera::analysis::TagCheckStats stats;
        std::vector<double> times;
        for (unsigned i = 0; i < runs; ++i) {
          stats = {};
          auto start = std::chrono::steady_clock::now();
          (void)session.checkKernel(kernel, stats);
          times.push_back(std::chrono::duration<double, std::milli>(
                              std::chrono::steady_clock::now() - start)
                              .count());
        }
        std::sort(times.begin(), times.end());
        std::string name =
            (llvm::sys::path::filename(file) + ":@" + kernel.getSymName())
                .str();
        llvm::outs() << llvm::format(
            "%-44s %10.2f %7u %5u %7u\n", name.c_str(), times[times.size() / 2],
            stats.provedStructurally, stats.provedBySolver, stats.failed);
      });
    }
  }
  return 0;
}
