//===- PassEnums.h - Enumerated pass options -------------------*- C++ -*-===//
//
// The enums behind the tile-level passes' closed-choice options, generated
// from PassEnums.td (with stringify/symbolize helpers).
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_TRANSFORMS_PASSENUMS_H
#define TESSERA_TRANSFORMS_PASSENUMS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

#include "tessera/Transforms/PassEnums.h.inc"

#endif // TESSERA_TRANSFORMS_PASSENUMS_H
