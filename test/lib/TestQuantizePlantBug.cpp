//===- TestQuantizePlantBug.cpp - Planted quantization bugs --------------===//
//
// Test-only: after tile-quantize, breaks the quantized kernel in one of the
// ways a quantizer can go wrong, so that the tests can show that tag-check
// rejects each (with a counterexample) and that the numerical checks fail.
// It finds what to break by the names tile-quantize gives the new
// arguments' tags: `<weight>_scale (g, n)` (fp8: `(g, gn)`),
// `<weight>_zero (g, n)` and the per-token `<activation>_scale (m)`.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tessera;

namespace {
struct TestQuantizePlantBugPass
    : public PassWrapper<TestQuantizePlantBugPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestQuantizePlantBugPass)
  TestQuantizePlantBugPass() = default;
  TestQuantizePlantBugPass(const TestQuantizePlantBugPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-quantize-plant-bug"; }
  StringRef getDescription() const final {
    return "Plant one quantization bug in tile-quantize's output (tests only)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect>();
  }

  Option<std::string> bug{
      *this, "bug",
      llvm::cl::desc(
          "scale-row (scales of the next k group), zero-row (zero points of "
          "the next k group), scale-column (scales of the next column), "
          "dequant-group (dequantize with groups twice as long), "
          "nibble-order (unpack int4 nibbles high first) or token-row "
          "(per-token scales one row down)")};

  /// The dimension of `view` whose coordinate is tag component `name` in its
  /// `tag.bind` named `<anything><suffix>`, if any.
  std::optional<unsigned> boundDim(Value view, StringRef suffix,
                                   StringRef name) {
    for (Operation *user : view.getUsers()) {
      auto bind = dyn_cast<tag::BindOp>(user);
      if (!bind || !bind.getName().ends_with(suffix))
        continue;
      auto components = bind.getComponents().getAsValueRange<StringAttr>();
      for (auto [component, expr] :
           llvm::zip(components, bind.getMap().getResults()))
        if (component == name)
          if (auto dim = dyn_cast<AffineDimExpr>(expr))
            return dim.getPosition();
    }
    return std::nullopt;
  }

  /// Loads one further along dimension `component` every tile of a view
  /// bound as `<weight><suffix>`; the number of loads moved.
  unsigned shiftLoads(StringRef suffix, ArrayRef<StringRef> components) {
    SmallVector<std::pair<tile::LoadOp, unsigned>> loads;
    getOperation().walk([&](tile::LoadOp load) {
      for (StringRef component : components)
        if (auto dim = boundDim(load.getSource(), suffix, component)) {
          loads.push_back({load, *dim});
          return;
        }
    });
    for (auto [load, dim] : loads) {
      OpBuilder builder(load);
      Value one = arith::ConstantIndexOp::create(builder, load.getLoc(), 1);
      Value moved = arith::AddIOp::create(builder, load.getLoc(),
                                          load.getIndices()[dim], one);
      load.getIndicesMutable()[dim].assign(moved);
    }
    return loads.size();
  }

  /// Doubles the first multi-group dimension of every dequantization: the
  /// scale (and zero-point) tiles hold half as many groups, and the
  /// assertions tile-quantize wrote state the doubled group, so only the
  /// tags of the data can tell.
  unsigned doubleGroups() {
    SmallVector<tile::DequantOp> dequants;
    getOperation().walk([&](tile::DequantOp op) { dequants.push_back(op); });
    unsigned changed = 0;
    for (tile::DequantOp dequant : dequants) {
      SmallVector<int64_t> group(dequant.getGroup());
      auto scalesType = cast<RankedTensorType>(dequant.getScales().getType());
      SmallVector<int64_t> shape(scalesType.getShape());
      auto dim = llvm::find_if(llvm::seq<size_t>(0, group.size()), [&](auto d) {
        return group[d] > 1 && shape[d] >= 2 && shape[d] % 2 == 0;
      });
      if (dim == llvm::seq<size_t>(0, group.size()).end())
        continue;
      group[*dim] *= 2;
      shape[*dim] /= 2;
      SmallVector<Value> tiles = {dequant.getScales()};
      if (dequant.getZeros())
        tiles.push_back(dequant.getZeros());
      for (Value groups : tiles) {
        auto load = groups.getDefiningOp<tile::LoadOp>();
        if (!load)
          continue;
        auto type = cast<RankedTensorType>(groups.getType());
        groups.setType(RankedTensorType::get(shape, type.getElementType()));
        for (Operation *user : groups.getUsers()) {
          auto check = dyn_cast<tag::AssertEqOp>(user);
          if (!check || check.getRhs() != groups)
            continue;
          SmallVector<AffineExpr> results;
          for (auto [d, size] : llvm::enumerate(group))
            results.push_back(
                getAffineDimExpr(d, &getContext()).floorDiv(size));
          check.setRhsMapAttr(AffineMapAttr::get(
              AffineMap::get(group.size(), check.getRhsMap().getNumSymbols(),
                             results, &getContext())));
        }
      }
      dequant.setGroup(group);
      ++changed;
    }
    return changed;
  }

  unsigned reverseNibbles() {
    unsigned changed = 0;
    getOperation().walk([&](tile::UnpackOp unpack) {
      SmallVector<int64_t> order(llvm::reverse(unpack.getOrder()));
      unpack.setOrder(order);
      ++changed;
    });
    return changed;
  }

  void runOnOperation() override {
    unsigned planted;
    StringRef what;
    if (bug == "scale-row") {
      planted = shiftLoads("_scale", {"g"});
      what = "no load of weight scales";
    } else if (bug == "zero-row") {
      planted = shiftLoads("_zero", {"g"});
      what = "no load of zero points";
    } else if (bug == "scale-column") {
      planted = shiftLoads("_scale", {"gn", "n"});
      what = "no load of weight scales";
    } else if (bug == "token-row") {
      planted = shiftLoads("_scale", {"m", "t"});
      what = "no load of per-token scales";
    } else if (bug == "dequant-group") {
      planted = doubleGroups();
      what = "no tile.dequant with an even number of groups";
    } else if (bug == "nibble-order") {
      planted = reverseNibbles();
      what = "no tile.unpack";
    } else {
      getOperation().emitError()
          << "test-quantize-plant-bug: unknown bug '" << bug
          << "'; use scale-row, zero-row, scale-column, dequant-group, "
             "nibble-order or token-row";
      return signalPassFailure();
    }
    if (!planted) {
      getOperation().emitError() << "test-quantize-plant-bug: " << what
                                 << " to plant '" << bug << "' in";
      return signalPassFailure();
    }
  }
};
} // namespace

void tessera::test::registerTestQuantizePlantBugPass() {
  PassRegistration<TestQuantizePlantBugPass>();
}
