//===- TileTypesTest.cpp - Tile types and attributes ------------*- C++ -*-===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/InitAllTessera.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "gtest/gtest.h"

using namespace mlir;
using namespace tessera::tile;

namespace {
class TileTypesTest : public ::testing::Test {
protected:
  TileTypesTest() {
    DialectRegistry registry;
    tessera::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadDialect<TileDialect>();
  }

  /// Parses a type, returning null (and recording the message) on error.
  Type parse(StringRef text) {
    lastError.clear();
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      lastError = diag.str();
      return success();
    });
    return parseType(text, &context);
  }

  std::string roundTrip(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    type.print(os);
    return text;
  }

  MLIRContext context;
  std::string lastError;
};

TEST_F(TileTypesTest, ViewKeepsDynamicAndStaticSizes) {
  auto view = dyn_cast_or_null<ViewType>(parse("!tile.view<?x64xbf16>"));
  ASSERT_TRUE(view);
  EXPECT_EQ(view.getRank(), 2);
  EXPECT_TRUE(ShapedType::isDynamic(view.getShape()[0]));
  EXPECT_EQ(view.getShape()[1], 64);
  EXPECT_TRUE(view.getElementType().isBF16());
  EXPECT_EQ(roundTrip(view), "!tile.view<?x64xbf16>");
}

TEST_F(TileTypesTest, ViewRejectsUnsupportedElementAndZeroSize) {
  EXPECT_FALSE(parse("!tile.view<?xf64>"));
  EXPECT_NE(lastError.find("'f64' is not supported"), std::string::npos);
  EXPECT_FALSE(parse("!tile.view<0x?xf32>"));
  EXPECT_NE(lastError.find("must be positive"), std::string::npos);
}

TEST_F(TileTypesTest, SharedRingSizeCountsEveryStage) {
  auto ring = dyn_cast_or_null<SharedType>(
      parse("!tile.shared<128x64xbf16, stages = 3>"));
  ASSERT_TRUE(ring);
  EXPECT_TRUE(ring.isRing());
  EXPECT_EQ(ring.getSizeInBytes(), 3 * 128 * 64 * 2);
  EXPECT_EQ(roundTrip(ring), "!tile.shared<128x64xbf16, stages = 3>");

  auto single = dyn_cast_or_null<SharedType>(parse("!tile.shared<64x64xf32>"));
  ASSERT_TRUE(single);
  EXPECT_FALSE(single.isRing());
  EXPECT_EQ(single.getSizeInBytes(), 64 * 64 * 4);
}

TEST_F(TileTypesTest, SharedPacksSubByteCodes) {
  auto packed = dyn_cast_or_null<SharedType>(parse("!tile.shared<128x3xi4>"));
  ASSERT_TRUE(packed);
  // 384 nibbles are 192 bytes; an odd count rounds up to a whole byte.
  EXPECT_EQ(packed.getSizeInBytes(), 192);
  auto odd = dyn_cast_or_null<SharedType>(parse("!tile.shared<1x3xi4>"));
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd.getSizeInBytes(), 2);
}

TEST_F(TileTypesTest, SharedRejectsDynamicSizesAndNegativeStages) {
  EXPECT_FALSE(parse("!tile.shared<?x64xf16>"));
  EXPECT_FALSE(parse("!tile.shared<64x64xf16, stages = -2>"));
  EXPECT_NE(lastError.find("positive number of stages"), std::string::npos);
}

TEST_F(TileTypesTest, PipelineAttrBoundsStages) {
  ScopedDiagnosticHandler handler(&context, [](Diagnostic &) {});
  EXPECT_TRUE(parseAttribute("#tile.pipeline<stages = 3>", &context));
  EXPECT_FALSE(parseAttribute("#tile.pipeline<stages = 0>", &context));
  EXPECT_FALSE(parseAttribute("#tile.pipeline<stages = 9>", &context));
  auto attr = dyn_cast_or_null<PipelineAttr>(
      parseAttribute("#tile.pipeline<stages = 4>", &context));
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getStages(), 4);
}

TEST_F(TileTypesTest, EnumsRoundTripThroughStrings) {
  EXPECT_EQ(stringifyMmaKind(MmaKind::automatic), "auto");
  EXPECT_EQ(symbolizeMmaKind("wgmma"), MmaKind::wgmma);
  EXPECT_FALSE(symbolizeMmaKind("tensor_core").has_value());
  EXPECT_EQ(symbolizeReduceKind("max"), ReduceKind::max);
  EXPECT_EQ(stringifyDim(Dim::z), "z");
}

TEST_F(TileTypesTest, SupportedViewElementTypes) {
  Builder b(&context);
  EXPECT_TRUE(isSupportedViewElementType(b.getIntegerType(4)));
  EXPECT_TRUE(isSupportedViewElementType(b.getType<Float8E4M3FNType>()));
  EXPECT_FALSE(isSupportedViewElementType(b.getIntegerType(16)));
  EXPECT_FALSE(
      isSupportedViewElementType(b.getIntegerType(8, /*isSigned=*/true)));
  EXPECT_FALSE(isSupportedViewElementType(b.getF64Type()));
}
} // namespace
