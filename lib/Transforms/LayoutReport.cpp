//===- LayoutReport.cpp - What tile-assign-layouts chose and proved -------===//

#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Layout/MmaLayouts.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"

namespace tessera {
#define GEN_PASS_DEF_TILELAYOUTREPORT
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

/// The swizzle a shared buffer carries (identity without `tile.swizzle`).
static Swizzle getSwizzle(tile::AllocSharedOp alloc) {
  if (auto attr = tile::TileDialect::SwizzleAttrHelper(alloc->getContext())
                      .getAttr(alloc))
    return attr.toSwizzle();
  return Swizzle{};
}

static std::string describe(const Swizzle &s) {
  if (s.isIdentity())
    return "no swizzle";
  return "swizzle vec " + std::to_string(s.vec) + ", per_phase " +
         std::to_string(s.perPhase) + ", max_phase " +
         std::to_string(s.maxPhase);
}

namespace {
struct TileLayoutReportPass
    : public tessera::impl::TileLayoutReportBase<TileLayoutReportPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    AsmState state(module);
    auto name = [&](Value v) {
      std::string s;
      llvm::raw_string_ostream os(s);
      v.printAsOperand(os, state);
      return s;
    };
    int64_t numWarps = 1;
    const TargetInfo *target = getModuleTarget(module);
    bool amd = target && target->vendor == Vendor::Amd;
    module.walk([&](Operation *op) {
      if (auto kernel = dyn_cast<tile::KernelOp>(op))
        numWarps = kernel.getThreads() / (target ? target->warpSize : 32);
      for (Value result : op->getResults()) {
        auto type = dyn_cast<RankedTensorType>(result.getType());
        auto attr = type ? dyn_cast_if_present<tile::LinearLayoutAttr>(
                               type.getEncoding())
                         : nullptr;
        if (!attr)
          continue;
        if (auto load = dyn_cast<tile::LoadOp>(op);
            load && isa<tile::SharedType>(load.getSource().getType()) &&
            tile::TileDialect::TmaAttrHelper(op->getContext())
                .isAttrPresent(load.getSource().getDefiningOp())) {
          op->emitRemark() << "layout of " << name(result)
                           << ": not held in registers; wgmma reads it from "
                              "shared memory";
          continue;
        }
        LinearLayout l = attr.toLinearLayout(type.getShape());
        // Zero lane and warp bases: threads holding the same elements.
        int64_t holders = 1;
        for (LinearLayout::InDim in : {LinearLayout::Lane, LinearLayout::Warp})
          for (const Coord &basis : l.getBases(in))
            if (llvm::all_of(basis, [](int64_t c) { return c == 0; }))
              holders *= 2;
        InFlightDiagnostic remark = op->emitRemark()
                                    << "layout of " << name(result) << ": "
                                    << l.getSize(LinearLayout::Register)
                                    << " registers per thread, covers its tile "
                                       "exactly; "
                                    << l.str();
        if (holders > 1)
          remark << "; each element held by " << holders << " threads";
        if (auto convert = dyn_cast<tile::ConvertLayoutOp>(op)) {
          auto source = cast<RankedTensorType>(convert.getSource().getType());
          LinearLayout from = cast<tile::LinearLayoutAttr>(source.getEncoding())
                                  .toLinearLayout(source.getShape());
          if (from == l)
            remark << "; converted from the same layout (no code)";
          else if (registerPermutation(from, l))
            remark << "; converted from " << from.str()
                   << " by renaming registers";
          else
            remark << "; converted from " << from.str() << " through "
                   << l.getNumElements() *
                          conversionSlotBits(from,
                                             source.getElementTypeBitWidth()) /
                          8
                   << " bytes of shared memory (stores, barrier, loads, "
                      "barrier)";
        }
      }
      auto alloc = dyn_cast<tile::AllocSharedOp>(op);
      if (!alloc)
        return;
      tile::SharedType type = alloc.getType();
      // int4 nibble pairs [rows, n, 2] are rows of n bytes.
      SmallVector<int64_t> shape = type.getStoredShape();
      int64_t bytes = type.getStoredElementBits() / 8;
      bool packed = tile::isNibblePairs(type.getElementType(), type.getShape());
      if (shape.size() != 2)
        return;
      if (tile::TileDialect::TmaAttrHelper(op->getContext())
              .isAttrPresent(alloc)) {
        // sm_90a: the layout TMA writes and wgmma reads: 128-byte panels,
        // or narrower rows swizzled over their own bytes.
        int64_t rowBytes = shape[1] * bytes;
        int64_t span = rowBytes % 128 == 0 ? 128 : rowBytes;
        bool gathered = tile::isGatheredInto(alloc.getResult());
        InFlightDiagnostic remark =
            alloc.emitRemark()
            << "shared " << name(alloc) << ": " << span << "-byte swizzle in "
            << rowBytes / span << " panel(s) of " << span
            << "-byte rows, 1024-byte aligned; written by "
            << (gathered ? "the threads' cp.async (gathered rows), fenced "
                           "for the async proxy"
                         : "bulk tensor copies (TMA) onto mbarriers");
        for (Operation *user : alloc->getUsers())
          if (auto load = dyn_cast<tile::LoadOp>(user))
            for (Operation *reader : load->getUsers()) {
              auto mma = cast<tile::MmaOp>(reader);
              remark << "; read by " << name(mma.getResult())
                     << " with wgmma through a "
                     << (load.getResult() == mma.getA() || mma.getTransposeB()
                             ? "K"
                             : "N")
                     << "-major matrix descriptor";
            }
        remark << "; bank conflicts of TMA and wgmma are not modelled";
        return;
      }
      Swizzle swizzle = getSwizzle(alloc);
      InFlightDiagnostic remark = alloc.emitRemark()
                                  << "shared " << name(alloc) << ": "
                                  << describe(swizzle);
      if (bytes == 0 || !isPowerOfTwoShape(shape))
        return;
      bool copied = llvm::any_of(alloc->getUsers(), [](Operation *user) {
        return isa<tile::CopyOp>(user);
      });
      // Register tiles stored into the buffer: runs of a row per vector
      // store, as the lowering emits them.
      auto describeStores = [&] {
        for (Operation *user : alloc->getUsers())
          if (auto store = dyn_cast<tile::StoreOp>(user))
            if (auto attr = dyn_cast_if_present<tile::LinearLayoutAttr>(
                    store.getValue().getType().getEncoding())) {
              int64_t run = contiguousRowRun(
                  attr.toLinearLayout(store.getValue().getType().getShape()),
                  swizzle, 8 * bytes);
              remark << "; written by " << name(store.getValue())
                     << (run > 1 ? " with " + std::to_string(run * bytes) +
                                       "-byte vector stores"
                                 : std::string(" element by element"));
            }
      };
      if (amd) {
        // The access widths the lowering uses; CDNA's LDS banking is not
        // modelled, so no degree is claimed.
        if (copied)
          remark << "; written by copies with 16-byte stores";
        describeStores();
        for (Operation *user : alloc->getUsers())
          if (auto load = dyn_cast<tile::LoadOp>(user))
            if (auto attr = dyn_cast_if_present<tile::LinearLayoutAttr>(
                    load.getType().getEncoding())) {
              int64_t run =
                  packed ? 1
                         : contiguousRowRun(
                               attr.toLinearLayout(load.getType().getShape()),
                               swizzle, 8 * bytes);
              remark << "; read by " << name(load)
                     << (run > 1 ? " with " + std::to_string(run * bytes) +
                                       "-byte vector loads"
                                 : std::string(" element by element"));
            }
        remark << "; LDS bank conflicts are not modelled for " << target->chip
               << " yet";
        return;
      }
      LinearLayout copy =
          atoms::coalescedCopy(shape[0], shape[1], 8 * bytes, numWarps);
      if (copied)
        remark << "; written by 16-byte copies, bank-conflict degree "
               << copyConflictDegree(copy, bytes, swizzle);
      describeStores();
      for (Operation *user : alloc->getUsers()) {
        auto load = dyn_cast<tile::LoadOp>(user);
        if (!load)
          continue;
        auto result = cast<RankedTensorType>(load.getType());
        auto attr =
            dyn_cast_if_present<tile::LinearLayoutAttr>(result.getEncoding());
        if (!attr)
          continue;
        LinearLayout l = attr.toLinearLayout(result.getShape());
        std::string why;
        std::optional<LdmatrixPlan> plan;
        if (!packed)
          plan = planLdmatrix(l, &why);
        if (!plan) {
          remark << "; read by " << name(load) << " element by element ("
                 << (packed ? "int4 codes from their bytes" : why)
                 << "), bank-conflict degree "
                 << elementConflictDegree(l, bytes, swizzle);
          continue;
        }
        remark << "; read by " << name(load) << " with ldmatrix.x"
               << plan->numMatrices << (plan->transpose ? ".trans" : "")
               << ", 16 bytes per lane, bank-conflict degree "
               << ldmatrixConflictDegree(l, *plan, bytes, swizzle);
      }
    });
  }
};
} // namespace
