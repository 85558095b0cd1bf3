//===- TagCheck.cpp - The tag-check pass ------------------------*- C++ -*-===//

#include "tessera/Analysis/TagChecker.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/raw_ostream.h"

namespace tessera {
#define GEN_PASS_DEF_TAGCHECK
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

namespace {
struct TagCheckPass : tessera::impl::TagCheckBase<TagCheckPass> {
  using Base::Base;

  void runOnOperation() override {
    analysis::TagCheckOptions options;
    options.rlimit = rlimit;
    options.timeoutSeconds = timeout;
    options.workBudget = workBudget;
    options.smtOutput = emitSmt ? &llvm::outs() : nullptr;
    options.maxSharedBytes = maxSharedBytes;
    if (maxSharedBytes < 0) {
      getOperation().emitError()
          << "tag-check: max-shared-bytes must be positive, got "
          << static_cast<int64_t>(maxSharedBytes);
      return signalPassFailure();
    }
    if (maxSharedBytes == 0) {
      std::string target = resolveChip(getOperation(), chip);
      options.maxSharedBytes = analysis::getMaxSharedBytes(target);
      if (options.maxSharedBytes < 0) {
        getOperation().emitError()
            << "tag-check: unknown chip '" << target
            << "'; use sm_90a, sm_80, gfx942, gfx90a or host";
        return signalPassFailure();
      }
    }
    if (rlimit == 0) {
      getOperation().emitError("tag-check: rlimit must be positive");
      return signalPassFailure();
    }

    bool anyFailed = false;
    analysis::TagCheckSession session(&getContext(), options);
    getOperation().walk([&](tile::KernelOp kernel) {
      analysis::TagCheckStats stats;
      anyFailed |= failed(session.checkKernel(kernel, stats));
      // Hand the offset widths to the lowerings.
      Builder builder(&getContext());
      unsigned narrow = 0;
      for (auto [op, bits] : stats.offsetBits) {
        tile::TileDialect::IndexBitsAttrHelper(&getContext())
            .setAttr(op, builder.getI64IntegerAttr(bits));
        narrow += bits == 32;
      }
      if (printStats)
        emitRemark(kernel.getLoc())
            << "tag-check: @" << kernel.getSymName() << ": "
            << stats.provedStructurally << " proved structurally, "
            << stats.provedBySolver << " by Z3, " << stats.failed << " failed; "
            << stats.assumptions << " assumptions trusted; " << narrow << " of "
            << stats.offsetBits.size() << " view accesses fit 32-bit offsets";
    });
    if (anyFailed)
      signalPassFailure();
  }
};
} // namespace
