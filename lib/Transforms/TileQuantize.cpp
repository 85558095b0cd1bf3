//===- TileQuantize.cpp - Weight quantization of tile kernels ---*- C++ -*-===//
//
// Rewrites the real weight operand of a kernel's MMAs into quantized codes
// (int4/int8 with scales per group of k in each column, or fp8 e4m3 with
// 128x128 block scales), applied before the MMA or after it per K tile, and
// states what that needs as tags: every code is scaled by the scale (and
// shifted by the zero point) of its own group.
//
//===----------------------------------------------------------------------===//

#include "Quantize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

#include <tuple>

namespace tessera {
#define GEN_PASS_DEF_TILEQUANTIZE
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

using namespace mlir;
using namespace tessera;
using namespace tessera::quant;

namespace {
struct TileQuantizePass : tessera::impl::TileQuantizeBase<TileQuantizePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    TileQuantizeOptions options;
    options.kernel = kernel;
    options.weights = weights;
    options.group = group;
    options.zeroPoints = zeroPoints;
    options.activations = activations;
    options.activationScales = activationScales;
    options.placement = placement;
    FailureOr<Scheme> scheme = checkScheme(getOperation().getLoc(), options);
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
    if (failed(Quantizer().quantize(kernels.front(), *scheme)))
      return signalPassFailure();
  }
};
} // namespace

LogicalResult Quantizer::quantize(tile::KernelOp kernel, const Scheme &scheme) {
  SmallVector<tile::MmaOp> mmas;
  kernel.walk([&](tile::MmaOp mma) { mmas.push_back(mma); });
  if (mmas.empty())
    return kernel.emitError("tile-quantize: the kernel has no tile.mma");
  // The distinct kernel arguments the MMAs read as weights (activations).
  auto sources = [&](bool weight) -> FailureOr<SmallVector<Source>> {
    SmallVector<Source> found;
    for (tile::MmaOp mma : mmas) {
      FailureOr<Source> source = findSource(mma, kernel, weight);
      if (failed(source))
        return failure();
      if (llvm::none_of(found, [&](const Source &other) {
            return other.argument == source->argument;
          }))
        found.push_back(*source);
    }
    return found;
  };
  FailureOr<SmallVector<Source>> found = sources(/*weight=*/true);
  if (failed(found))
    return failure();
  SmallVector<Source> weights = std::move(*found);
  // Pre-quantized activations first: the weights' MMAs then read their
  // codes.
  if (scheme.tokenScales) {
    FailureOr<SmallVector<Source>> activations = sources(/*weight=*/false);
    if (failed(activations))
      return failure();
    for (Source &activation : *activations)
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

/// The activation argument becomes int8 or fp8 codes, followed by a new
/// argument of one f32 scale per token (row); its loads hold codes.
LogicalResult Quantizer::rewriteActivation(tile::KernelOp kernel,
                                           Source &activation,
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

LogicalResult Quantizer::rewrite(tile::KernelOp kernel, Source &weight,
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
    components =
        llvm::map_to_vector(weight.binding.getComponents(), [](Attribute attr) {
          return cast<StringAttr>(attr).str();
        });
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
                   : "one group per K tile (group = " + std::to_string(tileK) +
                         "); use that group")
           << (scheme.activations != Format::Real
                   ? " (" + stringifyQuantFormat(scheme.activations).str() +
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
        scaleAt.push_back(arith::DivUIOp::create(builder, at, tileOffsets[axis],
                                                 constant(group[axis])));
    }
    auto loadGroups = [&](Value view) -> Value {
      return tile::LoadOp::create(
          builder, view == scales ? named("_scales", at) : named("_zeros", at),
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
