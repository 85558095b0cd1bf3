//===- TileDialect.cpp - Tile dialect, types and attributes -----*- C++ -*-===//

#include "tessera/Dialect/Tile/TileDialect.h"

#include "tessera/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "tessera/Layout/LinearLayout.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;
using namespace tessera::tile;

#include "tessera/Dialect/Tile/TileDialect.cpp.inc"
#include "tessera/Dialect/Tile/TileEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Tile/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Tile/TileTypes.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tessera/Dialect/Tile/TileAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "tessera/Dialect/Tile/TileTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Tile/TileOps.cpp.inc"
      >();
}

Operation *TileDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                            Type type, Location loc) {
  return arith::ConstantOp::materialize(builder, value, type, loc);
}

LogicalResult TileDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  // The attributes are declared in ODS (discardableAttrs); what is checked
  // here is their value's kind and the ops they may sit on.
  StringRef name = attr.getName().getValue();
  Attribute value = attr.getValue();
  auto wrongKind = [&](StringRef kind) {
    return op->emitError() << "'" << name << "' must be " << kind << ", got "
                           << value;
  };
  auto wrongOp = [&](StringRef where) {
    return op->emitError() << "'" << name << "' applies to " << where
                           << ", not to '" << op->getName() << "'";
  };
  // The K-loop policy that tile-pipeline carries out.
  if (name == PipelineAttrHelper::getNameStr()) {
    if (!isa<PipelineAttr>(value))
      return wrongKind("a #tile.pipeline<stages = N> attribute");
    if (!isa<scf::ForOp>(op))
      return wrongOp("scf.for loops");
    return success();
  }
  // The persistent-kernel policy that tile-persistent carries out.
  if (name == PersistentAttrHelper::getNameStr()) {
    if (!isa<PersistentAttr>(value))
      return wrongKind("a #tile.persistent<group = N> attribute");
    if (!isa<KernelOp>(op))
      return wrongOp("tile.kernel");
    return success();
  }
  // The offset width tag-check proved sufficient for a view access.
  if (name == IndexBitsAttrHelper::getNameStr()) {
    auto bits = dyn_cast<IntegerAttr>(value);
    if (!bits || (bits.getInt() != 32 && bits.getInt() != 64))
      return wrongKind("32 or 64");
    if (!isa<CopyOp, CopyOutOp, LoadOp, StoreOp, GatherOp, AtomicAddOp>(op))
      return wrongOp("view accesses");
    return success();
  }
  // The chip a module is compiled for: one the target registry knows.
  if (name == TargetAttrHelper::getNameStr()) {
    auto chip = dyn_cast<StringAttr>(value);
    if (!chip || !lookupTarget(chip.getValue()))
      return wrongKind("a chip (" + listTargets() + ")");
    if (!isa<ModuleOp>(op))
      return wrongOp("modules");
    return success();
  }
  // The stored order of a shared buffer (tile-assign-layouts).
  if (name == SwizzleAttrHelper::getNameStr()) {
    if (!isa<SwizzleAttr>(value))
      return wrongKind("a #tile.swizzle attribute");
    if (!isa<AllocSharedOp>(op))
      return wrongOp("tile.alloc_shared");
    return success();
  }
  // A shared buffer filled by TMA and read by wgmma (tile-assign-layouts).
  if (name == TmaAttrHelper::getNameStr()) {
    if (!isa<UnitAttr>(value))
      return wrongKind("a unit attribute");
    if (!isa<AllocSharedOp>(op))
      return wrongOp("tile.alloc_shared");
    return success();
  }
  // The schedule of a pipelined loop's ops (tile-pipeline's steps).
  if (llvm::is_contained(
          {LatencyAttrHelper::getNameStr(), StageAttrHelper::getNameStr(),
           OrderAttrHelper::getNameStr(), IiAttrHelper::getNameStr()},
          name)) {
    auto number = dyn_cast<IntegerAttr>(value);
    if (!number || number.getInt() < 0)
      return wrongKind("a non-negative integer");
    return success();
  }
  return op->emitError() << "unknown tile dialect attribute '" << name << "'";
}

LogicalResult TileDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned regionIndex,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name != GridAttrHelper::getNameStr())
    return op->emitError() << "unknown tile dialect argument attribute '"
                           << name << "'";
  // What the runtime passes a persistent kernel (tile-persistent): the
  // launched grid's size along dimensions 0, 1, 2, and (3) the program
  // instances it started.
  auto kernel = dyn_cast<KernelOp>(op);
  auto dim = dyn_cast<IntegerAttr>(attr.getValue());
  if (!kernel || !dim || dim.getInt() < 0 || dim.getInt() > 3 ||
      !isa<IndexType>(kernel.getArgumentTypes()[argIndex]) ||
      argIndex + kPersistentArguments !=
          kernel.getNumArguments() + dim.getInt())
    return op->emitError() << "'" << name
                           << "' marks the last four arguments of a "
                              "tile.kernel, index ones, with 0, 1, 2 and 3";
  if (!kernel->hasAttr(PersistentAttrHelper::getNameStr()))
    return op->emitError() << "'" << name
                           << "' needs a kernel with tile.persistent";
  return success();
}

std::optional<int64_t> tessera::tile::persistentArgumentKind(Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  auto kernel =
      arg ? dyn_cast<KernelOp>(arg.getOwner()->getParentOp()) : KernelOp();
  if (!kernel)
    return std::nullopt;
  if (auto kind = kernel.getArgAttrOfType<IntegerAttr>(
          arg.getArgNumber(), TileDialect::GridAttrHelper::getNameStr()))
    return kind.getInt();
  return std::nullopt;
}

bool tessera::tile::isPersistentKernel(KernelOp kernel) {
  // The verifier has every tile.grid argument among the last four, all of
  // them marked once one is.
  return !kernel.getBody().empty() &&
         kernel.getNumArguments() >= kPersistentArguments &&
         persistentArgumentKind(
             kernel.getArgument(kernel.getNumArguments() - 1));
}

bool tessera::tile::isNibblePairs(Type element, ArrayRef<int64_t> shape) {
  return element.isInteger(4) && !shape.empty() && shape.back() == 2;
}

int64_t tessera::tile::tmaSwizzleSpan(SharedType type) {
  SmallVector<int64_t> shape = type.getStoredShape();
  if (shape.size() != 2 || shape[0] % 8 || shape[0] > 256)
    return 0;
  int64_t rowBytes = shape[1] * type.getStoredElementBits() / 8;
  if (rowBytes % 128 == 0)
    return 128;
  return rowBytes == 64 || rowBytes == 32 ? rowBytes : 0;
}

bool tessera::tile::isGatheredInto(Value buffer) {
  return llvm::any_of(buffer.getUsers(), [&](Operation *user) {
    auto copy = dyn_cast<CopyOp>(user);
    return copy && copy.getDest() == buffer && copy.getRows();
  });
}

bool tessera::tile::isSupportedViewElementType(Type type) {
  if (type.isF32() || type.isF16() || type.isBF16() ||
      isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return true;
  if (auto intType = dyn_cast<IntegerType>(type))
    return intType.isSignless() &&
           llvm::is_contained({4u, 8u, 32u, 64u}, intType.getWidth());
  return false;
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

// Both memory types print as `<` dims `x` element-type ... `>`.
static void printShapeAndElement(AsmPrinter &printer, ArrayRef<int64_t> shape,
                                 Type elementType) {
  for (int64_t dim : shape) {
    if (ShapedType::isDynamic(dim))
      printer << '?';
    else
      printer << dim;
    printer << 'x';
  }
  printer << elementType;
}

static LogicalResult verifyElementType(function_ref<InFlightDiagnostic()> emit,
                                       StringRef what, Type elementType) {
  if (isSupportedViewElementType(elementType))
    return success();
  return emit() << what << " element type " << elementType
                << " is not supported; use f32, f16, bf16, f8E4M3FN, "
                   "f8E5M2, i4, i8, i32 or i64";
}

Type ViewType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return parser.getChecked<ViewType>(parser.getContext(), shape, elementType);
}

void ViewType::print(AsmPrinter &printer) const {
  printer << '<';
  printShapeAndElement(printer, getShape(), getElementType());
  printer << '>';
}

LogicalResult ViewType::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape, Type elementType) {
  if (shape.empty())
    return emitError() << "a view needs at least one dimension";
  if (shape.size() > kMaxViewRank)
    return emitError() << "a view has at most " << kMaxViewRank
                       << " dimensions (what the runtime passes), got "
                       << shape.size();
  for (int64_t dim : shape)
    if (!ShapedType::isDynamic(dim) && dim <= 0)
      return emitError() << "view dimension sizes must be positive or '?', "
                            "got "
                         << dim;
  return verifyElementType(emitError, "view", elementType);
}

Type SharedType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t stages = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc stagesLoc = parser.getCurrentLocation();
    if (parser.parseKeyword("stages") || parser.parseEqual() ||
        parser.parseInteger(stages))
      return {};
    if (stages < 1) {
      parser.emitError(stagesLoc)
          << "a ring needs a positive number of stages, got " << stages;
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<SharedType>(parser.getContext(), shape, elementType,
                                       stages);
}

void SharedType::print(AsmPrinter &printer) const {
  printer << '<';
  printShapeAndElement(printer, getShape(), getElementType());
  if (isRing())
    printer << ", stages = " << getStages();
  printer << '>';
}

LogicalResult SharedType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 int64_t stages) {
  if (shape.empty())
    return emitError() << "a shared buffer needs at least one dimension";
  for (int64_t dim : shape)
    if (dim <= 0)
      return emitError() << "shared buffer dimension sizes must be positive "
                            "and static, got "
                         << dim;
  if (stages < 0)
    return emitError() << "a ring needs a positive number of stages, got "
                       << stages;
  if (failed(verifyElementType(emitError, "shared buffer", elementType)))
    return failure();
  // Its size in bits, checked: no chip has 2 GiB of shared memory, and the
  // sizes computed from it must not wrap around.
  std::optional<int64_t> bits =
      llvm::checkedMul(std::max<int64_t>(stages, 1),
                       int64_t(elementType.getIntOrFloatBitWidth()));
  for (int64_t dim : shape)
    if (bits)
      bits = llvm::checkedMul(*bits, dim);
  if (!bits || *bits / 8 > kMaxSharedBufferBytes)
    return emitError() << "a shared buffer holds at most "
                       << kMaxSharedBufferBytes << " bytes; this one "
                       << (bits ? "holds " + std::to_string(*bits / 8)
                                : std::string("has more than 2^63 bits"));
  return success();
}

int64_t SharedType::getSizeInBytes() const {
  int64_t elements = std::max<int64_t>(getStages(), 1);
  for (int64_t dim : getShape())
    elements *= dim;
  // Sub-byte codes are packed; round the buffer up to whole bytes.
  return (elements * getElementType().getIntOrFloatBitWidth() + 7) / 8;
}

SmallVector<int64_t> SharedType::getStoredShape() const {
  ArrayRef<int64_t> shape = getShape();
  if (isNibblePairs(getElementType(), shape))
    shape = shape.drop_back();
  return SmallVector<int64_t>(shape);
}

unsigned SharedType::getStoredElementBits() const {
  return isNibblePairs(getElementType(), getShape())
             ? 8
             : getElementType().getIntOrFloatBitWidth();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

LogicalResult PipelineAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   int64_t stages, bool warpSpecialize) {
  if (stages < 1 || stages > 8)
    return emitError() << "pipeline stages must be between 1 and 8, got "
                       << stages;
  return success();
}

LogicalResult
PersistentAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                       int64_t group, bool pingpong) {
  if (group < 1 || group > kMaxPersistentGroup)
    return emitError() << "persistent group must be between 1 and "
                       << kMaxPersistentGroup << ", got " << group;
  return success();
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t vec, int64_t perPhase,
                                  int64_t maxPhase) {
  for (int64_t value : {vec, perPhase, maxPhase})
    if (value < 1 || !llvm::isPowerOf2_64(value))
      return emitError() << "swizzle parameters must be positive powers of "
                            "two, got vec = "
                         << vec << ", per_phase = " << perPhase
                         << ", max_phase = " << maxPhase;
  return success();
}

//===----------------------------------------------------------------------===//
// Linear layouts
//===----------------------------------------------------------------------===//

static const char *const kLayoutInputs[] = {"register", "lane", "warp"};

// The bases are stored flat, `rank` entries each; a rank-0 layout (of a
// scalar tile, every basis empty) stores one 0 per basis so that their
// number is kept: a basis spans max(rank, 1) stored entries.

Attribute LinearLayoutAttr::parse(AsmParser &parser, Type) {
  std::array<SmallVector<int64_t>, 3> bases;
  int64_t rank = -1;
  if (parser.parseLess())
    return {};
  for (unsigned in = 0; in < 3; ++in) {
    if (in && parser.parseComma())
      return {};
    if (parser.parseKeyword(kLayoutInputs[in]) || parser.parseEqual())
      return {};
    auto parseBasis = [&]() -> ParseResult {
      int64_t size = 0;
      if (parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                ++size;
                return parser.parseInteger(bases[in].emplace_back());
              }))
        return failure();
      if (rank >= 0 && size != rank)
        return parser.emitError(parser.getCurrentLocation())
               << "every basis of a layout has the same rank";
      rank = size;
      if (!size)
        bases[in].push_back(0);
      return success();
    };
    if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square,
                                       parseBasis))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<LinearLayoutAttr>(
      parser.getContext(), unsigned(std::max<int64_t>(rank, 0)), bases[0],
      bases[1], bases[2]);
}

void LinearLayoutAttr::print(AsmPrinter &printer) const {
  std::array<ArrayRef<int64_t>, 3> bases = {getRegisterBases(), getLaneBases(),
                                            getWarpBases()};
  unsigned rank = std::max(getRank(), 1u);
  printer << "<";
  for (unsigned in = 0; in < 3; ++in) {
    printer << (in ? ", " : "") << kLayoutInputs[in] << " = [";
    for (size_t b = 0; b < bases[in].size(); b += rank) {
      printer << (b ? ", " : "") << "[";
      if (getRank())
        llvm::interleaveComma(bases[in].slice(b, rank), printer);
      printer << "]";
    }
    printer << "]";
  }
  printer << ">";
}

LogicalResult
LinearLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         unsigned rank, ArrayRef<int64_t> registerBases,
                         ArrayRef<int64_t> laneBases,
                         ArrayRef<int64_t> warpBases) {
  for (ArrayRef<int64_t> bases : {registerBases, laneBases, warpBases}) {
    if (bases.size() % std::max(rank, 1u))
      return emitError() << "layout bases must have " << rank << " entries";
    if (llvm::any_of(bases, [](int64_t v) { return v < 0; }))
      return emitError() << "layout bases must be non-negative";
    if (!rank && llvm::any_of(bases, [](int64_t v) { return v != 0; }))
      return emitError() << "a rank-0 layout stores 0 per basis";
  }
  return success();
}

LogicalResult LinearLayoutAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  if (!isPowerOfTwoShape(shape))
    return emitError() << "a #tile.linear layout needs a tile whose sizes are "
                          "powers of two";
  if (getRank() != shape.size() &&
      !(getRegisterBases().empty() && getLaneBases().empty() &&
        getWarpBases().empty()))
    return emitError() << "layout of rank " << getRank()
                       << " on a tile of rank " << shape.size();
  std::array<ArrayRef<int64_t>, 3> bases = {getRegisterBases(), getLaneBases(),
                                            getWarpBases()};
  for (ArrayRef<int64_t> list : bases)
    for (size_t i = 0; i < list.size() && !shape.empty(); ++i)
      if (list[i] >= shape[i % shape.size()])
        return emitError() << "layout basis entry " << list[i]
                           << " lies outside the tile";
  std::string why;
  if (!toLinearLayout(shape).coversExactly(&why))
    return emitError() << "layout does not cover its tile exactly: " << why;
  return success();
}

tessera::LinearLayout
LinearLayoutAttr::toLinearLayout(ArrayRef<int64_t> shape) const {
  std::array<SmallVector<Coord>, 3> coords;
  std::array<ArrayRef<int64_t>, 3> bases = {getRegisterBases(), getLaneBases(),
                                            getWarpBases()};
  size_t stride = std::max<size_t>(shape.size(), 1);
  for (unsigned in = 0; in < 3; ++in)
    for (size_t b = 0; b < bases[in].size(); b += stride)
      coords[in].push_back(
          Coord(bases[in].slice(b, std::min(stride, shape.size()))));
  return LinearLayout(shape, coords[0], coords[1], coords[2]);
}

LinearLayoutAttr LinearLayoutAttr::get(MLIRContext *context,
                                       const LinearLayout &layout) {
  std::array<SmallVector<int64_t>, 3> flat;
  for (unsigned in = 0; in < 3; ++in)
    for (const Coord &basis : layout.getBases(LinearLayout::InDim(in))) {
      flat[in].append(basis.begin(), basis.end());
      if (basis.empty())
        flat[in].push_back(0);
    }
  return get(context, layout.getRank(), flat[0], flat[1], flat[2]);
}
