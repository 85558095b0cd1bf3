//===- TestGPUControls.cpp - Correct rewrites for the emulator tests -----===//
//
// Test-only: rewrites of the per-thread GPU code that keep it correct but
// take paths the backends do not, so that the emulator tests can show it
// accepts them (controls beside test-gpu-plant-bug's planted bugs).
// Registered only in builds with TESSERA_INCLUDE_TESTS.
//
// test-gpu-fill-all-arrive: the sm_90a fallback fills of TMA buffers (the
// threads' own copies where a view has no tensor map) synchronize through
// the slot's mbarrier alone: the mbarriers expect an arrival from every
// thread of the block, and every thread arrives after its stores and its
// fence.proxy.async, with no barrier. Each arrival releases its thread's
// stores to the threads that wait for the phase, which the race detector
// must see (a detector that ordered stores only by barriers would not).
// Only for kernels whose every fill falls back (thread 0's TMA arrivals
// would leave the phases incomplete).
//
// test-gpu-scalar-wave-index: AMD: the wave index (thread id / 64) is
// computed from v_readfirstlane of the thread id: lane 0's, whose quotient
// every lane of the wave shares (the usual way to keep it in a scalar
// register; LLVM cannot fold it away, the thread id not being uniform).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
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
struct TestGPUScalarWaveIndexPass
    : public PassWrapper<TestGPUScalarWaveIndexPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGPUScalarWaveIndexPass)

  StringRef getArgument() const final { return "test-gpu-scalar-wave-index"; }
  StringRef getDescription() const final {
    return "Compute AMD wave indices from v_readfirstlane of the thread id "
           "(tests only)";
  }

  void runOnOperation() override {
    SmallVector<arith::DivUIOp> waves;
    getOperation().walk([&](arith::DivUIOp div) {
      std::optional<int64_t> size = getConstantIntValue(div.getRhs());
      if (size == 64 && div.getLhs().getDefiningOp<gpu::ThreadIdOp>())
        waves.push_back(div);
    });
    for (arith::DivUIOp div : waves) {
      OpBuilder b(div);
      Location loc = div.getLoc();
      Value narrow =
          arith::IndexCastOp::create(b, loc, b.getI32Type(), div.getLhs());
      Value first =
          ROCDL::ReadfirstlaneOp::create(b, loc, b.getI32Type(), narrow);
      div.getLhsMutable().assign(
          arith::IndexCastOp::create(b, loc, b.getIndexType(), first));
    }
    if (waves.empty()) {
      getOperation().emitError()
          << "test-gpu-scalar-wave-index: no wave index to compute";
      signalPassFailure();
    }
  }
};
} // namespace

void tessera::test::registerTestGPUControlPasses() {
  PassRegistration<TestGPUFillArrivalPass>();
  PassRegistration<TestGPUScalarWaveIndexPass>();
}
