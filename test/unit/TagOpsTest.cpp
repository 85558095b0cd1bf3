//===- TagOpsTest.cpp - Tag ops built through the C++ API -------*- C++ -*-===//

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/InitAllTessera.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace tessera;

namespace {
class TagOpsTest : public ::testing::Test {
protected:
  TagOpsTest() : builder(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context
        .loadDialect<tile::TileDialect, tag::TagDialect, arith::ArithDialect>();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A register tile produced by a constant, to bind tags to.
  Value makeTile(ArrayRef<int64_t> shape) {
    auto type = RankedTensorType::get(shape, builder.getF32Type());
    return arith::ConstantOp::create(
        builder, builder.getUnknownLoc(),
        DenseElementsAttr::get(type, builder.getF32FloatAttr(1.0f)));
  }

  bool verifies(Operation *op) {
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      lastError = diag.str();
      return success();
    });
    return succeeded(verify(op));
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
  std::string lastError;
};

TEST_F(TagOpsTest, BindChecksMapArityAgainstRank) {
  Value t = makeTile({16, 8});
  auto good = tag::BindOp::create(
      builder, builder.getUnknownLoc(), t, "A",
      builder.getStrArrayAttr({"m", "k"}),
      AffineMap::getMultiDimIdentityMap(2, &context), ValueRange{});
  EXPECT_TRUE(verifies(good));

  auto bad = tag::BindOp::create(builder, builder.getUnknownLoc(), t, "A",
                                 builder.getStrArrayAttr({"m", "k", "x"}),
                                 AffineMap::getMultiDimIdentityMap(3, &context),
                                 ValueRange{});
  EXPECT_FALSE(verifies(bad));
  EXPECT_NE(lastError.find("element indices"), std::string::npos);
}

TEST_F(TagOpsTest, ContractionComponentDefaultsToK) {
  Value a = makeTile({16, 32}), b = makeTile({32, 8});
  auto contract = tag::AssertContractOp::create(
      builder, builder.getUnknownLoc(), a, b, /*over=*/nullptr,
      /*transpose_a=*/false, /*transpose_b=*/false);
  EXPECT_EQ(contract.getContractionComponent(), "k");
  EXPECT_TRUE(verifies(contract));
  contract.setOver("d");
  EXPECT_EQ(contract.getContractionComponent(), "d");
}
} // namespace
