//===- QuantizeScaling.cpp - Where tile-quantize applies the scales ------===//
//
// The placements of the scales: per group after each MMA on the codes,
// low-precision MMAs (int8 x int8, fp8 x fp8) scaled by both operands'
// scales, and the scaled_mm epilogue that scales a loop's exact integer sum
// once; with the tag assertions each states.
//
//===----------------------------------------------------------------------===//

#include "Quantize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::quant;

Value tessera::quant::asF32(OpBuilder &builder, Location loc, Value tile) {
  auto type = cast<RankedTensorType>(tile.getType());
  if (type.getElementType().isF32())
    return tile;
  return arith::ExtFOp::create(
      builder, loc,
      RankedTensorType::get(type.getShape(), builder.getF32Type()), tile);
}

Value tessera::quant::spreadTo(OpBuilder &builder, Location loc, Value tile,
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

/// The `rows` per-token scales from row `row` on.
Value Quantizer::loadTokenScales(OpBuilder &b, Location loc,
                                 const TokenScales &token, Value row,
                                 int64_t rows) {
  return tile::LoadOp::create(
      b, NameLoc::get(b.getStringAttr("a_token_scales"), loc),
      RankedTensorType::get({rows}, b.getF32Type()), token.view,
      ValueRange{row}, /*pad=*/nullptr);
}

/// Asserts that row i of the 2-D `tile` has the token of `scales[i]`.
void Quantizer::assertTokenRows(OpBuilder &b, Location loc, Value tile,
                                Value scales, StringRef rowName,
                                StringRef message) {
  MLIRContext *context = b.getContext();
  AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
  tag::AssertEqOp::create(
      b, loc, tile, AffineMapAttr::get(AffineMap::get(2, 0, {d0, d1}, context)),
      b.getStrArrayAttr({rowName}), scales,
      AffineMapAttr::get(AffineMap::get(2, 0, {d0}, context)),
      b.getStrArrayAttr({rowName}), ValueRange(), b.getStringAttr(message));
}

/// With per-channel weight scales and per-token activation scales nothing
/// changes along k: the loop sums the products (exact integers) and the
/// loop's result is scaled once after it (the scaled_mm epilogue). Fails,
/// leaving the IR alone, unless `mma` accumulates straight into a loop's
/// iteration argument and both scale tiles can be loaded after the loop.
LogicalResult Quantizer::scaleAfterLoop(tile::MmaOp mma, Value product,
                                        Value scaleTile,
                                        const TokenScales &token, Spread spread,
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

/// Per-group placement of one K tile (one group): the MMAs read the codes
/// (minus the zero points) as reals, and their products are scaled per
/// column before they join the accumulator: acc + (a . codes) * s.
void Quantizer::scaleAfterMma(OpBuilder &builder, Location at, Value codes,
                              RankedTensorType realType, Value scaleTile,
                              Value zeroTile, Format activations,
                              bool transposed, ColumnCheck checkColumns,
                              bool invariantScales) {
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
    Value line =
        tile::ReduceOp::create(b, loc, RankedTensorType::get({n}, f32),
                               tile::ReduceKind::sum, asF32(b, loc, groups), 1);
    return tile::BroadcastOp::create(b, loc, RankedTensorType::get({m, n}, f32),
                                     line, b.getDenseI64ArrayAttr({0}));
  };
  if (activations != Format::Real)
    return lowPrecisionMmas(codes, scaleTile, activations, spread, checkColumns,
                            invariantScales);
  // fp8 codes are reals already (exact in bf16 and f16).
  Operation *asReal =
      isa<FloatType>(getElementTypeOrSelf(codes.getType()))
          ? arith::ExtFOp::create(builder, at, wide, codes).getOperation()
          : arith::SIToFPOp::create(builder, at, wide, codes).getOperation();
  Value real = asReal->getResult(0);
  if (zeroTile)
    real = arith::SubFOp::create(builder, at, real,
                                 spreadTo(builder, at, zeroTile, {rows, cols}));
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
void Quantizer::lowPrecisionMmas(Value codes, Value scaleTile,
                                 Format activations, Spread spread,
                                 ColumnCheck checkColumns,
                                 bool invariantScales) {
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
    if (auto known = tokenScales.find(mma.getA()); known != tokenScales.end()) {
      // Pre-quantized: this tile's rows of the per-token scales.
      const TokenScales &token = known->second;
      Value row = token.rowOffset;
      aCodes = mma.getA();
      aScales = loadTokenScales(before, loc, token, row, m);
      assertTokenRows(before, loc, aCodes, aScales, token.rowName,
                      "every row uses the scale of its own token");
    } else {
      // One quantization per activation tile for its MMAs in one block
      // (the MoE block's gate and up), before the first of them (weights
      // are rewritten last argument first).
      tile::QuantOp &quant = activationCodes[mma.getA()];
      if (quant && quant->getBlock() == mma->getBlock() &&
          quant.getCodes().getType().getElementType() == codeType &&
          mma->isBeforeInBlock(quant))
        quant->moveBefore(mma);
      if (!quant || quant->getBlock() != mma->getBlock() ||
          quant.getCodes().getType().getElementType() != codeType)
        quant = tile::QuantOp::create(
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
          before, loc, RankedTensorType::get(weightType.getShape(), i8), codes);
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
      real = arith::SIToFPOp::create(before, loc,
                                     RankedTensorType::get({m, n}, f32), real);
    // Per-token scales: [m, 1] from tile.quant or [m] given.
    Value rowScales = cast<RankedTensorType>(aScales.getType()).getRank() == 1
                          ? tile::BroadcastOp::create(
                                before, loc, RankedTensorType::get({m, n}, f32),
                                aScales, before.getDenseI64ArrayAttr({1}))
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
