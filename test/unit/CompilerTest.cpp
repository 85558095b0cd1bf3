//===- CompilerTest.cpp - The compile pipeline as a library ---------------===//

#include "tessera/Compiler/Compiler.h"
#include "tessera/runtime/tessera.hpp"

#include "gtest/gtest.h"

#include <vector>

using namespace tessera;

namespace {

constexpr const char *kScale = R"mlir(
tile.kernel @scale(%X: !tile.view<?xf32>, %Y: !tile.view<?xf32>, %factor: f32) threads(64) {
  %c64 = arith.constant 64 : index
  %pid = tile.program_id x
  %off = arith.muli %pid, %c64 : index
  %x = tile.load %X[%off] : !tile.view<?xf32> -> tensor<64xf32>
  %f = tile.splat %factor : f32 -> tensor<64xf32>
  %y = arith.mulf %x, %f : tensor<64xf32>
  tile.store %y -> %Y[%off] : tensor<64xf32> -> !tile.view<?xf32>
  tile.return
}
)mlir";

CompileOptions hostOptions() {
  CompileOptions options;
  options.targets = {"host"};
  return options;
}

TEST(Compiler, CompilesABundleTheRuntimeRuns) {
  CompileResult result;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ASSERT_TRUE(succeeded(
      compileKernels({{"scale.mlir", kScale}}, hostOptions(), result, os)))
      << diagnostics;
  ASSERT_EQ(result.kernels.size(), 1u);
  EXPECT_EQ(result.kernels[0].name, "scale");

  Device device = Device::open(TESSERA_DEVICE_HOST);
  Module module =
      Module::load(device, result.output.data(), result.output.size());
  ASSERT_TRUE(module) << error();
  std::vector<float> x(100), y(100, -1.0f);
  for (size_t i = 0; i < x.size(); ++i)
    x[i] = float(i) - 50.0f;
  tessera_view vx = view(x.data(), {100}), vy = view(y.data(), {100});
  float factor = 0.5f;
  void *args[] = {&vx, &vy, &factor};
  ASSERT_EQ(module.launch("scale", {2, 1, 1}, args), TESSERA_SUCCESS)
      << error();
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_EQ(y[i], 0.5f * x[i]) << i;

  // The same inputs and options give the same bytes.
  CompileResult again;
  ASSERT_TRUE(succeeded(
      compileKernels({{"scale.mlir", kScale}}, hostOptions(), again, os)));
  EXPECT_EQ(again.output, result.output);
}

TEST(Compiler, DiagnosticsNameTheInput) {
  CompileResult result;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  std::string broken = std::string(kScale) + "tile.kernel @bad(\n";
  EXPECT_TRUE(failed(
      compileKernels({{"broken.mlir", broken}}, hostOptions(), result, os)));
  EXPECT_NE(diagnostics.find("broken.mlir:12:18: error:"), std::string::npos)
      << diagnostics;
  EXPECT_TRUE(result.output.empty());

  diagnostics.clear();
  EXPECT_TRUE(failed(compileKernels({{"a.mlir", kScale}, {"b.mlir", kScale}},
                                    hostOptions(), result, os)));
  EXPECT_NE(diagnostics.find("b.mlir:2:1: error: kernel 'scale' is defined "
                             "twice"),
            std::string::npos)
      << diagnostics;
  EXPECT_NE(diagnostics.find("a.mlir:2:1: note: first defined here"),
            std::string::npos)
      << diagnostics;

  diagnostics.clear();
  CompileOptions options = hostOptions();
  options.targets = {"host", "sm_70"};
  EXPECT_TRUE(
      failed(compileKernels({{"scale.mlir", kScale}}, options, result, os)));
  EXPECT_NE(diagnostics.find("unknown target 'sm_70'"), std::string::npos)
      << diagnostics;
}

TEST(Compiler, ChecksAndReportsProofs) {
  std::vector<std::string> proofs;
  std::string diagnostics;
  llvm::raw_string_ostream os(diagnostics);
  ASSERT_TRUE(succeeded(checkKernels({{"scale.mlir", kScale}}, {}, proofs, os)))
      << diagnostics;
  ASSERT_EQ(proofs.size(), 1u);
  EXPECT_EQ(proofs[0].rfind("tag-check: @scale: ", 0), 0u) << proofs[0];
  EXPECT_NE(proofs[0].find("0 failed"), std::string::npos) << proofs[0];
}

} // namespace
