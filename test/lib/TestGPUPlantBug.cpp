//===- TestGPUPlantBug.cpp - Planted backend bugs for the emulator tests --===//
//
// Test-only: after convert-tile-to-gpu, breaks the per-thread code in one of
// the ways a backend can go wrong, so that the tests can show the emulator
// (its numerical check or its race detector) catches each. Registered only
// in builds with TESSERA_INCLUDE_TESTS.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Dialect/AMDGPU/IR/AMDGPUDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {
struct TestGPUPlantBugPass
    : public PassWrapper<TestGPUPlantBugPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGPUPlantBugPass)
  TestGPUPlantBugPass() = default;
  TestGPUPlantBugPass(const TestGPUPlantBugPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "test-gpu-plant-bug"; }
  StringRef getDescription() const final {
    return "Plant one backend bug in the per-thread GPU code (tests only)";
  }

  Option<std::string> bug{
      *this, "bug",
      llvm::cl::desc("ldmatrix-address, fragment-swap, swizzle-read, "
                     "store-lane, no-barrier, scratch-barrier, "
                     "divergent-barrier, "
                     "wait-group, nibble-order, scale-register, row-index, "
                     "atomic-store, mfma-swap, mbarrier-wait, "
                     "mbarrier-parity, fill-barrier, readlane-row, "
                     "readlane-divergent, proxy-fence, "
                     "wgmma-layout, wgmma-register-a, wgmma-in-flight, "
                     "wgmma-release, wgmma-untied-wait, "
                     "mbarrier-count, cluster-arrive, wgmma-descriptor, "
                     "tma-destination, bulk-wait, pingpong-order, "
                     "buffer-extent, buffer-mask, buffer-store-mask, "
                     "inline-asm or unknown-intrinsic")};

  template <typename OpT> OpT first() {
    OpT found;
    getOperation().walk([&](OpT op) {
      if (!found)
        found = op;
    });
    return found;
  }

  /// The first op of type OpT inside a loop (the pipelined K loop).
  template <typename OpT> OpT firstInLoop() {
    OpT found;
    getOperation().walk([&](OpT op) {
      if (!found && op->template getParentOfType<scf::ForOp>())
        found = op;
    });
    return found;
  }

  LogicalResult plant() {
    if (bug == "ldmatrix-address") {
      // The first ldmatrix addresses the row below the right one.
      auto ld = first<nvgpu::LdMatrixOp>();
      if (!ld)
        return failure();
      OpBuilder b(ld);
      unsigned row = ld.getIndices().size() - 2;
      Value one = arith::ConstantIndexOp::create(b, ld.getLoc(), 1);
      ld->setOperand(1 + row, arith::AddIOp::create(b, ld.getLoc(),
                                                    ld.getIndices()[row], one));
      return success();
    }
    if (bug == "fragment-swap") {
      // Two A registers of one mma.sync change places.
      auto mma = first<NVVM::MmaOp>();
      if (!mma || mma.getOperandA().size() < 2)
        return failure();
      Value a0 = mma.getOperandA()[0], a1 = mma.getOperandA()[1];
      mma->setOperand(0, a1);
      mma->setOperand(1, a0);
      return success();
    }
    if (bug == "swizzle-read") {
      // ldmatrix reads without the swizzle the copies wrote with: every
      // XOR in the address of the ldmatrix ops loses its phase.
      bool planted = false;
      getOperation().walk([&](nvgpu::LdMatrixOp ld) {
        SmallVector<Value> work = {ld.getIndices().back()};
        while (!work.empty()) {
          Operation *def = work.pop_back_val().getDefiningOp();
          if (!def)
            continue;
          if (auto xori = dyn_cast<arith::XOrIOp>(def)) {
            OpBuilder b(xori);
            xori->setOperand(
                1, arith::ConstantIndexOp::create(b, xori.getLoc(), 0));
            planted = true;
            continue;
          }
          if (isa<arith::ArithDialect>(def->getDialect()))
            work.append(def->operand_begin(), def->operand_end());
        }
      });
      return success(planted);
    }
    if (bug == "store-lane") {
      // Lane 5 of every warp drops its stores into global memory (element
      // and vector stores alike).
      SmallVector<Operation *> stores;
      getOperation().walk([&](Operation *op) {
        if (auto store = dyn_cast<memref::StoreOp>(op);
            store && !store.getMemRefType().getMemorySpace())
          stores.push_back(op);
        if (auto store = dyn_cast<vector::StoreOp>(op);
            store && !store.getMemRefType().getMemorySpace())
          stores.push_back(op);
      });
      for (Operation *store : stores) {
        OpBuilder b(store);
        Location loc = store->getLoc();
        Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
        Value lane = arith::RemUIOp::create(
            b, loc, tid, arith::ConstantIndexOp::create(b, loc, 32));
        Value notFive =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, lane,
                                  arith::ConstantIndexOp::create(b, loc, 5));
        auto only = scf::IfOp::create(b, loc, notFive);
        store->moveBefore(only.thenBlock()->getTerminator());
      }
      return success(!stores.empty());
    }
    if (bug == "no-barrier") {
      // The barrier after the K loop's wait is gone.
      auto barrier = firstInLoop<gpu::BarrierOp>();
      if (!barrier)
        return failure();
      barrier->erase();
      return success();
    }
    if (bug == "scratch-barrier") {
      // The barrier after a loop's cross-warp reduction reads its scratch
      // buffer (the loop's last barrier) is gone: the next iteration's
      // stores race with the reads.
      gpu::BarrierOp last;
      getOperation().walk([&](gpu::BarrierOp barrier) {
        if (barrier->getParentOfType<scf::ForOp>())
          last = barrier;
      });
      if (!last)
        return failure();
      last->erase();
      return success();
    }
    if (bug == "divergent-barrier") {
      // Only the first warp reaches the K loop's barrier: a deadlock.
      auto barrier = firstInLoop<gpu::BarrierOp>();
      if (!barrier)
        return failure();
      OpBuilder b(barrier);
      Location loc = barrier.getLoc();
      Value tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
      Value first =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, tid,
                                arith::ConstantIndexOp::create(b, loc, 32));
      auto guard = scf::IfOp::create(b, loc, first);
      barrier->moveBefore(guard.thenBlock()->getTerminator());
      return success();
    }
    if (bug == "wait-group") {
      // The K loop waits for one commit group too few.
      auto wait = firstInLoop<NVVM::CpAsyncWaitGroupOp>();
      if (!wait)
        return failure();
      wait.setN(wait.getN() + 1);
      return success();
    }
    if (bug == "nibble-order") {
      // Every int4 code is taken from the other nibble of its byte: the
      // nibble index of each extraction, (byte << (4 - 4 * which)) >>s 4,
      // is flipped (once per product, which extractions may share).
      llvm::SetVector<Operation *> products;
      getOperation().walk([&](arith::ShRSIOp down) {
        auto up = down.getLhs().getDefiningOp<arith::ShLIOp>();
        auto amount = up ? up.getRhs().getDefiningOp<arith::SubIOp>() : nullptr;
        auto cast = amount ? amount.getRhs().getDefiningOp<arith::IndexCastOp>()
                           : nullptr;
        if (auto times =
                cast ? cast.getIn().getDefiningOp<arith::MulIOp>() : nullptr)
          products.insert(times);
      });
      for (Operation *times : products) {
        OpBuilder b(times);
        Location loc = times->getLoc();
        times->setOperand(0, arith::XOrIOp::create(
                                 b, loc, times->getOperand(0),
                                 arith::ConstantIndexOp::create(b, loc, 1)));
      }
      return success(!products.empty());
    }
    if (bug == "scale-register") {
      // Dequantization multiplies each code register by the scale of the
      // register at the other end of the thread's tile (registers reversed).
      bool planted = false;
      getOperation().walk([&](arith::MulFOp mul) {
        auto type = dyn_cast<VectorType>(mul.getType());
        if (planted || !type ||
            !mul.getLhs().getDefiningOp<arith::SIToFPOp>() ||
            !mul.getRhs().getDefiningOp<arith::ExtFOp>())
          return;
        OpBuilder b(mul);
        int64_t n = type.getNumElements();
        SmallVector<int64_t> reversed;
        for (int64_t i = 0; i < n; ++i)
          reversed.push_back(n - 1 - i);
        mul->setOperand(1,
                        vector::ShuffleOp::create(b, mul.getLoc(), mul.getRhs(),
                                                  mul.getRhs(), reversed));
        planted = true;
      });
      return success(planted);
    }
    if (bug == "mfma-swap") {
      // The first MFMA of the K loop takes its A and B operands in each
      // other's places (D^T-shaped products where D is wanted).
      auto mfma = firstInLoop<amdgpu::MFMAOp>();
      if (!mfma)
        return failure();
      Value a = mfma.getSourceA(), b = mfma.getSourceB();
      mfma->setOperand(0, b);
      mfma->setOperand(1, a);
      return success();
    }
    if (bug == "row-index") {
      // Every row a gather reads or a scatter adds to is its pair's (the
      // index xor 1), bounds checked as such: the row indices are those
      // cast from i32 and tested for being non-negative.
      bool planted = false;
      getOperation().walk([&](arith::IndexCastOp cast) {
        bool isRow = llvm::any_of(cast->getUsers(), [](Operation *user) {
          auto cmp = dyn_cast<arith::CmpIOp>(user);
          return cmp && cmp.getPredicate() == arith::CmpIPredicate::sge;
        });
        if (!isRow || !cast.getIn().getType().isInteger(32))
          return;
        OpBuilder b(cast);
        b.setInsertionPointAfter(cast);
        Value one = arith::ConstantIndexOp::create(b, cast.getLoc(), 1);
        auto flipped = arith::XOrIOp::create(b, cast.getLoc(), cast, one);
        cast.getResult().replaceAllUsesExcept(flipped, flipped);
        planted = true;
      });
      return success(planted);
    }
    if (bug == "atomic-store") {
      // The scatter's atomic adds become a load, an add and a store: blocks
      // that add to one element race.
      SmallVector<memref::AtomicRMWOp> adds;
      getOperation().walk(
          [&](memref::AtomicRMWOp add) { adds.push_back(add); });
      for (memref::AtomicRMWOp add : adds) {
        OpBuilder b(add);
        Location loc = add.getLoc();
        Value old =
            memref::LoadOp::create(b, loc, add.getMemref(), add.getIndices());
        Value sum =
            add.getKind() == arith::AtomicRMWKind::addf
                ? arith::AddFOp::create(b, loc, old, add.getValue()).getResult()
                : arith::AddIOp::create(b, loc, old, add.getValue())
                      .getResult();
        memref::StoreOp::create(b, loc, sum, add.getMemref(), add.getIndices());
        add.getResult().replaceAllUsesWith(old);
        add.erase();
      }
      return success(!adds.empty());
    }
    if (bug == "mbarrier-wait") {
      // The K loop reads its ring slot without waiting for the TMA fill:
      // the first try_wait there reports the phase complete at once.
      auto wait = firstInLoop<NVVM::MBarrierTryWaitOp>();
      if (!wait)
        return failure();
      OpBuilder b(wait);
      b.setInsertionPointAfter(wait);
      wait.getResult().replaceAllUsesWith(
          arith::ConstantIntOp::create(b, wait.getLoc(), b.getI1Type(), 1));
      wait.erase();
      return success();
    }
    if (bug == "mbarrier-parity") {
      // The first wait in the K loop asks for the other phase parity: the
      // phase before the one it needs, long complete.
      auto wait = firstInLoop<NVVM::MBarrierTryWaitOp>();
      if (!wait)
        return failure();
      OpBuilder b(wait);
      Value one =
          arith::ConstantIntOp::create(b, wait.getLoc(), b.getI32Type(), 1);
      wait->setOperand(
          1, arith::XOrIOp::create(b, wait.getLoc(), wait->getOperand(1), one));
      return success();
    }
    if (bug == "readlane-row" || bug == "readlane-divergent") {
      // AMD: the first shuffle's result (a row reduction's first step) is
      // replaced by one lane's for the whole wave: lane 0's (rows held by
      // other lanes get lane 0's row), or each thread's own id, which the
      // scalar lane operand cannot be.
      auto shuffle = first<gpu::ShuffleOp>();
      if (!shuffle ||
          !isa<Float32Type, IntegerType>(shuffle.getShuffleResult().getType()))
        return failure();
      OpBuilder b(shuffle);
      b.setInsertionPointAfter(shuffle);
      Location loc = shuffle.getLoc();
      Value lane = bug == "readlane-row"
                       ? arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0)
                             .getResult()
                       : arith::IndexCastOp::create(
                             b, loc, b.getI32Type(),
                             gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x))
                             .getResult();
      Value value = shuffle.getShuffleResult();
      auto read =
          ROCDL::ReadlaneOp::create(b, loc, value.getType(), value, lane);
      value.replaceAllUsesExcept(read, read);
      return success();
    }
    if (bug == "fill-barrier") {
      // The threads' fallback copies into TMA buffers skip the barrier
      // before thread 0's arrival: the other threads' stores are then
      // ordered before no one's wait.
      SmallVector<gpu::BarrierOp> barriers;
      getOperation().walk([&](NVVM::MBarrierArriveOp arrive) {
        auto branch = arrive->getParentOfType<scf::IfOp>();
        if (auto barrier = dyn_cast_or_null<gpu::BarrierOp>(
                branch ? branch->getPrevNode() : nullptr))
          barriers.push_back(barrier);
      });
      for (gpu::BarrierOp barrier : barriers)
        barrier.erase();
      return success(!barriers.empty());
    }
    if (bug == "proxy-fence") {
      // The threads' fallback copies into TMA buffers skip the fence that
      // makes their stores visible to wgmma.
      SmallVector<NVVM::FenceProxyOp> fences;
      getOperation().walk([&](NVVM::FenceProxyOp f) { fences.push_back(f); });
      for (NVVM::FenceProxyOp fence : fences)
        fence.erase();
      return success(!fences.empty());
    }
    if (bug == "bulk-wait") {
      // TMA stores are never waited for: the block may end (or rewrite
      // the buffer) while they still read it.
      SmallVector<NVVM::CpAsyncBulkWaitGroupOp> waits;
      getOperation().walk(
          [&](NVVM::CpAsyncBulkWaitGroupOp w) { waits.push_back(w); });
      for (NVVM::CpAsyncBulkWaitGroupOp wait : waits)
        wait.erase();
      return success(!waits.empty());
    }
    if (bug == "pingpong-order") {
      // Ping-pong consumer sets run their main loops whenever they like:
      // the turns (bar.arrive, and the bar.sync for as many threads) go.
      SmallVector<Operation *> turns;
      std::optional<Value> count;
      getOperation().walk([&](LLVM::CallIntrinsicOp call) {
        if (call.getIntrin() == "llvm.nvvm.barrier.cta.arrive.aligned.count") {
          turns.push_back(call);
          count = call.getArgs()[1];
        }
      });
      if (!count)
        return failure();
      getOperation().walk([&](NVVM::BarrierOp barrier) {
        std::optional<int64_t> threads =
            barrier.getNumberOfThreads()
                ? getConstantIntValue(barrier.getNumberOfThreads())
                : std::nullopt;
        if (threads && threads == getConstantIntValue(*count))
          turns.push_back(barrier);
      });
      for (Operation *turn : turns)
        turn->erase();
      return success();
    }
    if (bug == "wgmma-layout") {
      // The wgmma reads B in the other major order (K-major for N-major).
      auto mma = first<NVVM::WgmmaMmaAsyncOp>();
      if (!mma)
        return failure();
      mma.setLayoutB(mma.getLayoutB() == NVVM::MMALayout::row
                         ? NVVM::MMALayout::col
                         : NVVM::MMALayout::row);
      return success();
    }
    if (bug == "wgmma-register-a") {
      // The first wgmma with A in registers gets A's registers 1 and 2
      // (rows +8, columns +8 of the fragment) swapped.
      LLVM::InlineAsmOp found;
      getOperation().walk([&](LLVM::InlineAsmOp op) {
        if (!found && op.getAsmString().contains("wgmma.mma_async") &&
            op.getAsmString().contains("}, {"))
          found = op;
      });
      if (!found)
        return failure();
      // Operands: the N / 2 accumulators, A's four registers, descriptor B
      // and four immediates.
      unsigned a = found->getNumOperands() - 9;
      Value one = found->getOperand(a + 1);
      found->setOperand(a + 1, found->getOperand(a + 2));
      found->setOperand(a + 2, one);
      return success();
    }
    if (bug == "mbarrier-count") {
      // The first mbarrier expects no arrivals.
      auto init = first<NVVM::MBarrierInitOp>();
      if (!init)
        return failure();
      OpBuilder b(init);
      init->setOperand(
          1, arith::ConstantIntOp::create(b, init.getLoc(), b.getI32Type(), 0));
      return success();
    }
    if (bug == "cluster-arrive") {
      // The consumers' releases skip the last program of the cluster: its
      // empty barrier never counts them, and its producer waits forever.
      SmallVector<NVVM::MBarrierArriveOp> remote;
      getOperation().walk([&](NVVM::MBarrierArriveOp arrive) {
        if (arrive.getAddr().getDefiningOp<NVVM::MapaOp>())
          remote.push_back(arrive);
      });
      bool planted = false;
      for (NVVM::MBarrierArriveOp arrive : remote) {
        auto mapa = arrive.getAddr().getDefiningOp<NVVM::MapaOp>();
        if (auto rank = getConstantIntValue(mapa.getB()); rank && *rank == 1) {
          arrive.erase();
          planted = true;
        }
      }
      return success(planted);
    }
    if (bug == "wgmma-in-flight" || bug == "wgmma-release") {
      // The K loop that keeps one wgmma group in flight keeps two
      // (wait_group 2), or drops the barrier between its wait_group 1 and
      // the copies that refill the previous iteration's slots: either way
      // the copies overwrite a slot a wgmma may still read.
      auto wait = firstInLoop<NVVM::WgmmaWaitGroupSyncOp>();
      if (!wait || wait.getGroup() != 1)
        return failure();
      if (bug == "wgmma-in-flight") {
        wait.setGroup(2);
        return success();
      }
      for (Operation *op = wait->getNextNode(); op; op = op->getNextNode())
        if (isa<gpu::BarrierOp>(op)) {
          op->erase();
          return success();
        }
      return failure();
    }
    if (bug == "wgmma-untied-wait") {
      // The wait after the K loop becomes the plain intrinsic, the
      // accumulators no longer passing through it: LLVM may then read
      // them before it, and ptxas serializes the kernel's wgmmas.
      LLVM::InlineAsmOp wait;
      getOperation().walk([&](LLVM::InlineAsmOp op) {
        if (!wait && op.getAsmString().contains("wait for the accumulators") &&
            !op->getParentOfType<scf::ForOp>())
          wait = op;
      });
      if (!wait)
        return failure();
      OpBuilder b(wait);
      NVVM::WgmmaWaitGroupSyncOp::create(b, wait.getLoc(), 0);
      for (Operation *user : llvm::make_early_inc_range(wait->getUsers())) {
        auto extract = cast<LLVM::ExtractValueOp>(user);
        extract.replaceAllUsesWith(
            wait.getOperands()[extract.getPosition()[0]]);
        extract.erase();
      }
      wait.erase();
      return success();
    }
    if (bug == "wgmma-descriptor") {
      // The first wgmma's A descriptor gets a base offset (bits 49-51).
      auto mma = first<NVVM::WgmmaMmaAsyncOp>();
      if (!mma)
        return failure();
      OpBuilder b(mma);
      Value offset = arith::ConstantIntOp::create(b, mma.getLoc(),
                                                  b.getI64Type(), 1ll << 49);
      mma->setOperand(1, arith::OrIOp::create(b, mma.getLoc(),
                                              mma.getDescriptorA(), offset));
      return success();
    }
    if (bug == "tma-destination") {
      // The first bulk tensor copy lands 16 bytes past its buffer's start,
      // off the 1024-byte alignment 128-byte swizzling needs.
      auto copy = first<NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp>();
      if (!copy)
        return failure();
      OpBuilder b(copy);
      Value dest = copy.getDstMem();
      copy.getDstMemMutable().assign(
          LLVM::GEPOp::create(b, copy.getLoc(), dest.getType(), b.getI8Type(),
                              dest, ArrayRef<LLVM::GEPArg>{16}));
      return success();
    }
    if (bug == "buffer-extent") {
      // Every buffer resource ends 2 bytes before the view does: the last
      // 16-byte chunk of a view is partly out of range.
      bool planted = false;
      getOperation().walk([&](ROCDL::MakeBufferRsrcOp make) {
        OpBuilder b(make);
        Value two =
            arith::ConstantIntOp::create(b, make.getLoc(), b.getI64Type(), 2);
        make.getNumRecordsMutable().assign(
            arith::SubIOp::create(b, make.getLoc(), make.getNumRecords(), two));
        planted = true;
      });
      return success(planted);
    }
    if (bug == "buffer-mask") {
      // A chunk wholly outside the view loads from its own offset instead
      // of out of range: past a row's last column that is the next row.
      bool planted = false;
      getOperation().walk([&](ROCDL::RawPtrBufferLoadOp load) {
        auto select = load.getOffset().getDefiningOp<arith::SelectOp>();
        if (!select || !isa<VectorType>(load.getType()))
          return;
        load.getOffsetMutable().assign(select.getFalseValue());
        planted = true;
      });
      return success(planted);
    }
    if (bug == "buffer-store-mask") {
      // Buffer stores of elements outside the view store at their own
      // offset instead of out of range: past a row's last column that is
      // the next row.
      bool planted = false;
      getOperation().walk([&](ROCDL::RawPtrBufferStoreOp store) {
        auto select = store.getOffset().getDefiningOp<arith::SelectOp>();
        if (!select)
          return;
        store.getOffsetMutable().assign(select.getTrueValue());
        planted = true;
      });
      return success(planted);
    }
    if (bug == "inline-asm" || bug == "unknown-intrinsic") {
      // Device code the emulator cannot run: an inline PTX comment, or a
      // nanosleep, at the start of the first kernel.
      auto func = first<gpu::GPUFuncOp>();
      if (!func)
        return failure();
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      Location loc = func.getLoc();
      if (bug == "inline-asm") {
        LLVM::InlineAsmOp::create(
            b, loc, TypeRange{}, ValueRange{}, "// planted", "",
            /*has_side_effects=*/true, /*is_align_stack=*/false,
            LLVM::tailcallkind::TailCallKind::None, /*asm_dialect=*/nullptr,
            /*operand_attrs=*/nullptr);
      } else {
        Value nanoseconds =
            LLVM::ConstantOp::create(b, loc, b.getI32IntegerAttr(100));
        LLVM::CallIntrinsicOp::create(b, loc,
                                      b.getStringAttr("llvm.nvvm.nanosleep"),
                                      ValueRange{nanoseconds});
      }
      return success();
    }
    getOperation().emitError() << "unknown bug '" << bug << "'";
    return failure();
  }

  void runOnOperation() override {
    if (failed(plant())) {
      getOperation().emitError()
          << "test-gpu-plant-bug: nowhere to plant '" << bug << "'";
      signalPassFailure();
    }
  }
};
} // namespace

void tessera::test::registerTestGPUPlantBugPass() {
  PassRegistration<TestGPUPlantBugPass>();
}
