//===- AssignLayouts.cpp - Distributed layouts for register tiles ---------===//
//
// tile-set-target names the chip; tile-assign-layouts gives every register
// tile of a kernel an F2 layout (the tensor's #tile.linear encoding) and
// every shared buffer a swizzle. Anchors are the MMAs (their operands take
// the instruction's fragments tiled over the warps); the other tiles take
// the layout of the values they are tied to (loop-carried values, element-
// wise operands and results), and tiles tied to no anchor a coalesced
// layout. Gathers and scatters give their row indices the slice of the
// rows they choose; a gathering copy's indices take its coalesced copy
// layout without the columns. A tile needed in a second layout gets a
// tile.convert_layout (before the use that needs it, or after the value
// for its other uses), and the kernel is laid out again with it. Tag ops,
// and the ghost code that feeds only them, are dropped first: tag-check
// has run, and only the code that runs is laid out.
//
//===----------------------------------------------------------------------===//

#include "CopyOuts.h"

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Layout/MmaLayouts.h"
#include "tessera/Target/TargetInfo.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <set>

namespace tessera {
#define GEN_PASS_DEF_TILESETTARGET
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

namespace {
struct TileSetTargetPass
    : public tessera::impl::TileSetTargetBase<TileSetTargetPass> {
  using TileSetTargetBase::TileSetTargetBase;
  void runOnOperation() override {
    if (!lookupTarget(chip)) {
      getOperation().emitError()
          << "unknown chip '" << chip << "'; known: " << listTargets();
      return signalPassFailure();
    }
    setModuleTarget(getOperation(), chip);
  }
};

/// Ops whose tile results are computed element by element from tile
/// operands of the same shape: operands and results share one layout.
bool isElementwise(Operation *op) {
  if (isa<tile::SelectOp>(op))
    return true;
  if (!op->hasTrait<OpTrait::Elementwise>() || op->getNumResults() != 1)
    return false;
  return llvm::all_of(op->getOperandTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

class LayoutAssigner {
public:
  LayoutAssigner(tile::KernelOp kernel, const TargetInfo &target)
      : kernel(kernel), target(target),
        numWarps(kernel.getThreads() / target.warpSize) {}

  /// Assigns layouts, inserting tile.convert_layout where a tile is needed
  /// in a second layout (and starting over, at most kMaxConversions times).
  LogicalResult run();

private:
  static constexpr int kMaxConversions = 64;
  /// One attempt: fails with `converted` set when it placed a conversion
  /// (a tile needed in a second layout).
  LogicalResult assign();
  /// Resolves `value`'s conflict at `user` (it has `known`, `user` needs
  /// `wanted`) with a conversion: before `use` when given, else before the
  /// uses `user` (or its regions' terminators) make; when `value` is
  /// `user`'s result or block argument, or `user` does not use it, after
  /// the value for its other uses (the value takes `wanted`).
  void convert(Value value, const LinearLayout &known,
               const LinearLayout &wanted, Operation *user, OpOperand *use);
  /// Gives `value` `layout`, or fails when it has another; with
  /// `permutable`, another that gives every thread the same elements in
  /// other registers will do (the user looks its elements up by
  /// coordinate: a broadcast's input, a quantization's scales).
  LogicalResult require(Value value, const LinearLayout &layout,
                        Operation *user, bool permutable = false,
                        OpOperand *use = nullptr);
  LogicalResult anchorMma(tile::MmaOp mma);
  /// Why `mma` cannot run as wgmma reading its operands from TMA-filled
  /// shared tiles; empty when it can.
  /// With `checkSharers`, every other MMA that reads the same A tile from
  /// shared memory must run as wgmma too.
  std::string whyNotWgmma(tile::MmaOp mma, bool checkSharers = true);
  /// Gives every value of `group` the layout one of them has; reports
  /// whether anything changed.
  FailureOr<bool> unify(ArrayRef<Value> group, Operation *op);
  LogicalResult checkSupported(Operation *op);
  LinearLayout defaultLayout(RankedTensorType type);
  void apply();

  tile::KernelOp kernel;
  const TargetInfo &target;
  int64_t numWarps;
  /// Attention-shaped kernels (rows of an MMA result reduced, or an MMA
  /// result feeding another MMA's A operand) give each warp whole rows, so
  /// that neither needs shared memory or a layout conversion.
  bool warpsAlongM = false;
  llvm::MapVector<Value, LinearLayout> layouts;
  bool converted = false;
};
} // namespace

/// Whether wgmma reads `mma`'s A from registers: it is not a tile.load of a
/// shared buffer.
static bool isRegisterA(tile::MmaOp mma) {
  auto load = mma.getA().getDefiningOp<tile::LoadOp>();
  return !load || !load.getSource().getDefiningOp<tile::AllocSharedOp>();
}

/// Whether, in every thread, `lhs` and `rhs` hold the same elements.
static bool sameElementsPerThread(const LinearLayout &lhs,
                                  const LinearLayout &rhs) {
  if (lhs.getShape() != rhs.getShape() ||
      lhs.getSize(LinearLayout::Lane) != rhs.getSize(LinearLayout::Lane) ||
      lhs.getSize(LinearLayout::Warp) != rhs.getSize(LinearLayout::Warp))
    return false;
  for (int64_t warp = 0; warp < lhs.getSize(LinearLayout::Warp); ++warp)
    for (int64_t lane = 0; lane < lhs.getSize(LinearLayout::Lane); ++lane) {
      auto held = [&](const LinearLayout &layout) {
        std::set<Coord> coords;
        for (int64_t reg = 0; reg < layout.getSize(LinearLayout::Register);
             ++reg)
          coords.insert(layout.apply(reg, lane, warp));
        return coords;
      };
      if (held(lhs) != held(rhs))
        return false;
    }
  return true;
}

LogicalResult LayoutAssigner::require(Value value, const LinearLayout &layout,
                                      Operation *user, bool permutable,
                                      OpOperand *use) {
  auto [it, inserted] = layouts.try_emplace(value, layout);
  if (inserted || it->second == layout ||
      (permutable && sameElementsPerThread(it->second, layout)))
    return success();
  // Placed now; the next attempt lays the kernel out with it.
  convert(value, it->second, layout, user, use);
  converted = true;
  return failure();
}

void LayoutAssigner::convert(Value value, const LinearLayout &known,
                             const LinearLayout &wanted, Operation *user,
                             OpOperand *operand) {
  MLIRContext *ctx = kernel.getContext();
  auto type = cast<RankedTensorType>(value.getType());
  auto encoded = [&](const LinearLayout &layout) {
    return RankedTensorType::get(type.getShape(), type.getElementType(),
                                 tile::LinearLayoutAttr::get(ctx, layout));
  };
  OpBuilder builder(ctx);
  auto arg = dyn_cast<BlockArgument>(value);
  bool definedByUser = value.getDefiningOp() == user ||
                       (arg && arg.getOwner()->getParentOp() == user);
  SmallVector<OpOperand *> uses;
  if (operand)
    uses.push_back(operand);
  else
    for (OpOperand &use : value.getUses()) {
      Operation *owner = use.getOwner();
      if (owner == user || (owner->hasTrait<OpTrait::IsTerminator>() &&
                            owner->getParentOp() == user))
        uses.push_back(&use);
    }
  if (!definedByUser && !uses.empty()) {
    // The uses take `wanted`: a constant is made again there, anything else
    // converted (from the original when the value is itself a conversion).
    Value source = value;
    if (auto earlier = value.getDefiningOp<tile::ConvertLayoutOp>())
      source = earlier.getSource();
    for (OpOperand *use : uses) {
      builder.setInsertionPoint(use->getOwner());
      if (auto constant = value.getDefiningOp<arith::ConstantOp>())
        use->set(builder.clone(*constant)->getResult(0));
      else
        use->set(tile::ConvertLayoutOp::create(
            builder, use->getOwner()->getLoc(), encoded(wanted), source));
    }
    return;
  }
  // The value takes `wanted`; its other uses keep `known`.
  if (arg)
    builder.setInsertionPointToStart(arg.getOwner());
  else
    builder.setInsertionPointAfterValue(value);
  auto conversion = tile::ConvertLayoutOp::create(builder, value.getLoc(),
                                                  encoded(known), value);
  value.replaceAllUsesExcept(conversion, conversion);
}

LogicalResult LayoutAssigner::anchorMma(tile::MmaOp mma) {
  auto a = cast<RankedTensorType>(mma.getA().getType());
  auto b = cast<RankedTensorType>(mma.getB().getType());
  Type element = a.getElementType();
  // 8-bit integers with 32-bit accumulators: mma.sync m16n8k32.
  Type accElement =
      cast<RankedTensorType>(mma.getAcc().getType()).getElementType();
  bool int8 = element.isInteger(8) && b.getElementType() == element &&
              accElement.isInteger(32);
  // f8E4M3FN codes with f32 accumulators run as bf16 MMAs over the decoded
  // codes (exact in bf16) with the 16-bit atoms, or on gfx942's fp8 MFMA.
  bool fp8 = isa<Float8E4M3FNType>(element) && b.getElementType() == element &&
             accElement.isF32();
  if (!int8 && !fp8 &&
      (!(element.isBF16() || element.isF16()) || b.getElementType() != element))
    return mma.emitOpError("on ")
           << element << " operands is not supported by the " << target.chip
           << " backend yet (bf16 and f16 are, i8 with i32 accumulators and "
              "f8E4M3FN with f32 ones)";
  if (a.getRank() != 2 || b.getRank() != 2)
    return mma.emitOpError("with batch dimensions is not supported by the ")
           << target.chip << " backend yet";
  std::string why;
  // Transposed operands are stored [K, M] / [N, K]: the same holders with
  // coordinates swapped.
  bool ta = mma.getTransposeA(), tb = mma.getTransposeB();
  int64_t m = a.getDimSize(ta ? 1 : 0), k = a.getDimSize(ta ? 0 : 1),
          n = b.getDimSize(tb ? 0 : 1);
  LinearLayout la, lb, lc;
  tile::MmaKind kind = mma.getKind().value_or(tile::MmaKind::automatic);
  if (kind == tile::MmaKind::wgmma && target.asyncCopy != AsyncCopyKind::Tma)
    return mma.emitOpError("of kind wgmma needs sm_90a, not ") << target.chip;
  if (target.asyncCopy == AsyncCopyKind::Tma &&
      (kind == tile::MmaKind::automatic || kind == tile::MmaKind::wgmma)) {
    std::string notWgmma = whyNotWgmma(mma);
    if (notWgmma.empty()) {
      // Operands in shared memory stay there (their loads keep a
      // placeholder layout and emit no code); an A in registers takes the
      // register fragments, the accumulator wgmma's.
      std::optional<WgmmaLayouts> l = getWgmmaLayouts(
          m, n, k, numWarps, &why, element.getIntOrFloatBitWidth());
      mma.setKind(tile::MmaKind::wgmma);
      bool registerA = isRegisterA(mma);
      for (Value operand : {mma.getA(), mma.getB()}) {
        if (operand == mma.getA() && registerA)
          continue;
        auto load = operand.getDefiningOp<tile::LoadOp>();
        tile::TileDialect::TmaAttrHelper(mma.getContext())
            .setAttr(load.getSource().getDefiningOp(),
                     UnitAttr::get(mma.getContext()));
      }
      if ((registerA &&
           failed(require(mma.getA(), l->a, mma, false, &mma.getAMutable()))) ||
          failed(
              require(mma.getAcc(), l->c, mma, false, &mma.getAccMutable())) ||
          failed(require(mma.getResult(), l->c, mma)))
        return failure();
      return success();
    }
    if (kind == tile::MmaKind::wgmma)
      return mma.emitOpError("cannot run as wgmma: ") << notWgmma;
  }
  if (target.vendor == Vendor::Amd) {
    // The chip's 32x32 atom: K = 8 for 16-bit operands; for int8, 8 on
    // gfx90a and 16 on gfx942; for fp8, gfx942's 32x32x16 fp8 MFMA, or on
    // gfx90a the bf16 one over the decoded codes. The accumulators
    // of 8-bit MMAs are transposed so that the row scales of quantized
    // activations, held as A holds its rows, apply to them without a
    // layout conversion.
    // Tiles too small for whole 32x32 blocks per wave take the 16x16 atom.
    const MmaAtom *atom = target.findMfma(element, accElement);
    assert(atom && atom->m == 32 && "every CDNA chip has 32x32 MFMAs");
    std::optional<MfmaLayouts> l =
        getMfmaLayouts(m, n, k, numWarps, &why, warpsAlongM, 32, atom->k,
                       /*transposeC=*/int8 || fp8);
    if (const MmaAtom *small = target.findMfma(element, accElement, 16);
        !l && small) {
      std::string whySmall;
      l = getMfmaLayouts(m, n, k, numWarps, &whySmall, warpsAlongM, 16,
                         small->k, int8 || fp8);
      if (!l)
        why += "; 16x16x" + std::to_string(small->k) + ": " + whySmall;
    }
    if (!l)
      return mma.emitOpError("cannot be distributed over v_mfma ")
             << (int8 ? "i32" : "f32") << " 32x32x" << atom->k << ": " << why;
    la = l->a, lb = l->b, lc = l->c;
  } else {
    std::optional<MmaSyncLayouts> l =
        getMmaSyncLayouts(m, n, k, numWarps, &why, warpsAlongM, int8,
                          /*moreAlongM=*/fp8);
    if (!l)
      return mma.emitOpError("cannot be distributed over mma.sync: ") << why;
    la = l->a, lb = l->b, lc = l->c;
  }
  if (failed(require(mma.getA(), ta ? la.transposed() : la, mma, false,
                     &mma.getAMutable())) ||
      failed(require(mma.getB(), tb ? lb.transposed() : lb, mma, false,
                     &mma.getBMutable())) ||
      failed(require(mma.getAcc(), lc, mma, false, &mma.getAccMutable())) ||
      failed(require(mma.getResult(), lc, mma)))
    return failure();
  return success();
}

std::string LayoutAssigner::whyNotWgmma(tile::MmaOp mma, bool checkSharers) {
  auto a = cast<RankedTensorType>(mma.getA().getType());
  // A is read K-major; B N-major, or K-major when stored transposed.
  if (mma.getTransposeA())
    return "a transposed A operand is not supported yet";
  Type element = a.getElementType();
  auto b = cast<RankedTensorType>(mma.getB().getType());
  bool fp8 = isa<Float8E4M3FNType>(element);
  if (!element.isBF16() && !element.isF16() && !fp8)
    return "wgmma on " + std::to_string(element.getIntOrFloatBitWidth()) +
           "-bit integers is not supported yet";
  if (!cast<RankedTensorType>(mma.getAcc().getType()).getElementType().isF32())
    return "the accumulator is not f32";
  if (fp8) {
    // PTX: 8-bit wgmma takes no transpose immediates; both operands are
    // K-major.
    if (!mma.getTransposeB())
      return "8-bit wgmma reads B K-major only, and B is stored [K, N] "
             "(no transpose_b)";
    if (!isRegisterA(mma))
      return "8-bit wgmma with A read from shared memory is not supported "
             "yet";
  }
  int64_t m = a.getDimSize(0), k = a.getDimSize(1),
          n = b.getDimSize(mma.getTransposeB() ? 0 : 1);
  std::string why;
  std::optional<WgmmaLayouts> l =
      getWgmmaLayouts(m, n, k, numWarps, &why, element.getIntOrFloatBitWidth());
  if (!l)
    return why;
  if (m > 256 || k > 256 || n > 256)
    return "an operand tile has more than 256 rows (a TMA box's limit)";
  // An A that is not loaded from shared memory (attention's P, a gather)
  // stays in registers: wgmma's register operand, in its fragments.
  SmallVector<Value, 2> shared = {mma.getB()};
  if (!isRegisterA(mma))
    shared.insert(shared.begin(), mma.getA());
  else if (auto it = layouts.find(mma.getA());
           it != layouts.end() && it->second != l->a &&
           mma.getKind() != tile::MmaKind::wgmma)
    return "the A operand is in registers in another layout than wgmma's "
           "register fragments";
  // An A tile may be read by several MMAs (MoE's gate and up projections
  // of one token tile), each as its A: all of them then read it from shared
  // memory, so each must be able to.
  auto onlyA = [](Value tile) {
    return llvm::all_of(tile.getUsers(), [&](Operation *user) {
      auto other = dyn_cast<tile::MmaOp>(user);
      return other && other.getA() == tile && other.getB() != tile;
    });
  };
  for (Value operand : shared) {
    auto load = operand.getDefiningOp<tile::LoadOp>();
    bool sharedA =
        operand == mma.getA() && !operand.hasOneUse() && onlyA(operand);
    if (!load || (!operand.hasOneUse() && !sharedA))
      return "an operand is not a tile.load from shared memory used only by "
             "this MMA (or only as the A of MMAs)";
    if (sharedA && checkSharers)
      for (Operation *user : operand.getUsers())
        if (user != mma.getOperation() &&
            !whyNotWgmma(cast<tile::MmaOp>(user), /*checkSharers=*/false)
                 .empty())
          return "another MMA reading the same A cannot run as wgmma";
    auto alloc = load.getSource().getDefiningOp<tile::AllocSharedOp>();
    if (!alloc)
      return "an operand is not loaded from a shared buffer";
    // Only TMA (or the threads' cp.async, for gathered rows) fills the
    // buffer, and only wgmma reads it.
    for (Operation *user : alloc->getUsers()) {
      if (auto copy = dyn_cast<tile::CopyOp>(user)) {
        auto arg = dyn_cast<BlockArgument>(copy.getSource());
        int64_t rank = copy.getSource().getType().getRank();
        if (!copy.getRows() &&
            (!arg || arg.getOwner()->getParentOp() != kernel || rank < 2 ||
             rank > 3))
          return "a copy into an operand's buffer is not from a 2-D or 3-D "
                 "kernel argument";
        if (auto pad = copy.getPadAttr())
          if (!matchPattern(pad, m_AnyZeroFloat()) &&
              !matchPattern(pad, m_Zero()))
            return "a copy into an operand's buffer pads with non-zeros";
        continue;
      }
      auto other = dyn_cast<tile::LoadOp>(user);
      bool forThis =
          other && llvm::is_contained(other->getUsers(), mma.getOperation());
      if (!forThis ||
          !(other->hasOneUse() || (sharedA && onlyA(other.getResult()))))
        return "an operand's shared buffer is used other than by copies "
               "into it and loads for this MMA";
    }
  }
  // getWgmmaLayouts' K (a multiple of 64) and N (at least 64, a power of
  // two) make every stored row whole 128-byte swizzle rows, or 64-byte
  // rows (8-bit K-major B with K = 64) that TMA swizzles over 64 bytes.
  return "";
}

FailureOr<bool> LayoutAssigner::unify(ArrayRef<Value> group, Operation *op) {
  const LinearLayout *known = nullptr;
  for (Value v : group)
    if (auto it = layouts.find(v); it != layouts.end()) {
      known = &it->second;
      break;
    }
  if (!known)
    return false;
  LinearLayout layout = *known;
  bool changed = false;
  for (Value v : group) {
    if (!layouts.count(v))
      changed = true;
    if (failed(require(v, layout, op)))
      return failure();
  }
  return changed;
}

LogicalResult LayoutAssigner::checkSupported(Operation *op) {
  if (auto unpack = dyn_cast<tile::UnpackOp>(op);
      unpack && !unpack.hasNaturalOrder())
    return op->emitOpError("with a permuted order is not supported by the ")
           << target.chip << " backend yet";
  if (auto quant = dyn_cast<tile::QuantOp>(op)) {
    // int8 and fp8 codes feed the 8-bit MMAs.
    Type codes = quant.getCodes().getType().getElementType();
    if (!codes.isInteger(8) && !isa<Float8E4M3FNType>(codes))
      return op->emitOpError("to ")
             << codes << " is not supported by the " << target.chip
             << " backend yet (i8 and f8E4M3FN are)";
  }
  for (Value result : op->getResults())
    if (auto type = dyn_cast<RankedTensorType>(result.getType()))
      if (!isPowerOfTwoShape(type.getShape()))
        return op->emitOpError("makes a tile whose sizes are not powers of "
                               "two, which the ")
               << target.chip << " backend does not lay out yet";
  return success();
}

LinearLayout LayoutAssigner::defaultLayout(RankedTensorType type) {
  SmallVector<int64_t> shape(type.getShape());
  int64_t rows = shape.size() == 2 ? shape[0] : 1;
  int64_t cols = shape.back();
  // Index elements are 64 bits wide in the per-thread code.
  Type element = type.getElementType();
  unsigned bits =
      element.isIndex() ? 64 : std::max(8u, element.getIntOrFloatBitWidth());
  LinearLayout copy =
      atoms::coalescedCopy(rows, cols, bits, numWarps, target.warpSize);
  if (shape.size() == 2)
    return copy;
  // 1-D: the copy of one row, without its row coordinate.
  return copy.sliced({0});
}

void LayoutAssigner::apply() {
  MLIRContext *ctx = kernel.getContext();
  for (auto &[value, layout] : layouts) {
    auto type = cast<RankedTensorType>(value.getType());
    auto encoded =
        RankedTensorType::get(type.getShape(), type.getElementType(),
                              tile::LinearLayoutAttr::get(ctx, layout));
    value.setType(encoded);
    if (auto constant = value.getDefiningOp<arith::ConstantOp>())
      if (auto dense = dyn_cast<DenseElementsAttr>(constant.getValue()))
        constant.setValueAttr(dense.reshape(encoded));
  }
}

LogicalResult LayoutAssigner::run() {
  for (int attempt = 0;; ++attempt) {
    layouts.clear();
    converted = false;
    warpsAlongM = false;
    // Conversions an earlier attempt placed keep their layouts; those that
    // lost their uses go.
    SmallVector<tile::ConvertLayoutOp> conversions;
    kernel.walk([&](tile::ConvertLayoutOp op) { conversions.push_back(op); });
    for (tile::ConvertLayoutOp op : conversions) {
      if (op.use_empty()) {
        op.erase();
        continue;
      }
      if (auto attr = dyn_cast_if_present<tile::LinearLayoutAttr>(
              op.getType().getEncoding()))
        layouts.insert(
            {op.getResult(), attr.toLinearLayout(op.getType().getShape())});
    }
    if (succeeded(assign()))
      return success();
    if (!converted)
      return failure();
    if (attempt == kMaxConversions)
      return kernel.emitOpError("needs more than ")
             << kMaxConversions << " layout conversions";
  }
}

LogicalResult LayoutAssigner::assign() {
  if (kernel.getThreads() % target.warpSize)
    return kernel.emitOpError("runs ")
           << kernel.getThreads() << " threads, not a whole number of "
           << target.warpSize << "-thread warps of " << target.chip;
  kernel.walk([&](tile::ReduceOp reduce) {
    if (cast<RankedTensorType>(reduce.getInput().getType()).getRank() == 2 &&
        reduce.getDim() == 1)
      warpsAlongM = true;
  });
  kernel.walk([&](tile::MmaOp mma) {
    SetVector<Operation *> slice;
    BackwardSliceOptions options;
    options.omitBlockArguments = true;
    (void)getBackwardSlice(mma.getA(), &slice, options);
    if (llvm::any_of(slice, [](Operation *op) { return isa<tile::MmaOp>(op); }))
      warpsAlongM = true;
  });
  WalkResult walk = kernel.walk([&](Operation *op) {
    if (failed(checkSupported(op)))
      return WalkResult::interrupt();
    if (auto mma = dyn_cast<tile::MmaOp>(op))
      if (failed(anchorMma(mma)))
        return WalkResult::interrupt();
    // A gathering copy's row indices: each thread holds those of the rows
    // whose chunks it moves (the copy's layout without its columns).
    if (auto copy = dyn_cast<tile::CopyOp>(op); copy && copy.getRows()) {
      tile::SharedType dest = copy.getDest().getType();
      LinearLayout chunks = atoms::coalescedCopy(
          dest.getShape()[0], dest.getShape()[1], dest.getStoredElementBits(),
          numWarps, target.warpSize);
      if (failed(require(copy.getRows(), chunks.sliced({1}), op)))
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();

  // Propagate through ties until nothing changes; then lay out the rest
  // coalesced and propagate again.
  SmallVector<std::pair<SmallVector<Value>, Operation *>> ties;
  kernel.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs()))
        if (isa<RankedTensorType>(arg.getType()))
          ties.push_back({{loop.getInitArgs()[i], arg, yield.getOperand(i),
                           loop.getResult(i)},
                          op});
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      // Both branches yield a tile in the result's layout.
      for (auto [i, result] : llvm::enumerate(branch.getResults()))
        if (isa<RankedTensorType>(result.getType())) {
          SmallVector<Value> group = {result};
          for (Region *region :
               {&branch.getThenRegion(), &branch.getElseRegion()})
            if (!region->empty())
              group.push_back(region->front().getTerminator()->getOperand(i));
          ties.push_back({group, op});
        }
    } else if (isElementwise(op)) {
      SmallVector<Value> group(op->getOperands());
      group.append(op->result_begin(), op->result_end());
      ties.push_back({group, op});
    }
  });
  // Reductions and broadcasts: the lower-rank side takes the slice of the
  // higher-rank side's layout (from reduction inputs to results, from
  // broadcast results to inputs).
  SmallVector<std::tuple<Value, Value, SmallVector<unsigned>, Operation *>>
      slices; // (from, to, dropped dims, op)
  // Layouts derived from another value's (from, to, how, op): the packed
  // codes of an unpack, the scales of a (de)quantization, the input of a
  // broadcast that expands unit dimensions; `permutable` as for require.
  struct Derived {
    Value from, to;
    std::function<LinearLayout(const LinearLayout &)> how;
    Operation *op;
    bool permutable = false;
  };
  SmallVector<Derived> derived;
  kernel.walk([&](Operation *op) {
    if (auto reduce = dyn_cast<tile::ReduceOp>(op))
      slices.push_back({reduce.getInput(),
                        reduce.getResult(),
                        {unsigned(reduce.getDim())},
                        op});
    else if (auto broadcast = dyn_cast<tile::BroadcastOp>(op)) {
      ArrayRef<int64_t> shape = broadcast.getType().getShape();
      ArrayRef<int64_t> inShape = broadcast.getInput().getType().getShape();
      if (shape.size() != inShape.size()) {
        slices.push_back({broadcast.getResult(), broadcast.getInput(),
                          SmallVector<unsigned>(broadcast.getDims().begin(),
                                                broadcast.getDims().end()),
                          op});
      } else {
        // Unit dimensions expanded: the input is the result grouped by the
        // whole of each expanded dimension.
        SmallVector<int64_t> group(shape.size(), 1);
        for (int64_t dim : broadcast.getDims())
          group[dim] = shape[dim];
        SmallVector<int64_t> to(inShape);
        derived.push_back({broadcast.getResult(), broadcast.getInput(),
                           [group, to](const LinearLayout &l) {
                             return l.grouped(group, to);
                           },
                           op, /*permutable=*/true});
      }
    }
    // Row indices of a gather or scatter: held with the rows they choose.
    auto rowsOf = [&](Value tile, Value rows) {
      unsigned rank = cast<RankedTensorType>(tile.getType()).getRank();
      if (rank == 1)
        ties.push_back({{tile, rows}, op});
      else
        slices.push_back(
            {tile, rows, llvm::to_vector(llvm::seq<unsigned>(1, rank)), op});
    };
    if (auto gather = dyn_cast<tile::GatherOp>(op))
      rowsOf(gather.getResult(), gather.getRows());
    else if (auto scatter = dyn_cast<tile::AtomicAddOp>(op);
             scatter && scatter.getRows())
      rowsOf(scatter.getValue(), scatter.getRows());
  });
  kernel.walk([&](Operation *op) {
    // A reduction over a unit dimension only drops it: its input may take
    // the result's layout with the dimension back (a per-channel scale
    // [N, 1] reduced to [N] and broadcast over an accumulator's rows).
    if (auto reduce = dyn_cast<tile::ReduceOp>(op);
        reduce &&
        reduce.getInput().getType().getDimSize(reduce.getDim()) == 1) {
      unsigned dim = reduce.getDim();
      derived.push_back(
          {reduce.getResult(), reduce.getInput(),
           [dim](const LinearLayout &l) { return l.withUnitDim(dim); }, op});
    }
    if (auto unpack = dyn_cast<tile::UnpackOp>(op)) {
      unsigned dim = unpack.getDim();
      int64_t units = unpack.getOrder().size();
      derived.push_back({unpack.getResult(), unpack.getInput(),
                         [dim, units](const LinearLayout &l) {
                           return l.splitDim(dim, units);
                         },
                         op});
    } else if (auto dequant = dyn_cast<tile::DequantOp>(op)) {
      ties.push_back({{dequant.getCodes(), dequant.getResult()}, op});
      SmallVector<int64_t> group(dequant.getGroup());
      SmallVector<int64_t> shape(
          cast<RankedTensorType>(dequant.getScales().getType()).getShape());
      auto scales = [group, shape](const LinearLayout &l) {
        return l.grouped(group, shape);
      };
      derived.push_back({dequant.getResult(), dequant.getScales(), scales, op});
      if (dequant.getZeros())
        derived.push_back(
            {dequant.getResult(), dequant.getZeros(), scales, op});
    } else if (auto quant = dyn_cast<tile::QuantOp>(op)) {
      // Codes where their inputs are; each thread computes the scales of
      // the groups its elements belong to.
      ties.push_back({{quant.getInput(), quant.getCodes()}, op});
      SmallVector<int64_t> group(quant.getGroup());
      SmallVector<int64_t> shape(quant.getScales().getType().getShape());
      derived.push_back({quant.getInput(), quant.getScales(),
                         [group, shape](const LinearLayout &l) {
                           return l.grouped(group, shape);
                         },
                         op, /*permutable=*/true});
    }
  });
  auto propagate = [&]() -> LogicalResult {
    bool changed = true;
    while (changed) {
      changed = false;
      for (Derived &d : derived) {
        auto known = layouts.find(d.from);
        if (known == layouts.end())
          continue;
        LinearLayout layout = d.how(known->second);
        std::string why;
        if (!layout.coversExactly(&why))
          return d.op->emitOpError("cannot derive its operand's layout: ")
                 << why;
        changed |= !layouts.count(d.to);
        if (failed(require(d.to, layout, d.op, d.permutable)))
          return failure();
      }
      for (auto &[group, op] : ties) {
        FailureOr<bool> step = unify(group, op);
        if (failed(step))
          return failure();
        changed |= *step;
      }
      for (auto &[from, to, dropped, op] : slices) {
        auto known = layouts.find(from);
        if (known == layouts.end())
          continue;
        LinearLayout slice = known->second.sliced(dropped);
        std::string why;
        if (!slice.coversExactly(&why))
          return op->emitOpError("cannot take a slice of its operand's "
                                 "layout: ")
                 << why;
        changed |= !layouts.count(to);
        if (failed(require(to, slice, op,
                           /*permutable=*/isa<tile::BroadcastOp>(op))))
          return failure();
      }
    }
    return success();
  };
  if (failed(propagate()))
    return failure();
  SmallVector<Value> untouched;
  kernel.walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (isa<RankedTensorType>(result.getType()) && !layouts.count(result))
        untouched.push_back(result);
  });
  // Higher ranks first: lower-rank tiles are often slices of them.
  llvm::stable_sort(untouched, [](Value a, Value b) {
    return cast<RankedTensorType>(a.getType()).getRank() >
           cast<RankedTensorType>(b.getType()).getRank();
  });
  for (Value value : untouched)
    if (!layouts.count(value)) {
      layouts.insert(
          {value, defaultLayout(cast<RankedTensorType>(value.getType()))});
      if (failed(propagate()))
        return failure();
    }

  // Shared buffers: 16-byte chunks swizzled over the banks.
  // int4 nibble pairs [rows, n, 2] are rows of n bytes.
  kernel.walk([&](tile::AllocSharedOp alloc) {
    tile::SharedType type = alloc.getType();
    SmallVector<int64_t> shape = type.getStoredShape();
    if (shape.size() != 2 ||
        tile::TileDialect::TmaAttrHelper(kernel.getContext())
            .isAttrPresent(alloc))
      return;
    Swizzle s = chooseSwizzle(shape[1], type.getStoredElementBits());
    if (!s.isIdentity())
      tile::TileDialect::SwizzleAttrHelper(kernel.getContext())
          .setAttr(alloc, tile::SwizzleAttr::get(kernel.getContext(), s.vec,
                                                 s.perPhase, s.maxPhase));
  });
  apply();
  return success();
}

namespace {
struct TileAssignLayoutsPass
    : public tessera::impl::TileAssignLayoutsBase<TileAssignLayoutsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const TargetInfo *target = getModuleTarget(module);
    if (!target || !target->isGpu()) {
      module.emitError() << "tile-assign-layouts needs a GPU target: set the "
                            "module's tile.target (tessera-compile --target, "
                            "or --tile-set-target=chip=sm_80)";
      return signalPassFailure();
    }
    for (auto kernel : module.getOps<tile::KernelOp>()) {
      // tag-check has proved what the tags say; lay out what runs.
      tag::eraseTagOps(kernel);
      planCopyOuts(kernel, *target);
      if (failed(LayoutAssigner(kernel, *target).run()))
        return signalPassFailure();
    }
  }
};
} // namespace
