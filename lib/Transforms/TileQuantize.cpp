//===- TileQuantize.cpp - Weight quantization of tile kernels ---*- C++ -*-===//
//
// Rewrites the real weight operand of a kernel's MMAs into quantized codes
// (int4/int8 with scales per group of k in each column, or fp8 e4m3 with
// 128x128 block scales), applied before the MMA or after it per K tile, and
// states what that needs as tags: every code is scaled by the scale (and
// shifted by the zero point) of its own group.
//
//===----------------------------------------------------------------------===//

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

#include <tuple>

namespace tessera {
#define GEN_PASS_DEF_TILEQUANTIZE
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;

namespace {
/// An MMA operand the pass can quantize: a kernel argument copied into a
/// shared buffer once per iteration and loaded as the MMAs' a or b operand.
struct Source {
  BlockArgument argument;
  tile::CopyOp copy;
  tile::AllocSharedOp buffer;
  SmallVector<tile::LoadOp> loads;
  tag::BindOp binding; // null if the kernel binds no tag to it
};

using Placement = QuantPlacement;
using Format = QuantFormat;

/// fp8 weights have one scale per block of kFp8Block x kFp8Block elements.
constexpr int64_t kFp8Block = 128;

/// What the options ask for, once checked.
struct Scheme {
  Format weights;
  int64_t group; // rows of k per scale; 0: per channel
  bool zeroPoints;
  Placement placement;
  Format activations = Format::Real;
  /// Activations arrive quantized with one scale per token (row), instead
  /// of being quantized per token within each K tile by the kernel.
  bool tokenScales = false;
  /// Columns per scale: whole blocks for fp8, one column otherwise.
  int64_t groupColumns() const {
    return weights == Format::Fp8 ? kFp8Block : 1;
  }
  /// The kernel's new name says its new arguments and what they hold.
  std::string suffix(int64_t kStep) const {
    std::string text = weights == Format::Int8 ? "int8_pc"
                       : weights == Format::Fp8
                           ? "fp8_b128"
                           : "int4_g" + std::to_string(group);
    if (zeroPoints)
      text += "_zp";
    // Activations per token (_a8t) or per token within each K tile.
    if (activations != Format::Real)
      text += (activations == Format::Int8 ? "_a8" : "_af8") +
              (tokenScales ? std::string("t") : "k" + std::to_string(kStep));
    return text;
  }
};

/// The source of the b operand (the weight) of `mma`, or of its a operand
/// (the activation), or a diagnostic saying why there is none.
FailureOr<Source> findSource(tile::MmaOp mma, tile::KernelOp kernel,
                             bool weight) {
  auto reject = [&](const Twine &why) {
    return mma.emitError("tile-quantize: ") << why;
  };
  StringRef role = weight ? "weight" : "activation";
  StringRef operand = weight ? "b" : "a";
  // Weights may be [k, n] or [n, k] (transpose_b); activations are [m, k].
  if (!weight && mma.getTransposeA())
    return reject("the activation operand a is transposed; quantize a kernel "
                  "that reads a as [m, k]");
  auto load = (weight ? mma.getB() : mma.getA()).getDefiningOp<tile::LoadOp>();
  auto buffer =
      load ? load.getSource().getDefiningOp<tile::AllocSharedOp>() : nullptr;
  if (!buffer)
    return reject("operand ")
           << operand << " must be a tile.load of a tile.alloc_shared buffer";
  if (buffer.getType().isRing())
    return reject("the ") << role
                          << " buffer is already a ring; run tile-quantize "
                             "before tile-pipeline";
  Source source;
  source.buffer = buffer;
  for (Operation *user : buffer->getUsers()) {
    if (auto copy = dyn_cast<tile::CopyOp>(user)) {
      if (source.copy)
        return reject("the ")
               << role << " buffer is filled by more than one tile.copy";
      source.copy = copy;
    } else if (auto read = dyn_cast<tile::LoadOp>(user)) {
      source.loads.push_back(read);
    } else if (!isa<tag::TagDialect>(user->getDialect())) {
      return reject("the ")
             << role << " buffer is used by '" << user->getName()
             << "'; only tile.copy and tile.load can follow a change of its "
                "element type";
    }
  }
  if (!source.copy)
    return reject("the ") << role << " buffer is not filled by a tile.copy";
  auto argument = dyn_cast<BlockArgument>(source.copy.getSource());
  if (!argument || argument.getOwner() != &kernel.getBody().front())
    return reject("the ") << role << " must be copied from a kernel argument";
  // Weights may have leading (batch, expert) dimensions outside the tile.
  auto view = cast<tile::ViewType>(argument.getType());
  if ((weight ? view.getRank() < 2 : view.getRank() != 2) ||
      !(view.getElementType().isBF16() || view.getElementType().isF16()))
    return reject("the ") << role << " must be a "
                          << (weight ? "bf16 or f16 view of rank 2 or more"
                                     : "2-D bf16 or f16 view")
                          << ", not " << view;
  source.argument = argument;
  for (Operation *user : argument.getUsers()) {
    if (auto bind = dyn_cast<tag::BindOp>(user)) {
      AffineMap map = bind.getMap();
      if (!map.isPermutation() || !bind.getCaptures().empty())
        return bind.emitError("tile-quantize: the ")
               << role
               << "'s tag must name its coordinates, one component per "
                  "dimension, and have no captures";
      source.binding = bind;
      continue;
    }
    if (user != source.copy.getOperation() && !isa<tile::DimOp>(user))
      return reject("the ") << role << " argument is used by '"
                            << user->getName() << "' besides its tile.copy";
  }
  return source;
}

/// A tile of scales as f32.
Value asF32(OpBuilder &builder, Location loc, Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (type.getElementType().isF32())
    return tile;
  return arith::ExtFOp::create(
      builder, loc,
      RankedTensorType::get(type.getShape(), builder.getF32Type()), tile);
}

/// A tile of scales as f32, its unit dimensions repeated to `shape`.
Value spreadTo(OpBuilder &builder, Location loc, Value tile,
               ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(tile.getType());
  Type f32 = builder.getF32Type();
  tile = asF32(builder, loc, tile);
  SmallVector<int64_t> unitDims;
  for (auto [dim, size] : llvm::enumerate(type.getShape()))
    if (size == 1 && shape[dim] != 1)
      unitDims.push_back(dim);
  return tile::BroadcastOp::create(builder, loc,
                                   RankedTensorType::get(shape, f32), tile,
                                   builder.getDenseI64ArrayAttr(unitDims));
}

/// Asserts that each column of an MMA's `product` meets the scales of its
/// own column (and batch): what per-group scaling relies on.
using ColumnCheck = llvm::function_ref<void(OpBuilder &, Location,
                                            Value product, Value scales)>;

struct TileQuantizePass : tessera::impl::TileQuantizeBase<TileQuantizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<Scheme> scheme = checkOptions();
    if (failed(scheme))
      return signalPassFailure();
    SmallVector<tile::KernelOp> kernels;
    for (auto candidate : module.getOps<tile::KernelOp>())
      if (kernel.empty() || candidate.getSymName() == kernel)
        kernels.push_back(candidate);
    if (kernels.empty()) {
      emitError(module.getLoc())
          << "tile-quantize: no kernel named '" << kernel << "'";
      return signalPassFailure();
    }
    if (kernels.size() > 1) {
      emitError(module.getLoc())
          << "tile-quantize: the module has " << kernels.size()
          << " kernels; name the one to quantize with kernel=<name>";
      return signalPassFailure();
    }
    if (failed(quantize(kernels.front(), *scheme)))
      return signalPassFailure();
  }

  FailureOr<Scheme> checkOptions() {
    Location loc = getOperation().getLoc();
    // The option parser only admits the formats and placements listed in
    // Passes.td; what is left to check is how they combine.
    Scheme scheme{weights, group, zeroPoints, placement, activations};
    StringRef activationName = stringifyQuantFormat(activations);
    if (scheme.activations != Format::Real &&
        (zeroPoints || placement == Placement::Registers))
      return emitError(loc)
             << "tile-quantize: " << activationName << " activations feed an "
             << activationName
             << " MMA whose product is scaled after it: use weights without "
                "zero-points and placement=per-group or auto";
    bool fp8Weights = scheme.weights == Format::Fp8;
    if (scheme.activations == Format::Fp8 && !fp8Weights)
      return emitError(loc) << "tile-quantize: fp8 activations multiply fp8 "
                               "weights; use weights=fp8";
    if (scheme.activations == Format::Int8 && fp8Weights)
      return emitError(loc) << "tile-quantize: int8 activations multiply "
                               "integer weights; use activations=fp8 with "
                               "weights=fp8";
    if (scheme.activations != Format::Real)
      scheme.placement = Placement::PerGroup;
    scheme.tokenScales = activationScales == ActivationScales::Token;
    if (scheme.tokenScales && scheme.activations == Format::Real)
      return emitError(loc) << "tile-quantize: activation-scales=token "
                               "quantizes the activations; use "
                               "activations=int8 or fp8";
    if (scheme.weights == Format::Int8) {
      if (group > 0)
        return emitError(loc) << "tile-quantize: int8 weights have one "
                                 "scale per channel; drop group="
                              << static_cast<int64_t>(group);
      scheme.group = 0;
      return scheme;
    }
    if (fp8Weights) {
      if (group > 0 && group != kFp8Block)
        return emitError(loc)
               << "tile-quantize: fp8 weights have one scale per " << kFp8Block
               << "x" << kFp8Block
               << " block; drop group=" << static_cast<int64_t>(group);
      if (zeroPoints)
        return emitError(loc) << "tile-quantize: fp8 weights are symmetric; "
                                 "drop zero-points";
      scheme.group = kFp8Block;
      return scheme;
    }
    if (group < 0)
      scheme.group = 128;
    if (!llvm::is_contained({32, 64, 128}, scheme.group))
      return emitError(loc) << "tile-quantize: int4 groups are 32, 64 or "
                               "128 rows of k, not "
                            << scheme.group;
    return scheme;
  }

  LogicalResult quantize(tile::KernelOp kernel, const Scheme &scheme) {
    SmallVector<tile::MmaOp> mmas;
    kernel.walk([&](tile::MmaOp mma) { mmas.push_back(mma); });
    if (mmas.empty())
      return kernel.emitError("tile-quantize: the kernel has no tile.mma");
    SmallVector<Source> weights;
    for (tile::MmaOp mma : mmas) {
      FailureOr<Source> weight = findSource(mma, kernel, /*weight=*/true);
      if (failed(weight))
        return failure();
      if (llvm::none_of(weights, [&](const Source &w) {
            return w.argument == weight->argument;
          }))
        weights.push_back(*weight);
    }
    // Pre-quantized activations first: the weights' MMAs then read their
    // codes.
    if (scheme.tokenScales) {
      SmallVector<Source> activations;
      for (tile::MmaOp mma : mmas) {
        FailureOr<Source> activation =
            findSource(mma, kernel, /*weight=*/false);
        if (failed(activation))
          return failure();
        if (llvm::none_of(activations, [&](const Source &a) {
              return a.argument == activation->argument;
            }))
          activations.push_back(*activation);
      }
      for (Source &activation : activations)
        if (failed(rewriteActivation(kernel, activation, scheme)))
          return failure();
    }
    // Arguments move as scales are inserted: rewrite from the last one.
    llvm::sort(weights, [](const Source &a, const Source &b) {
      return a.argument.getArgNumber() > b.argument.getArgNumber();
    });
    for (Source &weight : weights)
      if (failed(rewrite(kernel, weight, scheme)))
        return failure();
    int64_t kStep = weights.front().buffer.getType().getShape()[0];
    kernel.setSymName((kernel.getSymName() + "_" + scheme.suffix(kStep)).str());
    return success();
  }

  /// Where the per-token scales of a pre-quantized activation tile are.
  struct TokenScales {
    Value view;          // [M] f32
    Value rowOffset;     // of the tile in the activation
    std::string rowName; // the activation's row component
  };
  /// Loaded activation tiles that hold codes -> their scales.
  DenseMap<Value, TokenScales> tokenScales;

  /// The `rows` per-token scales from row `row` on.
  static Value loadTokenScales(OpBuilder &b, Location loc,
                               const TokenScales &token, Value row,
                               int64_t rows) {
    return tile::LoadOp::create(
        b, NameLoc::get(b.getStringAttr("a_token_scales"), loc),
        RankedTensorType::get({rows}, b.getF32Type()), token.view,
        ValueRange{row}, /*pad=*/nullptr);
  }
  /// Asserts that row i of the 2-D `tile` has the token of `scales[i]`.
  static void assertTokenRows(OpBuilder &b, Location loc, Value tile,
                              Value scales, StringRef rowName,
                              StringRef message) {
    MLIRContext *context = b.getContext();
    AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
    tag::AssertEqOp::create(
        b, loc, tile,
        AffineMapAttr::get(AffineMap::get(2, 0, {d0, d1}, context)),
        b.getStrArrayAttr({rowName}), scales,
        AffineMapAttr::get(AffineMap::get(2, 0, {d0}, context)),
        b.getStrArrayAttr({rowName}), ValueRange(), b.getStringAttr(message));
  }

  /// With per-channel weight scales and per-token activation scales nothing
  /// changes along k: the loop sums the products (exact integers) and the
  /// loop's result is scaled once after it (the scaled_mm epilogue). Fails,
  /// leaving the IR alone, unless `mma` accumulates straight into a loop's
  /// iteration argument and both scale tiles can be loaded after the loop.
  LogicalResult scaleAfterLoop(
      tile::MmaOp mma, Value product, Value scaleTile, const TokenScales &token,
      llvm::function_ref<Value(OpBuilder &, Location, Value, int64_t)> spread,
      ColumnCheck checkColumns) {
    auto loop = mma->getParentOfType<scf::ForOp>();
    auto acc = dyn_cast<BlockArgument>(mma.getAcc());
    if (!loop || !acc || acc.getOwner() != loop.getBody() ||
        acc.getArgNumber() == 0 || !mma.getResult().hasOneUse())
      return failure();
    OpOperand &use = *mma.getResult().use_begin();
    if (use.getOwner() != loop.getBody()->getTerminator() ||
        use.getOperandNumber() != acc.getArgNumber() - 1)
      return failure();
    auto scaleLoad = scaleTile.getDefiningOp<tile::LoadOp>();
    if (!scaleLoad)
      return failure();
    // The scale offsets must be defined outside the loop, or be constants
    // (cloned after it).
    auto inside = [&](Value value) {
      return loop->isAncestor(value.getParentBlock()->getParentOp());
    };
    SmallVector<Value> offsets(scaleLoad.getIndices());
    offsets.push_back(token.rowOffset);
    if (llvm::any_of(offsets, [&](Value value) {
          return inside(value) && !value.getDefiningOp<arith::ConstantOp>();
        }))
      return failure();
    OpBuilder after(loop);
    after.setInsertionPointAfter(loop);
    for (Value &value : offsets)
      if (inside(value))
        value = after.clone(*value.getDefiningOp())->getResult(0);
    Value row = offsets.pop_back_val();
    ArrayRef<Value> scaleAt = offsets;

    Location loc = mma.getLoc();
    auto type = cast<RankedTensorType>(product.getType());
    int64_t m = type.getDimSize(0), n = type.getDimSize(1);
    Type f32 = after.getF32Type();
    auto wide = RankedTensorType::get({m, n}, f32);
    unsigned index = acc.getArgNumber() - 1;
    Value result = loop.getResult(index);
    // Integer products accumulate exactly in an i32 loop argument when it
    // starts at zero and only the MMA reads it; otherwise in f32.
    Value init = loop.getInitArgs()[index];
    auto product32 = product.getDefiningOp<tile::MmaOp>();
    if (type.getElementType().isInteger(32) && acc.hasOneUse() &&
        matchPattern(init, m_AnyZeroFloat())) {
      OpBuilder atLoop(loop);
      Value zero = arith::ConstantOp::create(
          atLoop, loc, type,
          DenseElementsAttr::get(type,
                                 atLoop.getZeroAttr(type.getElementType())));
      loop.getInitArgsMutable()[index].assign(zero);
      if (init.use_empty())
        init.getDefiningOp()->erase();
      acc.setType(type);
      result.setType(type);
      Value unusedZero = product32.getAcc();
      product32.getAccMutable().assign(acc);
      if (unusedZero.use_empty())
        unusedZero.getDefiningOp()->erase();
      mma.getResult().replaceAllUsesWith(product);
      mma.erase();
      auto real = arith::SIToFPOp::create(after, loc, wide, result);
      result.replaceAllUsesExcept(real, real);
      result = real;
    } else {
      OpBuilder before(mma);
      Value sum = arith::AddFOp::create(
          before, loc, mma.getAcc(),
          arith::SIToFPOp::create(before, loc, wide, product));
      mma.getResult().replaceAllUsesWith(sum);
      mma.erase();
    }

    Value tokens = loadTokenScales(after, loc, token, row, m);
    Value weights = tile::LoadOp::create(
        after, scaleLoad.getLoc(), scaleLoad.getType(), scaleLoad.getSource(),
        scaleAt, scaleLoad.getPadAttr());
    Value rows = tile::BroadcastOp::create(after, loc, wide, tokens,
                                           after.getDenseI64ArrayAttr({1}));
    Value columns = spread(after, loc, weights, m);
    auto first = arith::MulFOp::create(after, loc, result, rows);
    Value scaled = arith::MulFOp::create(after, loc, first, columns);
    result.replaceAllUsesExcept(scaled, first);
    assertTokenRows(after, loc, result, tokens, token.rowName,
                    "every row of the result is scaled by its own token's "
                    "scale");
    checkColumns(after, loc, result, columns);
    return success();
  }

  /// The activation argument becomes int8 or fp8 codes, followed by a new
  /// argument of one f32 scale per token (row); its loads hold codes.
  LogicalResult rewriteActivation(tile::KernelOp kernel, Source &activation,
                                  const Scheme &scheme) {
    MLIRContext *context = kernel.getContext();
    Type codeType = scheme.activations == Format::Fp8
                        ? Type(Float8E4M3FNType::get(context))
                        : Type(IntegerType::get(context, 8));
    auto shape = activation.buffer.getType().getShape();
    activation.argument.setType(tile::ViewType::get(
        context, {ShapedType::kDynamic, ShapedType::kDynamic}, codeType));
    activation.buffer.getResult().setType(
        tile::SharedType::get(context, shape, codeType, 0));
    for (tile::LoadOp load : activation.loads)
      load.getResult().setType(RankedTensorType::get(shape, codeType));
    std::string name =
        activation.binding ? activation.binding.getName().str() : "A";
    std::string row =
        activation.binding
            ? cast<StringAttr>(activation.binding.getComponents()[0]).str()
            : "m";
    unsigned index = activation.argument.getArgNumber();
    Location loc = NameLoc::get(StringAttr::get(context, name + "_scale"),
                                activation.argument.getLoc());
    if (failed(kernel.insertArgument(
            index + 1,
            tile::ViewType::get(context, {ShapedType::kDynamic},
                                Float32Type::get(context)),
            {}, loc)))
      return failure();
    kernel.setFunctionType(FunctionType::get(
        context, SmallVector<Type>(kernel.getBody().getArgumentTypes()), {}));
    Value scales = kernel.getArgument(index + 1);
    OpBuilder builder(context);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    if (activation.binding)
      builder.setInsertionPointAfter(activation.binding);
    tag::BindOp::create(
        builder, loc, scales, builder.getStringAttr(name + "_scale"),
        builder.getStrArrayAttr({row}),
        AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(1, context)),
        ValueRange());
    for (tile::LoadOp load : activation.loads)
      tokenScales[load.getResult()] = {scales, activation.copy.getOffsets()[0],
                                       row};
    return success();
  }

  /// Per-group placement of one K tile (one group): the MMAs read the codes
  /// (minus the zero points) as reals, and their products are scaled per
  /// column before they join the accumulator: acc + (a . codes) * s.
  void scaleAfterMma(OpBuilder &builder, Location at, Value codes,
                     RankedTensorType realType, Value scaleTile, Value zeroTile,
                     Format activations, bool transposed,
                     ColumnCheck checkColumns, bool invariantScales) {
    int64_t rows = realType.getDimSize(0), cols = realType.getDimSize(1);
    Type f32 = builder.getF32Type();
    auto wide = RankedTensorType::get({rows, cols}, f32);
    // The scales over an [m, n] product: a row of n scales repeated, or for
    // a transposed weight its column of n scales turned into that row (a
    // one-element sum per n, then a broadcast).
    auto spread = [&](OpBuilder &b, Location loc, Value groups,
                      int64_t m) -> Value {
      int64_t n = transposed ? rows : cols;
      if (!transposed ||
          cast<RankedTensorType>(groups.getType()).getDimSize(0) == 1)
        return spreadTo(b, loc, groups, {m, n});
      Value line = tile::ReduceOp::create(
          b, loc, RankedTensorType::get({n}, f32), tile::ReduceKind::sum,
          asF32(b, loc, groups), 1);
      return tile::BroadcastOp::create(b, loc,
                                       RankedTensorType::get({m, n}, f32), line,
                                       b.getDenseI64ArrayAttr({0}));
    };
    if (activations != Format::Real)
      return lowPrecisionMmas(codes, scaleTile, activations, spread,
                              checkColumns, invariantScales);
    // fp8 codes are reals already (exact in bf16 and f16).
    Operation *asReal =
        isa<FloatType>(getElementTypeOrSelf(codes.getType()))
            ? arith::ExtFOp::create(builder, at, wide, codes).getOperation()
            : arith::SIToFPOp::create(builder, at, wide, codes).getOperation();
    Value real = asReal->getResult(0);
    if (zeroTile)
      real = arith::SubFOp::create(
          builder, at, real, spreadTo(builder, at, zeroTile, {rows, cols}));
    if (realType.getElementType() != f32)
      real = arith::TruncFOp::create(builder, at, realType, real);
    codes.replaceAllUsesExcept(real, asReal);
    for (Operation *user : llvm::to_vector(real.getUsers())) {
      auto mma = dyn_cast<tile::MmaOp>(user);
      if (!mma || mma.getB() != real)
        continue;
      OpBuilder after(mma->getContext());
      after.setInsertionPointAfter(mma);
      auto accType = mma.getType();
      Value acc = mma.getAcc();
      mma.getAccMutable().assign(arith::ConstantOp::create(
          builder, at, accType,
          DenseElementsAttr::get(accType,
                                 after.getZeroAttr(accType.getElementType()))));
      Value scales =
          spread(after, mma.getLoc(), scaleTile, accType.getDimSize(0));
      Value product =
          arith::MulFOp::create(after, mma.getLoc(), mma.getResult(), scales);
      Value sum = arith::AddFOp::create(after, mma.getLoc(), acc, product);
      mma.getResult().replaceAllUsesExcept(sum, product.getDefiningOp());
      checkColumns(after, mma.getLoc(), mma.getResult(), scales);
    }
  }

  /// int8 or fp8 activations: each MMA on the weight codes quantizes its a
  /// operand per token (one scale per row of the K tile), multiplies
  /// int8 x int8 into i32 (int4 codes widened) or fp8 x fp8 into f32, and
  /// scales the product by both scales.
  void lowPrecisionMmas(
      Value codes, Value scaleTile, Format activations,
      llvm::function_ref<Value(OpBuilder &, Location, Value, int64_t)> spread,
      ColumnCheck checkColumns, bool invariantScales) {
    MLIRContext *context = codes.getContext();
    Builder types(context);
    bool fp8 = activations == Format::Fp8;
    Type f32 = types.getF32Type(), i8 = types.getI8Type();
    Type codeType = fp8 ? Type(Float8E4M3FNType::get(context)) : i8;
    Type productElement = fp8 ? f32 : types.getI32Type();
    for (Operation *user : llvm::to_vector(codes.getUsers())) {
      auto mma = dyn_cast<tile::MmaOp>(user);
      if (!mma || mma.getB() != codes)
        continue;
      OpBuilder before(mma);
      Location loc = mma.getLoc();
      auto aType = mma.getA().getType();
      int64_t m = aType.getDimSize(0), k = aType.getDimSize(1),
              n = mma.getType().getDimSize(1);
      Value aCodes, aScales;
      if (auto known = tokenScales.find(mma.getA());
          known != tokenScales.end()) {
        // Pre-quantized: this tile's rows of the per-token scales.
        const TokenScales &token = known->second;
        Value row = token.rowOffset;
        aCodes = mma.getA();
        aScales = loadTokenScales(before, loc, token, row, m);
        assertTokenRows(before, loc, aCodes, aScales, token.rowName,
                        "every row uses the scale of its own token");
      } else {
        auto quant = tile::QuantOp::create(
            before, NameLoc::get(StringAttr::get(context, "a_codes"), loc),
            RankedTensorType::get({m, k}, codeType),
            RankedTensorType::get({m, 1}, f32), mma.getA(),
            before.getDenseI64ArrayAttr({1, k}));
        aCodes = quant.getCodes();
        aScales = quant.getScales();
      }
      auto productType = RankedTensorType::get({m, n}, productElement);
      Value zero = arith::ConstantOp::create(
          before, loc, productType,
          DenseElementsAttr::get(productType,
                                 before.getZeroAttr(productElement)));
      // int4 codes widen to int8 operands.
      Value weights = codes;
      auto weightType = cast<RankedTensorType>(codes.getType());
      if (weightType.getElementType().isInteger(4))
        weights = arith::ExtSIOp::create(
            before, loc, RankedTensorType::get(weightType.getShape(), i8),
            codes);
      Value product = tile::MmaOp::create(
          before, loc, productType, aCodes, weights, zero, mma.getKindAttr(),
          mma.getTransposeAAttr(), mma.getTransposeBAttr());
      if (invariantScales && tokenScales.count(mma.getA()) &&
          succeeded(scaleAfterLoop(mma, product, scaleTile,
                                   tokenScales.lookup(mma.getA()), spread,
                                   checkColumns)))
        continue;
      Value real = product;
      if (!fp8)
        real = arith::SIToFPOp::create(
            before, loc, RankedTensorType::get({m, n}, f32), real);
      // Per-token scales: [m, 1] from tile.quant or [m] given.
      Value rowScales =
          cast<RankedTensorType>(aScales.getType()).getRank() == 1
              ? tile::BroadcastOp::create(
                    before, loc, RankedTensorType::get({m, n}, f32), aScales,
                    before.getDenseI64ArrayAttr({1}))
                    .getResult()
              : spreadTo(before, loc, aScales, {m, n});
      real = arith::MulFOp::create(before, loc, real, rowScales);
      Value weightScales = spread(before, loc, scaleTile, m);
      checkColumns(before, loc, product, weightScales);
      real = arith::MulFOp::create(before, loc, real, weightScales);
      Value sum = arith::AddFOp::create(before, loc, mma.getAcc(), real);
      mma.getResult().replaceAllUsesWith(sum);
      mma.erase();
    }
  }

  LogicalResult rewrite(tile::KernelOp kernel, Source &weight,
                        const Scheme &scheme) {
    MLIRContext *context = kernel.getContext();
    auto sharedType = weight.buffer.getType();
    ArrayRef<int64_t> shape = sharedType.getShape();
    int64_t rows = shape[0], cols = shape[1];
    auto viewType = cast<tile::ViewType>(weight.argument.getType());
    // The tile covers the view's two innermost dimensions; the leading ones
    // (batch, expert) are picked by the copy's first offsets.
    unsigned rank = viewType.getRank(), batch = rank - 2;
    // A transposed weight tile is [n, k] (MMAs with transpose_b).
    tile::MmaOp plain, transposedMma;
    for (tile::LoadOp load : weight.loads)
      for (Operation *user : load->getUsers())
        if (auto mma = dyn_cast<tile::MmaOp>(user))
          (mma.getTransposeB() ? transposedMma : plain) = mma;
    if (plain && transposedMma)
      return transposedMma.emitError("tile-quantize: the weight is read both "
                                     "as [k, n] and transposed; its scales "
                                     "need one layout");
    bool transposed = static_cast<bool>(transposedMma);
    unsigned kAxis = transposed ? 1 : 0, nAxis = 1 - kAxis;
    int64_t tileK = shape[kAxis], tileN = shape[nAxis];
    bool fp8 = scheme.weights == Format::Fp8;
    StringRef kWhat = transposed ? "columns of k" : "rows of k";
    // fp8 tiles may also lie inside one block (the tags prove the offsets
    // keep them there).
    for (auto [size, what, step] :
         {std::tuple(tileK, kWhat, "a K step"),
          std::tuple(tileN, StringRef(transposed ? "rows of n" : "columns"),
                     "an N tile")})
      if (fp8 && size % kFp8Block && kFp8Block % size)
        return weight.copy.emitError()
               << "tile-quantize: the weight tile holds " << size << " " << what
               << "; with " << kFp8Block << "x" << kFp8Block
               << " fp8 blocks a tile must hold whole blocks or lie inside "
                  "one: use "
               << step << " that divides or is a multiple of " << kFp8Block;
    if (!fp8 && scheme.group && tileK % scheme.group)
      return weight.copy.emitError()
             << "tile-quantize: the weight tile holds " << tileK << " " << kWhat
             << " but group = " << scheme.group
             << ": a tile must hold whole groups; use a group that divides "
             << tileK << " or a K step that is a multiple of " << scheme.group;
    Type real = sharedType.getElementType();
    Type codeType =
        fp8 ? Type(Float8E4M3FNType::get(context))
            : IntegerType::get(context, scheme.weights == Format::Int8 ? 8 : 4);
    // Block scales are f32, as in DeepSeek-V3's fp8 GEMMs.
    Type scaleType =
        fp8 ? Type(Float32Type::get(context)) : Type(Float16Type::get(context));
    SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
    // int4 codes are packed two per byte along the tile's columns (n, or k
    // for a transposed weight): the view, the copy and the buffer gain a
    // trailing dimension of 2 (nibble p of byte j is column 2j + p), and
    // each load is unpacked in the runtime's order.
    bool packed = scheme.weights == Format::Int4;
    if (packed && cols % 2)
      return weight.copy.emitError()
             << "tile-quantize: int4 codes are packed two per byte along the "
                "tile's columns; the weight tile needs an even number of "
                "columns, not "
             << cols;
    if (packed)
      for (Operation *user : weight.argument.getUsers())
        if (auto dim = dyn_cast<tile::DimOp>(user);
            dim && dim.getDimensionAttr().getInt() == rank - 1)
          return dim.emitError()
                 << "tile-quantize: int4 packs the weight's dimension "
                 << rank - 1
                 << " two per byte, so it no longer counts codes; take its "
                    "size from another operand";
    SmallVector<Value> offsets(weight.copy.getOffsets());
    ArrayRef<Value> batchOffsets = ArrayRef<Value>(offsets).take_front(batch);
    Value tileOffsets[2] = {offsets[batch], offsets[batch + 1]};

    // The argument, its buffer and its loads now hold codes.
    unsigned index = weight.argument.getArgNumber();
    SmallVector<int64_t> bufferShape = {rows, cols};
    if (packed) {
      SmallVector<int64_t> packedShape = dynamic;
      packedShape.push_back(2);
      weight.argument.setType(
          tile::ViewType::get(context, packedShape, codeType));
      bufferShape = {rows, cols / 2, 2};
      OpBuilder before(weight.copy);
      Location at = weight.copy.getLoc();
      SmallVector<Value> packedOffsets(offsets);
      packedOffsets.back() =
          arith::DivUIOp::create(before, at, offsets.back(),
                                 arith::ConstantIndexOp::create(before, at, 2));
      packedOffsets.push_back(arith::ConstantIndexOp::create(before, at, 0));
      weight.copy.getOffsetsMutable().assign(packedOffsets);
    } else {
      weight.argument.setType(tile::ViewType::get(context, dynamic, codeType));
    }
    weight.buffer.getResult().setType(
        tile::SharedType::get(context, bufferShape, codeType, 0));
    // Scales (and zeros) have the weight's layout with each tile dimension
    // counted in groups: k in groups, n in columns (fp8: both in blocks).
    auto scaleView = tile::ViewType::get(context, dynamic, scaleType);
    Location loc = weight.argument.getLoc();
    std::string name = weight.binding ? weight.binding.getName().str() : "W";
    // New values are named after the weight's tag in diagnostics.
    auto named = [&](const Twine &suffix, Location at) -> Location {
      return NameLoc::get(StringAttr::get(context, name + suffix), at);
    };
    if (failed(kernel.insertArgument(index + 1, scaleView, {},
                                     named("_scale", loc))))
      return failure();
    Value scales = kernel.getArgument(index + 1), zeros;
    if (scheme.zeroPoints) {
      if (failed(kernel.insertArgument(index + 2, scaleView, {},
                                       named("_zero", loc))))
        return failure();
      zeros = kernel.getArgument(index + 2);
    }
    SmallVector<Type> inputs(kernel.getBody().getArgumentTypes());
    kernel.setFunctionType(FunctionType::get(context, inputs, {}));

    // Tags: each code also carries its scale group; scales and zero points
    // are labelled by their batch coordinates, group and column (fp8:
    // column block).
    OpBuilder builder(context);
    builder.setInsertionPointToStart(&kernel.getBody().front());
    if (weight.binding)
      builder.setInsertionPointAfter(weight.binding);
    SmallVector<AffineExpr> dims;
    for (unsigned d = 0; d < rank; ++d)
      dims.push_back(builder.getAffineDimExpr(d));
    AffineExpr kDim = dims[batch + kAxis], nDim = dims[batch + nAxis];
    // The weight's existing tag (checked by findSource: a permutation of
    // its coordinates), or the coordinates themselves; names[d] is the
    // component of view dimension d.
    SmallVector<AffineExpr> results(dims);
    SmallVector<std::string> names(rank);
    for (unsigned d = 0; d < rank; ++d)
      names[d] = d == batch + kAxis   ? "k"
                 : d == batch + nAxis ? "n"
                                      : "b" + std::to_string(d);
    if (weight.binding) {
      results = llvm::to_vector(weight.binding.getMap().getResults());
      for (auto [result, attr] :
           llvm::zip_equal(results, weight.binding.getComponents()))
        names[cast<AffineDimExpr>(result).getPosition()] =
            cast<StringAttr>(attr).str();
    }
    SmallVector<std::string> components(names);
    if (weight.binding)
      components = llvm::map_to_vector(
          weight.binding.getComponents(),
          [](Attribute attr) { return cast<StringAttr>(attr).str(); });
    std::string nName = fp8 ? "gn" : names[batch + nAxis];
    components.push_back("g");
    results.push_back(scheme.group ? kDim.floorDiv(scheme.group)
                                   : builder.getAffineConstantExpr(0));
    if (fp8) {
      components.push_back(nName);
      results.push_back(nDim.floorDiv(kFp8Block));
    }
    // Packed: byte (.., d_last) holds columns 2 * d_last + d_nibble, the
    // runtime's packing order.
    AffineMap tagMap = AffineMap::get(rank, 0, results, context);
    if (packed) {
      SmallVector<AffineExpr> unpacked(dims);
      unpacked.back() = dims.back() * 2 + builder.getAffineDimExpr(rank);
      tagMap = tagMap.replaceDimsAndSymbols(unpacked, {}, rank + 1, 0);
    }
    SmallVector<StringRef> componentRefs(components.begin(), components.end());
    tag::BindOp::create(builder, loc, weight.argument,
                        builder.getStringAttr(name),
                        builder.getStrArrayAttr(componentRefs),
                        AffineMapAttr::get(tagMap), ValueRange());
    if (weight.binding)
      weight.binding.erase();
    // The scale view's components: batch names, then its two tile axes.
    SmallVector<std::string> groupNames(names.begin(), names.begin() + batch);
    groupNames.push_back(kAxis == 0 ? "g" : nName);
    groupNames.push_back(kAxis == 0 ? nName : "g");
    SmallVector<StringRef> groupRefs(groupNames.begin(), groupNames.end());
    auto bindGroups = [&](Value value, StringRef label) {
      tag::BindOp::create(
          builder, loc, value, builder.getStringAttr(name + "_" + label),
          builder.getStrArrayAttr(groupRefs),
          AffineMapAttr::get(AffineMap::getMultiDimIdentityMap(rank, context)),
          ValueRange());
    };
    bindGroups(scales, "scale");
    if (zeros)
      bindGroups(zeros, "zero");

    // Each load of codes is dequantized right away, in registers.
    int64_t kGroup = scheme.group ? scheme.group : tileK;
    // Elements per scale along each tile axis, and scales per tile.
    int64_t group[2], scaleShape[2];
    group[kAxis] = kGroup;
    group[nAxis] = scheme.groupColumns();
    for (unsigned axis : {0u, 1u})
      scaleShape[axis] = std::max<int64_t>(1, shape[axis] / group[axis]);
    // Per group: the MMA runs on the raw codes and each K tile's product is
    // scaled once, which pays when the product has fewer rows than the
    // weight tile (BM < BK); it needs one group per K tile (for fp8, one
    // block per tile) and the scales as a row over n.
    bool oneGroupPerTile =
        scaleShape[kAxis] == 1 && (!fp8 || scaleShape[nAxis] == 1);
    bool perGroup = scheme.placement == Placement::PerGroup;
    if (perGroup && !oneGroupPerTile)
      return weight.copy.emitError()
             << "tile-quantize: placement=per-group scales each K tile's "
                "product once and needs "
             << (fp8 ? "the weight tile inside one fp8 block; use an N tile "
                       "of at most " +
                           std::to_string(kFp8Block)
                     : "one group per K tile (group = " +
                           std::to_string(tileK) + "); use that group")
             << (scheme.activations != Format::Real
                     ? " (" + stringifyQuantFormat(activations).str() +
                           " activations need the "
                           "per-group placement)"
                     : std::string(" or placement=registers"));
    if (scheme.placement == Placement::Auto && oneGroupPerTile &&
        llvm::all_of(weight.loads, [&](tile::LoadOp load) {
          return llvm::all_of(load->getUsers(), [&](Operation *user) {
            auto mma = dyn_cast<tile::MmaOp>(user);
            return !mma || mma.getType().getDimSize(0) < tileK;
          });
        }))
      perGroup = true;
    for (tile::LoadOp load : weight.loads) {
      Value codes = load.getResult();
      auto realType = RankedTensorType::get({rows, cols}, real);
      auto codesType = RankedTensorType::get({rows, cols}, codeType);
      builder.setInsertionPointAfter(load);
      Location at = load.getLoc();
      if (packed) {
        load.getResult().setType(RankedTensorType::get(bufferShape, codeType));
        auto unpack = tile::UnpackOp::create(
            builder, at, codesType, load.getResult(),
            builder.getI64IntegerAttr(1), builder.getDenseI64ArrayAttr({0, 1}));
        load.getResult().replaceAllUsesExcept(unpack.getResult(), unpack);
        codes = unpack.getResult();
      } else {
        codes.setType(codesType);
      }
      auto constant = [&](int64_t value) -> Value {
        return arith::ConstantIndexOp::create(builder, at, value);
      };
      // The scale coordinates of the tile: its offsets in groups (a
      // per-channel k is group 0).
      SmallVector<Value> scaleAt(batchOffsets);
      for (unsigned axis : {0u, 1u}) {
        if (axis == kAxis && !scheme.group)
          scaleAt.push_back(constant(0));
        else if (group[axis] == 1)
          scaleAt.push_back(tileOffsets[axis]);
        else
          scaleAt.push_back(arith::DivUIOp::create(
              builder, at, tileOffsets[axis], constant(group[axis])));
      }
      auto loadGroups = [&](Value view) -> Value {
        return tile::LoadOp::create(
            builder,
            view == scales ? named("_scales", at) : named("_zeros", at),
            RankedTensorType::get({scaleShape[0], scaleShape[1]}, scaleType),
            view, scaleAt, /*pad=*/nullptr);
      };
      Value scaleTile = loadGroups(scales);
      Value zeroTile = zeros ? loadGroups(zeros) : Value();
      // The product's columns keep the weight's batch and column tags.
      SmallVector<StringRef> columnRefs(groupRefs.begin(),
                                        groupRefs.begin() + batch);
      columnRefs.push_back(nName);
      auto checkColumns = [&](OpBuilder &b, Location loc, Value product,
                              Value scales) {
        AffineMap identity = AffineMap::getMultiDimIdentityMap(2, context);
        tag::AssertEqOp::create(
            b, loc, product, AffineMapAttr::get(identity),
            b.getStrArrayAttr(columnRefs), scales, AffineMapAttr::get(identity),
            b.getStrArrayAttr(columnRefs), ValueRange(),
            b.getStringAttr("every column of the product is scaled by its "
                            "own column's scale"));
      };
      if (perGroup)
        scaleAfterMma(builder, at, codes, realType, scaleTile, zeroTile,
                      scheme.activations, transposed, checkColumns,
                      /*invariantScales=*/scheme.tokenScales &&
                          scheme.weights == Format::Int8 && !scheme.zeroPoints);
      else {
        auto dequant = tile::DequantOp::create(
            builder, at, realType, codes, scaleTile, zeroTile,
            builder.getDenseI64ArrayAttr({group[0], group[1]}));
        codes.replaceAllUsesExcept(dequant.getResult(), dequant);
      }
      AffineExpr d0 = builder.getAffineDimExpr(0),
                 d1 = builder.getAffineDimExpr(1);
      auto assertSameGroup = [&](Value groups, StringRef what) {
        tag::AssertEqOp::create(
            builder, at, codes,
            AffineMapAttr::get(AffineMap::get(2, 0, {d0, d1}, context)),
            builder.getStrArrayAttr(groupRefs), groups,
            AffineMapAttr::get(AffineMap::get(
                2, 0, {d0.floorDiv(group[0]), d1.floorDiv(group[1])}, context)),
            builder.getStrArrayAttr(groupRefs), ValueRange(),
            builder.getStringAttr(("every code uses the " + what +
                                   " of its own " +
                                   (fp8 ? "block" : "group and column"))
                                      .str()));
      };
      if (packed) {
        // Code (d0, d1) of the tile is the one the runtime packed for
        // (r + d0, c + d1): in byte (c + d1) floordiv 2, nibble (c + d1)
        // mod 2 of row r + d0 (batch coordinates as the copy's).
        SmallVector<AffineExpr> packedAt;
        for (unsigned b = 0; b < batch; ++b)
          packedAt.push_back(builder.getAffineSymbolExpr(b));
        AffineExpr row = builder.getAffineSymbolExpr(batch),
                   column = builder.getAffineSymbolExpr(batch + 1);
        packedAt.push_back(d0 + row);
        packedAt.push_back((d1 + column).floorDiv(2));
        packedAt.push_back((d1 + column) % 2);
        SmallVector<StringRef> coordinates(names.begin(), names.end());
        SmallVector<Value> captures(batchOffsets);
        captures.append({tileOffsets[0], tileOffsets[1]});
        tag::AssertEqOp::create(
            builder, at, codes,
            AffineMapAttr::get(AffineMap::get(2, batch + 2, {d0, d1}, context)),
            builder.getStrArrayAttr(coordinates), weight.argument,
            AffineMapAttr::get(AffineMap::get(2, batch + 2, packedAt, context)),
            builder.getStrArrayAttr(coordinates), captures,
            builder.getStringAttr("every code is unpacked from the nibble "
                                  "the runtime packed it in"));
      }
      assertSameGroup(scaleTile, "scale");
      if (zeroTile)
        assertSameGroup(zeroTile, "zero point");
    }
    return success();
  }
};
} // namespace
