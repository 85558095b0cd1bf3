//===- Passes.h - Tile-level passes ----------------------------*- C++ -*-===//

#ifndef TESSERA_TRANSFORMS_PASSES_H
#define TESSERA_TRANSFORMS_PASSES_H

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Transforms/PassEnums.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SMT/IR/SMTDialect.h"
#include "mlir/Pass/Pass.h"

namespace tessera {
#define GEN_PASS_DECL
#include "tessera/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tessera/Transforms/Passes.h.inc"
} // namespace tessera

#endif // TESSERA_TRANSFORMS_PASSES_H
