//===- TagDialect.h - Tag dialect ------------------------------*- C++ -*-===//
//
// Data-flow tags and the invariants stated over them.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_DIALECT_TAG_TAGDIALECT_H
#define TESSERA_DIALECT_TAG_TAGDIALECT_H

#include "tessera/Dialect/Tile/TileDialect.h"

#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"

#include "tessera/Dialect/Tag/TagDialect.h.inc"

#define GET_OP_CLASSES
#include "tessera/Dialect/Tag/TagOps.h.inc"

#endif // TESSERA_DIALECT_TAG_TAGDIALECT_H
