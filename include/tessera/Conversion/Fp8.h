//===- Fp8.h - f8E4M3FN codes as integer arithmetic ------------*- C++ -*-===//
//
// LLVM has no 8-bit float type: the host and GPU lowerings keep f8E4M3FN
// codes as i8 and convert them with integer and f32 arithmetic, element by
// element or on vectors of them alike.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_CONVERSION_FP8_H
#define TESSERA_CONVERSION_FP8_H

#include "mlir/IR/Builders.h"

namespace tessera {

/// f8E4M3FN bits (i8, or a vector of i8) to f32 (or a vector of f32):
/// exact, subnormals included, 0x7F/0xFF as NaN.
mlir::Value decodeE4M3(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value bits);

} // namespace tessera

#endif // TESSERA_CONVERSION_FP8_H
