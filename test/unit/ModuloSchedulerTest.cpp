//===- ModuloSchedulerTest.cpp - Schedules of the shipped K loops -*- C++
//-*-===//
//
// The greedy and Z3 modulo schedulers on every pipelined loop of the shipped
// kernels, for each chip: both schedules respect every dependence, slot
// reuse and the reservation table (checked cycle by cycle, independently of
// the Z3 encoding); the solver's II is never above the greedy one and no
// schedule exists one cycle below it.
//
//===----------------------------------------------------------------------===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/InitAllTessera.h"
#include "tessera/Transforms/PipelineModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace tessera;

namespace {
struct Case {
  const char *kernel;
  const char *chip;
};

class ModuloSchedulerTest : public ::testing::TestWithParam<Case> {
protected:
  ModuloSchedulerTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
  }
  MLIRContext context;
};

TEST_P(ModuloSchedulerTest, SolverIsValidAndMinimal) {
  auto [kernel, chip] = GetParam();
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(
      std::string(TESSERA_KERNELS_DIR "/") + kernel, &context);
  ASSERT_TRUE(module);
  std::optional<LatencyModel> model = getLatencyModel(chip);
  ASSERT_TRUE(model);
  int64_t capacity = analysis::getMaxSharedBytes(chip);
  int loops = 0;
  module->walk([&](scf::ForOp loop) {
    if (!loop->hasAttr("tile.pipeline"))
      return;
    ++loops;
    ModuloProblem problem = buildModuloProblem(loop, *model);
    std::optional<ModuloSchedule> greedy =
        scheduleGreedily(problem, problem.maxStages);
    ASSERT_TRUE(greedy);
    EXPECT_TRUE(isValidSchedule(problem, *greedy));

    ModuloSolverOutcome outcome =
        scheduleWithSolver(problem, {capacity, 0, 10000000});
    ASSERT_FALSE(outcome.unknown);
    bool greedyFits =
        problem.maxStages * problem.ringSlotBytes + problem.otherSharedBytes <=
        capacity;
    if (!outcome.schedule) {
      // Only the shared-memory budget can rule out every II.
      EXPECT_FALSE(greedyFits);
      EXPECT_FALSE(outcome.core.empty());
      return;
    }
    const ModuloSchedule &best = *outcome.schedule;
    EXPECT_TRUE(isValidSchedule(problem, best));
    EXPECT_GE(best.ii, getResourceBoundII(problem));
    EXPECT_GE(best.depth, 2);
    EXPECT_LE(best.depth, problem.maxStages);
    if (greedyFits)
      EXPECT_LE(best.ii, greedy->ii);
    // Nothing fits one cycle below, at any depth.
    ModuloSolverOutcome below =
        scheduleWithSolver(problem, {capacity, best.ii - 1, 10000000});
    EXPECT_FALSE(below.schedule);
    EXPECT_FALSE(below.core.empty());
  });
  EXPECT_GT(loops, 0);
}

INSTANTIATE_TEST_SUITE_P(
    ShippedKernels, ModuloSchedulerTest,
    ::testing::Values(Case{"gemm/gemm_bf16.mlir", "sm_80"},
                      Case{"gemm/gemm_bf16.mlir", "sm_90a"},
                      Case{"gemm/gemm_bf16.mlir", "gfx942"},
                      Case{"gemm/gemm_w4a16.mlir", "sm_80"},
                      Case{"gemm/gemm_w4a16.mlir", "sm_90a"},
                      Case{"gemm/gemm_w4a16.mlir", "gfx942"},
                      Case{"attention/flash_attention_fwd.mlir", "sm_90a"},
                      Case{"attention/flash_attention_fwd.mlir", "gfx942"},
                      Case{"moe/moe_expert_block.mlir", "sm_80"},
                      Case{"moe/moe_expert_block.mlir", "sm_90a"}),
    [](const ::testing::TestParamInfo<Case> &info) {
      std::string name = std::string(info.param.kernel) + "_" + info.param.chip;
      for (char &c : name)
        if (!isalnum(static_cast<unsigned char>(c)))
          c = '_';
      return name;
    });
} // namespace
