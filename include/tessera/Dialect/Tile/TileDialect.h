//===- TileDialect.h - Tile dialect ----------------------------*- C++ -*-===//
//
// The tile DSL: dialect, types, attributes and operations.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TILE_TILEDIALECT_H
#define TESSERA_DIALECT_TILE_TILEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TensorEncoding.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tessera/Layout/LinearLayout.h"

#include "tessera/Dialect/Tile/TileEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tessera/Dialect/Tile/TileAttrs.h.inc"

// After the attributes: its discardable-attribute helpers name their types.
#include "tessera/Dialect/Tile/TileDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "tessera/Dialect/Tile/TileTypes.h.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Tile/TileOps.h.inc"

namespace tessera::tile {
/// True for the element types a view may hold.
bool isSupportedViewElementType(mlir::Type type);
/// Whether a view, buffer or tile of `element` and `shape` holds int4 nibble
/// pairs: a trailing dimension of the 2 codes that share one byte.
bool isNibblePairs(mlir::Type element, llvm::ArrayRef<int64_t> shape);
} // namespace tessera::tile

#endif // TESSERA_DIALECT_TILE_TILEDIALECT_H
