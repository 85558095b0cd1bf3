//===- TestLayoutPlantBug.cpp - Planted layout bugs -----------------------===//
//
// Test-only: after tile-assign-layouts, corrupts the layout of the first
// MMA's A operand, so that the tests can show that a layout which does not
// cover its tile is rejected by the verifier, and one that covers it but
// does not match the fragments the instructions deliver is rejected by
// convert-tile-to-gpu instead of producing a wrong kernel.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;
using namespace tessera;

namespace {
struct TestLayoutPlantBugPass
    : public PassWrapper<TestLayoutPlantBugPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestLayoutPlantBugPass)
  TestLayoutPlantBugPass() = default;
  TestLayoutPlantBugPass(const TestLayoutPlantBugPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-layout-plant-bug"; }
  StringRef getDescription() const final {
    return "Corrupt the layout of the first MMA's A operand (tests only)";
  }

  Option<std::string> bug{
      *this, "bug",
      llvm::cl::desc("swap-lanes (still a bijection, not the mma fragment) "
                     "or drop-register (no longer covers the tile)")};

  void runOnOperation() override {
    tile::MmaOp mma;
    getOperation().walk([&](tile::MmaOp op) {
      if (!mma)
        mma = op;
    });
    auto type = mma ? dyn_cast<RankedTensorType>(mma.getA().getType())
                    : RankedTensorType();
    auto attr =
        type ? dyn_cast_if_present<tile::LinearLayoutAttr>(type.getEncoding())
             : nullptr;
    if (!attr) {
      getOperation().emitError()
          << "test-layout-plant-bug: no laid-out MMA operand";
      return signalPassFailure();
    }
    LinearLayout layout = attr.toLinearLayout(type.getShape());
    auto regs = layout.getBases(LinearLayout::Register);
    auto lanes = layout.getBases(LinearLayout::Lane);
    auto warps = layout.getBases(LinearLayout::Warp);
    if (bug == "swap-lanes") {
      std::swap(lanes[0], lanes[2]);
    } else if (bug == "drop-register") {
      regs[0] = Coord(regs[0].size(), 0);
    } else {
      getOperation().emitError() << "unknown bug '" << bug << "'";
      return signalPassFailure();
    }
    LinearLayout broken(layout.getShape(), regs, lanes, warps);
    mma.getA().setType(RankedTensorType::get(
        type.getShape(), type.getElementType(),
        tile::LinearLayoutAttr::get(&getContext(), broken)));
  }
};
} // namespace

void tessera::test::registerTestLayoutPlantBugPass() {
  PassRegistration<TestLayoutPlantBugPass>();
}
