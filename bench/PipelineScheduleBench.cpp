//===- PipelineScheduleBench.cpp - Solver vs heuristic schedules -*- C++
//-*-===//
//
// For every `tile.pipeline` loop of the given kernels and each chip: the
// initiation interval (cycles of the chip's model) of the heuristic
// schedule (greedy, all the policy's stages) and of the Z3 modulo scheduler
// (least II, then fewest stages within the shared-memory capacity), their
// ratio, the resource lower bound, and the solver's median time.
// Usage: tessera-bench-schedule [--runs=N] file.mlir...
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/InitAllTessera.h"
#include "tessera/Transforms/PipelineModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <vector>

using namespace mlir;
using namespace tessera;

static llvm::cl::list<std::string> inputs(llvm::cl::Positional,
                                          llvm::cl::desc("<file.mlir>..."),
                                          llvm::cl::OneOrMore);
static llvm::cl::opt<unsigned>
    runs("runs", llvm::cl::desc("Solver runs per loop"), llvm::cl::init(5));

int main(int argc, char **argv) {
  llvm::cl::ParseCommandLineOptions(argc, argv, "modulo schedule benchmark\n");
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);

  llvm::outs() << llvm::format("%-26s %-5s %-7s %6s %9s %9s %7s %7s %9s\n",
                               "kernel", "loop", "chip", "ResMII", "heur II/S",
                               "solv II/S", "ratio", "solv ms", "heur fits");
  for (const std::string &file : inputs) {
    OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(file, &context);
    if (!module) {
      llvm::errs() << "cannot parse " << file << "\n";
      return 1;
    }
    std::string name = llvm::sys::path::stem(file).str();
    for (const char *chip : {"sm_80", "sm_90a", "gfx942"}) {
      LatencyModel model = *getLatencyModel(chip);
      int64_t capacity = analysis::getMaxSharedBytes(chip);
      int loopIndex = 0;
      module->walk([&](scf::ForOp loop) {
        if (!loop->hasAttr("tile.pipeline"))
          return;
        ModuloProblem problem = buildModuloProblem(loop, model);
        std::optional<ModuloSchedule> greedy =
            scheduleGreedily(problem, problem.maxStages);
        bool greedyFits = problem.maxStages * problem.ringSlotBytes +
                              problem.otherSharedBytes <=
                          capacity;
        std::vector<double> ms;
        ModuloSolverOutcome outcome;
        for (unsigned run = 0; run < runs; ++run) {
          auto start = std::chrono::steady_clock::now();
          outcome = scheduleWithSolver(problem, {capacity, 0, 10000000});
          ms.push_back(std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - start)
                           .count());
        }
        std::sort(ms.begin(), ms.end());
        auto cell = [](const std::optional<ModuloSchedule> &s) {
          return s ? llvm::formatv("{0}/{1}", s->ii, s->depth).str()
                   : std::string("none");
        };
        std::string ratio = "-";
        if (greedy && outcome.schedule)
          ratio = llvm::formatv("{0:F3}", double(greedy->ii) /
                                              double(outcome.schedule->ii))
                      .str();
        llvm::outs() << llvm::format(
            "%-26s %-5d %-7s %6lld %9s %9s %7s %7.1f %9s\n", name.c_str(),
            loopIndex++, chip, (long long)getResourceBoundII(problem),
            cell(greedy).c_str(), cell(outcome.schedule).c_str(), ratio.c_str(),
            ms[ms.size() / 2], greedyFits ? "yes" : "no");
      });
    }
  }
  return 0;
}
