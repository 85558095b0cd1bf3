//===- TagDialect.cpp - Tag dialect and operations --------------*- C++ -*-===//

#include "tessera/Dialect/Tag/TagDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace tessera;
using namespace tessera::tag;

#include "tessera/Dialect/Tag/TagDialect.cpp.inc"

void TagDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tessera/Dialect/Tag/TagOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// `(m, k)`: component names as bare identifiers; `()` for none.
static ParseResult parseComponents(OpAsmParser &parser, ArrayAttr &names) {
  SmallVector<Attribute> parsed;
  if (parser.parseCommaSeparatedList(
          OpAsmParser::Delimiter::Paren, [&]() -> ParseResult {
            std::string name;
            if (parser.parseKeywordOrString(&name))
              return failure();
            parsed.push_back(parser.getBuilder().getStringAttr(name));
            return success();
          }))
    return failure();
  names = parser.getBuilder().getArrayAttr(parsed);
  return success();
}

static void printComponents(OpAsmPrinter &printer, Operation *,
                            ArrayAttr names) {
  printer << '(';
  llvm::interleaveComma(names, printer, [&](Attribute name) {
    printer.printKeywordOrString(cast<StringAttr>(name).getValue());
  });
  printer << ')';
}

/// A bare affine map, `(d0, d1)[s0] -> (d0 + s0, d1)`.
static ParseResult parseTagMap(OpAsmParser &parser, AffineMapAttr &map) {
  AffineMap parsed;
  if (parser.parseAffineMap(parsed))
    return failure();
  map = AffineMapAttr::get(parsed);
  return success();
}

static void printTagMap(OpAsmPrinter &printer, Operation *, AffineMapAttr map) {
  map.getValue().print(printer.getStream());
}

//===----------------------------------------------------------------------===//
// Verification helpers
//===----------------------------------------------------------------------===//

/// Number of element indices of a tagged value: a ring's slot is one more.
static int64_t getNumElementIndices(Type type) {
  if (auto view = dyn_cast<tile::ViewType>(type))
    return view.getRank();
  if (auto shared = dyn_cast<tile::SharedType>(type))
    return shared.getRank() + (shared.isRing() ? 1 : 0);
  return cast<RankedTensorType>(type).getRank();
}

static LogicalResult verifyComponentNames(Operation *op, ArrayAttr names) {
  llvm::StringSet<> seen;
  for (Attribute attr : names) {
    StringRef name = cast<StringAttr>(attr).getValue();
    if (name.empty())
      return op->emitOpError("tag component names must not be empty");
    if (!seen.insert(name).second)
      return op->emitOpError()
             << "tag component '" << name << "' is named twice";
  }
  return success();
}

/// `map` must index `value` and take one symbol per capture.
static LogicalResult verifyIndexMap(Operation *op, StringRef what,
                                    AffineMap map, Value value,
                                    size_t numCaptures) {
  int64_t indices = getNumElementIndices(value.getType());
  if (static_cast<int64_t>(map.getNumResults()) != indices)
    return op->emitOpError()
           << what << " map has " << map.getNumResults()
           << " results but the value has " << indices
           << " element indices (a ring adds its slot as the first)";
  if (map.getNumSymbols() != numCaptures)
    return op->emitOpError()
           << what << " map has " << map.getNumSymbols() << " symbols but "
           << numCaptures
           << " values are captured; give one capture per symbol";
  return success();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult BindOp::verify() {
  if (getName().empty())
    return emitOpError("tag name must not be empty");
  AffineMap map = getMap();
  int64_t indices = getNumElementIndices(getValue().getType());
  if (static_cast<int64_t>(map.getNumDims()) != indices)
    return emitOpError() << "map has " << map.getNumDims()
                         << " dimensions but the value has " << indices
                         << " element indices (a ring adds its slot as the "
                            "first)";
  if (map.getNumSymbols() != getCaptures().size())
    return emitOpError() << "map has " << map.getNumSymbols() << " symbols but "
                         << getCaptures().size()
                         << " values are captured; give one capture per "
                            "symbol";
  if (getComponents().size() != map.getNumResults())
    return emitOpError() << "names " << getComponents().size()
                         << " components but the map has "
                         << map.getNumResults()
                         << " results; name every component once";
  return verifyComponentNames(*this, getComponents());
}

LogicalResult AssertEqOp::verify() {
  AffineMap lhsMap = getLhsMap(), rhsMap = getRhsMap();
  if (lhsMap.getNumDims() != rhsMap.getNumDims())
    return emitOpError() << "both maps must range over the same index space, "
                            "but they have "
                         << lhsMap.getNumDims() << " and "
                         << rhsMap.getNumDims() << " dimensions";
  if (failed(verifyIndexMap(*this, "lhs", lhsMap, getLhs(),
                            getCaptures().size())) ||
      failed(
          verifyIndexMap(*this, "rhs", rhsMap, getRhs(), getCaptures().size())))
    return failure();
  if (getLhsComponents().size() != getRhsComponents().size())
    return emitOpError() << "compares " << getLhsComponents().size()
                         << " components with " << getRhsComponents().size()
                         << "; both sides need the same tag arity";
  for (unsigned dim = 0; dim < lhsMap.getNumDims(); ++dim)
    if (!lhsMap.isFunctionOfDim(dim) && !rhsMap.isFunctionOfDim(dim))
      return emitOpError() << "index variable d" << dim
                           << " is used by neither map, so its range is "
                              "unknown";
  if (failed(verifyComponentNames(*this, getLhsComponents())))
    return failure();
  return verifyComponentNames(*this, getRhsComponents());
}

LogicalResult AssertContractOp::verify() {
  RankedTensorType a = getA().getType(), b = getB().getType();
  if (a.getRank() != 2 || b.getRank() != 2)
    return emitOpError("operands must be 2-D tiles, as for tile.mma");
  int64_t ka = a.getDimSize(getTransposeA() ? 0 : 1);
  int64_t kb = b.getDimSize(getTransposeB() ? 1 : 0);
  if (ka != kb)
    return emitOpError() << "contraction sizes differ: a has K = " << ka
                         << " but b has K = " << kb
                         << " (check the transpose flags)";
  if (getContractionComponent().empty())
    return emitOpError("the contraction component name must not be empty");
  return success();
}

LogicalResult AssertCompleteOp::verify() {
  if (getOver().empty())
    return emitOpError("the component name must not be empty");
  for (Value bound : {getLower(), getUpper()})
    if (auto tile = dyn_cast<RankedTensorType>(bound.getType());
        tile && tile.getShape() != getValue().getType().getShape())
      return emitOpError() << "a bound tile must have the value's shape ("
                           << getValue().getType() << "), not " << tile;
  return success();
}

LogicalResult CoordOp::verify() {
  RankedTensorType value = getValue().getType(), result = getResult().getType();
  if (value.getShape() != result.getShape())
    return emitOpError("result shape must equal the value's shape");
  if (!result.getElementType().isSignlessInteger() &&
      !result.getElementType().isIndex())
    return emitOpError("result must be a tile of integers or indices");
  if (getComponent().empty())
    return emitOpError("component name must not be empty");
  return success();
}

#define GET_OP_CLASSES
#include "tessera/Dialect/Tag/TagOps.cpp.inc"

void tessera::tag::eraseTagOps(mlir::Operation *root) {
  llvm::SmallVector<mlir::Operation *> tagOps;
  root->walk([&](mlir::Operation *op) {
    if (mlir::isa_and_present<TagDialect>(op->getDialect()))
      tagOps.push_back(op);
  });
  // Then what fed only them, and what fed only that: code that was dead
  // before stays.
  llvm::SmallVector<mlir::Operation *> fed;
  auto feeders = [&](mlir::Operation *op) {
    for (mlir::Value operand : op->getOperands())
      if (mlir::Operation *def = operand.getDefiningOp();
          def && !mlir::isa_and_present<TagDialect>(def->getDialect()))
        fed.push_back(def);
  };
  for (mlir::Operation *op : llvm::reverse(tagOps)) {
    feeders(op);
    op->dropAllUses();
    op->erase();
  }
  llvm::SmallPtrSet<mlir::Operation *, 16> erased;
  while (!fed.empty()) {
    mlir::Operation *op = fed.pop_back_val();
    if (erased.contains(op) || !mlir::isOpTriviallyDead(op))
      continue;
    feeders(op);
    erased.insert(op);
    op->erase();
  }
}
