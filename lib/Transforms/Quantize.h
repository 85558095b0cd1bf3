//===- Quantize.h - tile-quantize's pieces ----------------------*- C++ -*-===//
//
// Internal to lib/Transforms: what tile-quantize's files share. The scheme
// (checked options and the kernel's new name) and the operand matching live
// in QuantizeScheme.cpp, how scales are applied (per group after the MMA,
// low-precision MMAs, the scaled_mm epilogue) in QuantizeScaling.cpp, the
// pass and the rewrite of the arguments, buffers and tags in
// TileQuantize.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_LIB_TRANSFORMS_QUANTIZE_H
#define TESSERA_LIB_TRANSFORMS_QUANTIZE_H

#include "tessera/Dialect/Tag/TagDialect.h"
#include "tessera/Dialect/Tile/TileDialect.h"
#include "tessera/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace tessera::quant {
using namespace mlir;

/// An MMA operand the pass can quantize: a kernel argument copied into a
/// shared buffer once per iteration and loaded as the MMAs' a or b operand.
struct Source {
  mlir::BlockArgument argument;
  tile::CopyOp copy;
  tile::AllocSharedOp buffer;
  llvm::SmallVector<tile::LoadOp> loads;
  tag::BindOp binding; // null if the kernel binds no tag to it
};

using Placement = QuantPlacement;
using Format = QuantFormat;

/// fp8 weights have one scale per block of kFp8Block x kFp8Block elements.
constexpr int64_t kFp8Block = 128;

/// What the options ask for, once checked.
struct Scheme {
  Format weights;
  int64_t group; // rows of k per scale; 0: per channel
  bool zeroPoints;
  Placement placement;
  Format activations = Format::Real;
  /// Activations arrive quantized with one scale per token (row), instead
  /// of being quantized per token within each K tile by the kernel.
  bool tokenScales = false;
  /// Columns per scale: whole blocks for fp8, one column otherwise.
  int64_t groupColumns() const {
    return weights == Format::Fp8 ? kFp8Block : 1;
  }
  /// The kernel's new name says its new arguments and what they hold.
  std::string suffix(int64_t kStep) const;
};

/// The scheme the options ask for, or an error at `loc` saying which
/// options do not combine.
FailureOr<Scheme> checkScheme(Location loc, const TileQuantizeOptions &options);

/// The source of the b operand (the weight) of `mma`, or of its a operand
/// (the activation), or a diagnostic saying why there is none.
FailureOr<Source> findSource(tile::MmaOp mma, tile::KernelOp kernel,
                             bool weight);

/// A tile of scales as f32.
Value asF32(OpBuilder &builder, Location loc, Value tile);
/// A tile of scales as f32, its unit dimensions repeated to `shape`.
Value spreadTo(OpBuilder &builder, Location loc, Value tile,
               ArrayRef<int64_t> shape);

/// Asserts that each column of an MMA's `product` meets the scales of its
/// own column (and batch): what per-group scaling relies on.
using ColumnCheck = llvm::function_ref<void(OpBuilder &, Location,
                                            Value product, Value scales)>;
/// Scales over an [m, n] product, from a tile of weight scales.
using Spread = llvm::function_ref<Value(OpBuilder &, Location, Value, int64_t)>;

/// Quantizes one kernel; remembers which loaded tiles hold pre-quantized
/// activations.
class Quantizer {
public:
  LogicalResult quantize(tile::KernelOp kernel, const Scheme &scheme);

private:
  /// Where the per-token scales of a pre-quantized activation tile are.
  struct TokenScales {
    Value view;          // [M] f32
    Value rowOffset;     // of the tile in the activation
    std::string rowName; // the activation's row component
  };
  /// Loaded activation tiles that hold codes -> their scales.
  DenseMap<Value, TokenScales> tokenScales;
  /// Activation tiles quantized in the kernel, and their quantization:
  /// MMAs of one activation tile (the MoE block's gate and up) share it.
  DenseMap<Value, tile::QuantOp> activationCodes;

  // TileQuantize.cpp: arguments, buffers, loads and tags.
  LogicalResult rewrite(tile::KernelOp kernel, Source &weight,
                        const Scheme &scheme);
  LogicalResult rewriteActivation(tile::KernelOp kernel, Source &activation,
                                  const Scheme &scheme);

  // QuantizeScaling.cpp: where the scales apply.
  static Value loadTokenScales(OpBuilder &b, Location loc,
                               const TokenScales &token, Value row,
                               int64_t rows);
  static void assertTokenRows(OpBuilder &b, Location loc, Value tile,
                              Value scales, StringRef rowName,
                              StringRef message);
  LogicalResult scaleAfterLoop(tile::MmaOp mma, Value product, Value scaleTile,
                               const TokenScales &token, Spread spread,
                               ColumnCheck checkColumns);
  void scaleAfterMma(OpBuilder &builder, Location at, Value codes,
                     RankedTensorType realType, Value scaleTile, Value zeroTile,
                     Format activations, bool transposed,
                     ColumnCheck checkColumns, bool invariantScales);
  void lowPrecisionMmas(Value codes, Value scaleTile, Format activations,
                        Spread spread, ColumnCheck checkColumns,
                        bool invariantScales);
};
} // namespace tessera::quant

#endif // TESSERA_LIB_TRANSFORMS_QUANTIZE_H
