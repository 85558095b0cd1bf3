//===- TileOps.cpp - Tile dialect operations --------------------*- C++ -*-===//

#include "tessera/Dialect/Tile/Raster.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"
#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace tessera::tile;

//===----------------------------------------------------------------------===//
// Shared verification helpers
//===----------------------------------------------------------------------===//

/// Register tiles are statically shaped tensors with positive sizes.
static LogicalResult verifyTile(Operation *op, Type type, StringRef what) {
  auto tensor = cast<RankedTensorType>(type);
  for (int64_t dim : tensor.getShape())
    if (dim <= 0)
      return op->emitOpError()
             << what << " tile " << type << " has a dimension of size " << dim
             << "; tile sizes must be positive";
  return success();
}

static LogicalResult verifyPad(Operation *op, std::optional<Attribute> pad,
                               Type elementType) {
  if (!pad)
    return success();
  auto typed = cast<TypedAttr>(*pad);
  if (typed.getType() != elementType)
    return op->emitOpError() << "pad value " << *pad << " must have the "
                             << "element type " << elementType;
  return success();
}

/// A tile of rank r taken at `offsets` from a view covers the r innermost
/// view dimensions.
static LogicalResult verifyViewAccess(Operation *op, ViewType view,
                                      size_t numOffsets, RankedTensorType tile,
                                      StringRef tileWhat) {
  if (numOffsets != static_cast<size_t>(view.getRank()))
    return op->emitOpError()
           << "expects " << view.getRank()
           << " offsets, one per dimension of the view, but got " << numOffsets;
  if (tile.getRank() > view.getRank())
    return op->emitOpError()
           << "a " << tile.getRank() << "-D " << tileWhat
           << " cannot be taken from a " << view.getRank() << "-D view";
  if (tile.getElementType() != view.getElementType())
    return op->emitOpError()
           << "element type mismatch: the view holds " << view.getElementType()
           << " but the " << tileWhat << " holds " << tile.getElementType();
  return success();
}

/// Shared buffers are accessed whole; a ring names its slot.
static LogicalResult verifySharedAccess(Operation *op, SharedType buffer,
                                        size_t numIndices,
                                        ArrayRef<int64_t> tileShape,
                                        Type tileElement, StringRef tileWhat) {
  if (buffer.isRing() && numIndices != 1)
    return op->emitOpError() << "a ring buffer needs exactly one index, the "
                                "slot, but got "
                             << numIndices;
  if (!buffer.isRing() && numIndices != 0)
    return op->emitOpError() << "a shared buffer that is not a ring takes no "
                                "index (the whole tile is accessed), but got "
                             << numIndices;
  if (tileShape != buffer.getShape())
    return op->emitOpError()
           << "the " << tileWhat << " shape must equal the shared buffer's "
           << "tile shape " << buffer;
  if (tileElement != buffer.getElementType())
    return op->emitOpError()
           << "element type mismatch: the shared buffer holds "
           << buffer.getElementType() << " but the " << tileWhat << " holds "
           << tileElement;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

// tile.kernel @name(%arg: type, ...) threads(N) [cluster(x, y, z)]
//     [attributes {...}] { body }
ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr name;
  SmallVector<OpAsmParser::Argument> arguments;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes) ||
      function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, arguments, isVariadic, resultTypes,
          resultAttrs))
    return failure();

  int64_t threads = 0;
  if (parser.parseKeyword("threads") || parser.parseLParen() ||
      parser.parseInteger(threads) || parser.parseRParen())
    return failure();
  result.addAttribute(getThreadsAttrName(result.name),
                      builder.getI64IntegerAttr(threads));
  if (succeeded(parser.parseOptionalKeyword("cluster"))) {
    SmallVector<int32_t> cluster;
    if (parser.parseCommaSeparatedList(
            OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
              return parser.parseInteger(cluster.emplace_back());
            }))
      return failure();
    result.addAttribute(getClusterAttrName(result.name),
                        builder.getDenseI32ArrayAttr(cluster));
  }
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  SmallVector<Type> argTypes;
  for (OpAsmParser::Argument &arg : arguments)
    argTypes.push_back(arg.type);
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  call_interface_impl::addArgAndResultAttrs(
      builder, result, arguments, resultAttrs, getArgAttrsAttrName(result.name),
      getResAttrsAttrName(result.name));

  Region *body = result.addRegion();
  OptionalParseResult parsedBody = parser.parseOptionalRegion(*body, arguments);
  if (parsedBody.has_value() && failed(*parsedBody))
    return failure();
  return success();
}

void KernelOp::print(OpAsmPrinter &printer) {
  printer << ' ';
  printer.printSymbolName(getSymName());
  function_interface_impl::printFunctionSignature(
      printer, *this, getArgumentTypes(), /*isVariadic=*/false,
      getResultTypes());
  printer << " threads(" << getThreadsAttr().getInt() << ')';
  if (std::optional<ArrayRef<int32_t>> cluster = getCluster()) {
    printer << " cluster(";
    llvm::interleaveComma(*cluster, printer);
    printer << ')';
  }
  function_interface_impl::printFunctionAttributes(
      printer, *this,
      {getFunctionTypeAttrName(), getArgAttrsAttrName(), getResAttrsAttrName(),
       getThreadsAttrName(), getClusterAttrName()});
  if (!getBody().empty()) {
    printer << ' ';
    printer.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                        /*printBlockTerminators=*/true);
  }
}

LogicalResult KernelOp::verify() {
  if (getBody().empty())
    return emitOpError("needs a body; kernels cannot be declarations");
  if (!getBody().hasOneBlock())
    return emitOpError("body must be a single block; use scf ops for "
                       "control flow");
  if (!getResultTypes().empty())
    return emitOpError("cannot return values; write results through a "
                       "!tile.view argument");
  for (auto [index, type] : llvm::enumerate(getArgumentTypes())) {
    if (isa<ViewType, IndexType, FloatType>(type) || type.isSignlessInteger())
      continue;
    return emitOpError() << "argument #" << index << " has type " << type
                         << "; kernel arguments must be !tile.view, index, "
                            "signless integer or float";
  }
  // Whole warps (wavefronts) of the module's target; 32 when it names none.
  int64_t threads = getThreadsAttr().getInt(), warp = 32;
  const TargetInfo *target = nullptr;
  if (auto module = (*this)->getParentOfType<ModuleOp>())
    target = getModuleTarget(module);
  if (target && target->isGpu())
    warp = target->warpSize;
  if (threads < warp || threads > 1024 || threads % warp != 0)
    return emitOpError() << "threads = " << threads
                         << " is invalid; use a multiple of " << warp
                         << " between " << warp << " and 1024"
                         << (target ? " (the warp size of " +
                                          target->chip.str() + ")"
                                    : std::string());
  if (std::optional<ArrayRef<int32_t>> cluster = getCluster()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError("cluster must have 1 to 3 dimensions");
    int64_t size = 1;
    for (int32_t dim : *cluster) {
      if (dim < 1)
        return emitOpError()
               << "cluster dimensions must be positive, got " << dim;
      size *= dim;
    }
    if (size > 16)
      return emitOpError() << "a cluster of " << size
                           << " program instances exceeds the limit of 16";
  }
  // The runtime passes a persistent kernel's last four arguments: all of
  // them or none are marked (the marks' order: the argument verifier).
  if (llvm::any_of(getArguments(), [](BlockArgument arg) {
        return persistentArgumentKind(arg).has_value();
      })) {
    unsigned count = getNumArguments();
    for (unsigned i =
             count >= kPersistentArguments ? count - kPersistentArguments : 0;
         i < count; ++i)
      if (!persistentArgumentKind(getArgument(i)))
        return emitOpError("marks some of its last four arguments "
                           "tile.grid: a persistent kernel marks all four");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DimOp
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// TileCoordsOp
//===----------------------------------------------------------------------===//

LogicalResult TileCoordsOp::verify() {
  if (getGroup() < 1 || getGroup() > kMaxPersistentGroup)
    return emitOpError() << "group must be between 1 and "
                         << kMaxPersistentGroup << ", got " << getGroup();
  // The grid is the one the runtime passes (positive, within its limits),
  // whose coordinates tag-check assumes the results to be; along x it may
  // be counted in groups of N tiles (a persistent cluster's), (gx + N - 1)
  // div N, as positive and no larger.
  auto inGroups = [](Value size) {
    auto div = size.getDefiningOp<arith::DivUIOp>();
    auto add = div ? div.getLhs().getDefiningOp<arith::AddIOp>() : nullptr;
    std::optional<int64_t> n =
        div ? getConstantIntValue(div.getRhs()) : std::nullopt;
    std::optional<int64_t> rest =
        add ? getConstantIntValue(add.getRhs()) : std::nullopt;
    return n && rest && *n >= 1 && *rest == *n - 1 &&
           persistentArgumentKind(add.getLhs()) == 0;
  };
  for (int64_t d = 0; d < 3; ++d)
    if (persistentArgumentKind(getOperand(d + 1)) != d &&
        !(d == 0 && inGroups(getOperand(1))))
      return emitOpError() << "grid size " << d
                           << " must be the kernel's argument marked "
                              "{tile.grid = "
                           << d << "}"
                           << (d == 0 ? " (or it counted in groups of N, "
                                        "(gx + N - 1) div N)"
                                      : "");
  return success();
}

namespace {
/// rasterTile's arithmetic as unsigned index ops.
struct IndexRasterOps {
  OpBuilder &b;
  Location loc;
  Value div(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value rem(Value x, Value y) { return arith::RemUIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinUIOp::create(b, loc, x, y); }
};
} // namespace

std::array<Value, 3> TileCoordsOp::expand(OpBuilder &b, ValueRange operands) {
  IndexRasterOps ops{b, getLoc()};
  Value tiles = ops.mul(ops.mul(operands[1], operands[2]), operands[3]);
  Value group = arith::ConstantIndexOp::create(b, getLoc(), getGroup());
  return rasterTile(ops, ops.rem(operands[0], tiles), operands[1], operands[2],
                    group);
}

LogicalResult DimOp::verify() {
  int64_t rank = getView().getType().getRank();
  int64_t dim = getDimensionAttr().getInt();
  if (dim < 0 || dim >= rank)
    return emitOpError() << "dimension " << dim
                         << " is out of range for a view of rank " << rank;
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  ViewType view = getView().getType();
  int64_t dim = getDimensionAttr().getInt();
  if (dim < 0 || dim >= view.getRank() ||
      ShapedType::isDynamic(view.getShape()[dim]))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), view.getShape()[dim]);
}

//===----------------------------------------------------------------------===//
// Memory ops
//===----------------------------------------------------------------------===//

LogicalResult CopyOp::verify() {
  ViewType view = getSource().getType();
  SharedType dest = getDest().getType();
  auto tile = RankedTensorType::get(dest.getShape(), dest.getElementType());
  if (failed(verifyViewAccess(*this, view, getOffsets().size(), tile,
                              "shared tile")))
    return failure();
  if (dest.isRing() && !getSlot())
    return emitOpError("copying into a ring buffer needs a slot: "
                       "`-> %ring[%slot]`");
  if (!dest.isRing() && getSlot())
    return emitOpError("a slot is only meaningful for a ring buffer "
                       "(!tile.shared<..., stages = N>)");
  if (getRows()) {
    int64_t numRows = getRows().getType().getDimSize(0);
    if (numRows != dest.getShape()[0])
      return emitOpError() << "gathers " << numRows
                           << " rows but the shared tile has "
                           << dest.getShape()[0]
                           << "; the row-index tile and the tile's first "
                              "dimension must agree";
    if (getMulticast())
      return emitOpError("a gathering copy cannot be multicast (each program "
                         "chooses its own rows)");
    if (isNibblePairs(dest.getElementType(), dest.getShape()))
      return emitOpError("gathering into a buffer of int4 nibble pairs is not "
                         "supported");
  }
  if (getMulticast()) {
    auto roles = (*this)->getParentOfType<WarpSpecializeOp>();
    if (!getAsync() || !dest.isRing() || !roles ||
        !roles.getProducer().isAncestor((*this)->getParentRegion()))
      return emitOpError("multicast is an asynchronous fill of a ring by the "
                         "producer role of a tile.warp_specialize");
    if (clusterBlocks((*this)->getParentOfType<KernelOp>()) < 2)
      return emitOpError("multicast needs a kernel launched in clusters of "
                         "two programs or more (cluster(...))");
  }
  return verifyPad(*this, getPad(), view.getElementType());
}

LogicalResult CopyOutOp::verify() {
  SharedType source = getSource().getType();
  auto tile = RankedTensorType::get(source.getShape(), source.getElementType());
  if (failed(verifyViewAccess(*this, getDest().getType(), getOffsets().size(),
                              tile, "shared tile")))
    return failure();
  if (source.isRing() && !getSlot())
    return emitOpError("copying out of a ring buffer needs a slot: "
                       "`%ring[%slot] ->`");
  if (!source.isRing() && getSlot())
    return emitOpError("a slot is only meaningful for a ring buffer "
                       "(!tile.shared<..., stages = N>)");
  if (isNibblePairs(source.getElementType(), source.getShape()))
    return emitOpError("out of a buffer of int4 nibble pairs is not "
                       "supported");
  return success();
}

LogicalResult LoadOp::verify() {
  RankedTensorType result = getResult().getType();
  if (failed(verifyTile(*this, result, "result")))
    return failure();
  if (auto view = dyn_cast<ViewType>(getSource().getType())) {
    if (failed(verifyViewAccess(*this, view, getIndices().size(), result,
                                "result")))
      return failure();
    return verifyPad(*this, getPad(), view.getElementType());
  }
  if (getPad())
    return emitOpError("pad applies to loads from views only; shared "
                       "buffers are always in bounds");
  return verifySharedAccess(*this, cast<SharedType>(getSource().getType()),
                            getIndices().size(), result.getShape(),
                            result.getElementType(), "result");
}

LogicalResult StoreOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(verifyTile(*this, value, "stored")))
    return failure();
  if (auto view = dyn_cast<ViewType>(getDest().getType()))
    return verifyViewAccess(*this, view, getIndices().size(), value,
                            "stored tile");
  return verifySharedAccess(*this, cast<SharedType>(getDest().getType()),
                            getIndices().size(), value.getShape(),
                            value.getElementType(), "stored tile");
}

LogicalResult GatherOp::verify() {
  RankedTensorType result = getResult().getType();
  if (failed(verifyTile(*this, result, "result")) ||
      failed(verifyViewAccess(*this, getSource().getType(), getOffsets().size(),
                              result, "result")))
    return failure();
  int64_t numRows = getRows().getType().getDimSize(0);
  if (numRows != result.getDimSize(0))
    return emitOpError() << "gathers " << numRows << " rows but the result has "
                         << result.getDimSize(0)
                         << "; the row-index tile and the result's first "
                            "dimension must agree";
  return verifyPad(*this, getPad(), result.getElementType());
}

LogicalResult AtomicAddOp::verify() {
  RankedTensorType value = getValue().getType();
  if (failed(verifyTile(*this, value, "added")) ||
      failed(verifyViewAccess(*this, getDest().getType(), getOffsets().size(),
                              value, "added tile")))
    return failure();
  Type element = value.getElementType();
  if (!element.isF32() && !element.isF16() && !element.isBF16() &&
      !element.isSignlessInteger(32))
    return emitOpError() << "atomic add of " << element
                         << " is not supported; use f32, f16, bf16 or i32";
  if (getRows() && getRows().getType().getDimSize(0) != value.getDimSize(0))
    return emitOpError() << "scatters " << getRows().getType().getDimSize(0)
                         << " rows but the added tile has "
                         << value.getDimSize(0);
  return success();
}

//===----------------------------------------------------------------------===//
// Compute ops
//===----------------------------------------------------------------------===//

/// The element types tile.mma accepts as (a, b, acc).
static bool isSupportedMmaCombination(Type a, Type b, Type acc) {
  auto isFp8 = [](Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); };
  if (isFp8(a) && isFp8(b))
    return acc.isF32();
  if (a != b)
    return false;
  if (a.isF16())
    return acc.isF32() || acc.isF16();
  if (a.isBF16() || a.isF32())
    return acc.isF32();
  if (a.isSignlessInteger(8))
    return acc.isSignlessInteger(32);
  return false;
}

LogicalResult MmaOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType(),
                   acc = getAcc().getType();
  if (failed(verifyTile(*this, a, "a")) || failed(verifyTile(*this, b, "b")) ||
      failed(verifyTile(*this, acc, "accumulator")))
    return failure();
  if (a.getRank() != 2 || b.getRank() != 2 || acc.getRank() != 2)
    return emitOpError("operands and accumulator must be 2-D tiles");
  int64_t m = a.getDimSize(getTransposeA() ? 1 : 0);
  int64_t ka = a.getDimSize(getTransposeA() ? 0 : 1);
  int64_t kb = b.getDimSize(getTransposeB() ? 1 : 0);
  int64_t n = b.getDimSize(getTransposeB() ? 0 : 1);
  if (ka != kb)
    return emitOpError() << "contraction sizes differ: a has K = " << ka
                         << " but b has K = " << kb
                         << " (check the transpose flags)";
  if (acc.getDimSize(0) != m || acc.getDimSize(1) != n)
    return emitOpError() << "accumulator must be " << m << "x" << n
                         << " for these operands, got " << acc;
  Type ea = a.getElementType(), eb = b.getElementType(),
       eacc = acc.getElementType();
  if (!isSupportedMmaCombination(ea, eb, eacc))
    return emitOpError() << "unsupported element types " << ea << " x " << eb
                         << " -> " << eacc
                         << "; use f16/bf16/f32 -> f32, f16 -> f16, fp8 -> "
                            "f32 or i8 -> i32";
  MmaKind kind = getKind().value_or(MmaKind::automatic);
  if (kind == MmaKind::automatic)
    return success();
  // A pinned instruction family needs a tile made of whole instructions.
  unsigned bits = ea.getIntOrFloatBitWidth();
  int64_t instM = kind == MmaKind::wgmma ? 64 : 16;
  int64_t instN = kind == MmaKind::mfma ? 16 : 8;
  int64_t instK = (kind == MmaKind::mfma ? 128 : 256) / bits;
  if (m % instM || n % instN || ka % instK)
    return emitOpError() << "a " << m << "x" << n << "x" << ka
                         << " tile is not a whole number of "
                         << stringifyMmaKind(kind) << " instructions (" << instM
                         << "x" << instN << "x" << instK << " for " << ea
                         << ")";
  return success();
}

LogicalResult ReduceOp::verify() {
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  if (failed(verifyTile(*this, input, "input")))
    return failure();
  int64_t dim = getDimAttr().getInt();
  if (dim < 0 || dim >= input.getRank())
    return emitOpError() << "dim " << dim
                         << " is out of range for a tile of rank "
                         << input.getRank();
  SmallVector<int64_t> expected(input.getShape());
  expected.erase(expected.begin() + dim);
  if (result.getShape() != ArrayRef<int64_t>(expected) ||
      result.getElementType() != input.getElementType())
    return emitOpError() << "result must be "
                         << RankedTensorType::get(expected,
                                                  input.getElementType())
                         << " (the input without dimension " << dim << ")";
  return success();
}

LogicalResult BroadcastOp::verify() {
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  if (failed(verifyTile(*this, input, "input")) ||
      failed(verifyTile(*this, result, "result")))
    return failure();
  ArrayRef<int64_t> dims = getDims();
  // Same rank: the listed dimensions are unit dimensions to expand.
  bool expands = result.getRank() == input.getRank();
  if (!expands &&
      result.getRank() != input.getRank() + static_cast<int64_t>(dims.size()))
    return emitOpError() << "result rank " << result.getRank()
                         << " must be the input rank " << input.getRank()
                         << " plus the " << dims.size()
                         << " new dimensions, or equal to it to expand unit "
                            "dimensions";
  for (auto [index, dim] : llvm::enumerate(dims)) {
    if (dim < 0 || dim >= result.getRank())
      return emitOpError() << (expands ? "expanded" : "new") << " dimension "
                           << dim << " is out of range for the result";
    if (index > 0 && dims[index - 1] >= dim)
      return emitOpError() << (expands ? "expanded" : "new")
                           << " dimensions must be sorted and unique";
    if (expands && input.getDimSize(dim) != 1)
      return emitOpError() << "expanded dimension " << dim
                           << " must have size 1 in the input, got "
                           << input.getDimSize(dim);
  }
  int64_t inputDim = 0;
  for (int64_t dim = 0; dim < result.getRank(); ++dim) {
    if (llvm::is_contained(dims, dim)) {
      inputDim += expands;
      continue;
    }
    if (result.getDimSize(dim) != input.getDimSize(inputDim))
      return emitOpError() << "result dimension " << dim << " has size "
                           << result.getDimSize(dim) << " but input dimension "
                           << inputDim << " has size "
                           << input.getDimSize(inputDim);
    ++inputDim;
  }
  if (result.getElementType() != input.getElementType())
    return emitOpError("result element type must equal the input's");
  return success();
}

LogicalResult ConvertLayoutOp::verify() {
  auto source = cast<RankedTensorType>(getSource().getType());
  auto result = cast<RankedTensorType>(getType());
  if (source.getShape() != result.getShape() ||
      source.getElementType() != result.getElementType())
    return emitOpError("must keep the tile's shape and element type");
  if (!isa_and_present<LinearLayoutAttr>(source.getEncoding()) ||
      !isa_and_present<LinearLayoutAttr>(result.getEncoding()))
    return emitOpError("converts between #tile.linear layouts: both types "
                       "need one");
  return success();
}

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSource().getType() == getType())
    return getSource();
  return {};
}

OpFoldResult BroadcastOp::fold(FoldAdaptor adaptor) {
  if (getDims().empty() && getInput().getType() == getType())
    return getInput();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getInput()))
    return SplatElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult SplatOp::verify() {
  if (failed(verifyTile(*this, getType(), "result")))
    return failure();
  if (getType().getElementType() != getValue().getType())
    return emitOpError() << "result element type " << getType().getElementType()
                         << " must equal the scalar's type "
                         << getValue().getType();
  return success();
}

OpFoldResult SplatOp::fold(FoldAdaptor adaptor) {
  if (auto typed = dyn_cast_if_present<TypedAttr>(adaptor.getValue()))
    if (isa<IntegerAttr, FloatAttr>(typed))
      return SplatElementsAttr::get(getType(), typed);
  return {};
}

LogicalResult IotaOp::verify() {
  return verifyTile(*this, getType(), "result");
}

LogicalResult SelectOp::verify() {
  if (failed(verifyTile(*this, getType(), "result")))
    return failure();
  if (getCondition().getType().getShape() != getType().getShape())
    return emitOpError() << "condition shape must equal the result shape, "
                            "got "
                         << getCondition().getType() << " for " << getType();
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  if (getTrueValue() == getFalseValue())
    return getTrueValue();
  if (auto cond =
          dyn_cast_if_present<SplatElementsAttr>(adaptor.getCondition()))
    return cond.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  return {};
}

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

LogicalResult AsyncWaitOp::verify() {
  // I64Attr accessors return unsigned values; read the signed one.
  int64_t pending = getPendingAttr().getInt();
  if (pending < 0)
    return emitOpError() << "pending must be a count of copy groups (>= 0), "
                            "got "
                         << pending;
  return success();
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

static bool isCodeType(Type type) {
  return type.isSignlessInteger(4) || type.isSignlessInteger(8) ||
         isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Checks that `scales` holds one entry per group of `codes` and that, in
/// each dimension, the tile holds whole groups or lies inside one group.
static LogicalResult verifyGroups(Operation *op, RankedTensorType codes,
                                  RankedTensorType scales,
                                  ArrayRef<int64_t> group) {
  if (static_cast<int64_t>(group.size()) != codes.getRank())
    return op->emitOpError()
           << "group has " << group.size()
           << " entries but the codes tile has rank " << codes.getRank();
  if (scales.getRank() != codes.getRank())
    return op->emitOpError("scales must have the same rank as the codes");
  for (auto [dim, size] : llvm::enumerate(group)) {
    int64_t extent = codes.getDimSize(dim);
    if (size < 1)
      return op->emitOpError() << "group sizes must be positive, got " << size;
    if (extent % size != 0 && size % extent != 0)
      return op->emitOpError()
             << "in dimension " << dim << " the tile (" << extent
             << ") must hold whole groups of " << size
             << " or lie inside one group; change the tile or group size";
    int64_t expected = (extent + size - 1) / size;
    if (scales.getDimSize(dim) != expected)
      return op->emitOpError() << "scales dimension " << dim << " must be "
                               << expected << " (one per group of " << size
                               << "), got " << scales.getDimSize(dim);
  }
  return success();
}

LogicalResult DequantOp::verify() {
  RankedTensorType codes = getCodes().getType(), scales = getScales().getType(),
                   result = getResult().getType();
  if (failed(verifyTile(*this, codes, "codes")) ||
      failed(verifyTile(*this, scales, "scales")))
    return failure();
  if (!isCodeType(codes.getElementType()))
    return emitOpError() << "codes must be i4, i8, f8E4M3FN or f8E5M2, got "
                         << codes.getElementType();
  if (!isa<FloatType>(scales.getElementType()) ||
      !isa<FloatType>(result.getElementType()))
    return emitOpError("scales and result must be float tiles");
  if (result.getShape() != codes.getShape())
    return emitOpError("result shape must equal the codes shape");
  if (failed(verifyGroups(*this, codes, scales, getGroup())))
    return failure();
  if (getZeros() && getZeros().getType().getShape() != scales.getShape())
    return emitOpError("zero points need the same shape as the scales");
  return success();
}

LogicalResult QuantOp::verify() {
  RankedTensorType input = getInput().getType(), codes = getCodes().getType(),
                   scales = getScales().getType();
  if (failed(verifyTile(*this, input, "input")))
    return failure();
  if (!isa<FloatType>(input.getElementType()) ||
      !isa<FloatType>(scales.getElementType()))
    return emitOpError("input and scales must be float tiles");
  if (!isCodeType(codes.getElementType()))
    return emitOpError() << "codes must be i4, i8, f8E4M3FN or f8E5M2, got "
                         << codes.getElementType();
  if (codes.getShape() != input.getShape())
    return emitOpError("codes shape must equal the input shape");
  return verifyGroups(*this, codes, scales, getGroup());
}

LogicalResult UnpackOp::verify() {
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  if (failed(verifyTile(*this, input, "input")) ||
      failed(verifyTile(*this, result, "result")))
    return failure();
  if (input.getRank() < 2 || result.getRank() != input.getRank() - 1)
    return emitOpError() << "the input needs a trailing dimension of packed "
                            "codes and the result one dimension less, got "
                         << input << " -> " << result;
  int64_t dim = getDim(), units = input.getShape().back();
  if (dim < 0 || dim >= result.getRank())
    return emitOpError() << "dimension " << dim
                         << " is out of range for the result";
  ArrayRef<int64_t> order = getOrder();
  if (static_cast<int64_t>(order.size()) != units)
    return emitOpError() << "order has " << order.size()
                         << " entries but the trailing dimension packs "
                         << units << " codes";
  llvm::SmallBitVector seen(units);
  for (int64_t position : order) {
    if (position < 0 || position >= units || seen.test(position))
      return emitOpError() << "order must be a permutation of [0, " << units
                           << ")";
    seen.set(position);
  }
  for (int64_t d = 0; d < result.getRank(); ++d) {
    int64_t expected = input.getDimSize(d) * (d == dim ? units : 1);
    if (result.getDimSize(d) != expected)
      return emitOpError() << "result dimension " << d << " must be "
                           << expected << ", got " << result.getDimSize(d);
  }
  if (result.getElementType() != input.getElementType())
    return emitOpError("result element type must equal the input's");
  return success();
}

#define GET_OP_CLASSES
#include "tessera/Dialect/Tile/TileOps.cpp.inc"
