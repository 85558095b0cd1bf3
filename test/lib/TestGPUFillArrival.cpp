//===- TestGPUFillArrival.cpp - Fallback fills ordered by arrivals -------===//
//
// Test-only: rewrites the sm_90a fallback fills of TMA buffers (the
// threads' own copies where a view has no tensor map) to synchronize
// through the slot's mbarrier alone: the mbarriers expect an arrival from
// every thread of the block, and every thread arrives after its stores and
// its fence.proxy.async, with no barrier. That is correct, if slower: each
// arrival releases its thread's stores to the threads that wait for the
// phase. The emulator's race detector must accept it, which a detector
// that ordered stores only by barriers would not. Only for kernels whose
// every fill falls back (thread 0's TMA arrivals would leave the phases
// incomplete). Registered only in builds with TESSERA_INCLUDE_TESTS.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestGPUFillArrivalPass
    : public PassWrapper<TestGPUFillArrivalPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGPUFillArrivalPass)

  StringRef getArgument() const final { return "test-gpu-fill-all-arrive"; }
  StringRef getDescription() const final {
    return "Order sm_90a fallback fills by every thread's mbarrier arrival "
           "instead of a barrier (tests only)";
  }

  void runOnOperation() override {
    bool rewrote = false;
    getOperation().walk([&](gpu::GPUFuncOp func) {
      DenseI32ArrayAttr block = func.getKnownBlockSizeAttr();
      if (!block)
        return;
      int32_t threads = block[0];
      // Every thread's arrival completes a phase.
      func.walk([&](NVVM::MBarrierInitOp init) {
        OpBuilder b(init);
        init->setOperand(1, arith::ConstantIntOp::create(
                                b, init.getLoc(), b.getI32Type(), threads));
      });
      // Each fill: every thread arrives, with no barrier before.
      SmallVector<NVVM::MBarrierArriveOp> arrivals;
      func.walk(
          [&](NVVM::MBarrierArriveOp arrive) { arrivals.push_back(arrive); });
      for (NVVM::MBarrierArriveOp arrive : arrivals) {
        auto branch = arrive->getParentOfType<scf::IfOp>();
        if (!branch)
          continue;
        if (auto barrier =
                dyn_cast_or_null<gpu::BarrierOp>(branch->getPrevNode()))
          barrier.erase();
        // The arrival and what computes its mbarrier's address.
        for (Operation &op : llvm::make_early_inc_range(
                 branch.thenBlock()->without_terminator()))
          op.moveBefore(branch);
        branch.erase();
        rewrote = true;
      }
    });
    if (!rewrote) {
      getOperation().emitError()
          << "test-gpu-fill-all-arrive: no fallback fill to rewrite";
      signalPassFailure();
    }
  }
};
} // namespace

void tessera::test::registerTestGPUFillArrivalPass() {
  PassRegistration<TestGPUFillArrivalPass>();
}
