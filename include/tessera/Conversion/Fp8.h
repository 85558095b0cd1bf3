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

/// f32 (or a vector of f32) to f8E4M3FN bits (i8, or a vector of i8):
/// rounded to nearest even, saturated to +-448 (fp8 quantization clamps),
/// NaN stays NaN. Integer and f32 arithmetic only (no rounding intrinsic).
mlir::Value encodeE4M3(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value);

/// The f32 value (or vector) of the f8E4M3FN code encodeE4M3 gives `value`
/// (decodeE4M3(encodeE4M3(x)) bit for bit), without the code: what an MMA
/// of the codes reads.
mlir::Value roundToE4M3(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Value value);

} // namespace tessera

#endif // TESSERA_CONVERSION_FP8_H
