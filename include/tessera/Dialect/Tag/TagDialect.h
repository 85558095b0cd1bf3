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

namespace tessera::tag {
/// Erases the tag ops under `root` and the ghost arithmetic that only fed
/// them: what the lowerings do once tag-check has proved the invariants.
void eraseTagOps(mlir::Operation *root);
} // namespace tessera::tag

#endif // TESSERA_DIALECT_TAG_TAGDIALECT_H
