//===- quantize.hpp - Host-side weight quantization and packing -*- C++ -*-===//
//
// What a kernel rewritten by `tile-quantize` expects of its weight operand:
// codes in the packed order it reads, one f16 scale (and zero point) per
// group of k in each column, or for fp8 one f32 scale per 128x128 block.
// Plain C++, no GPU or MLIR needed.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_QUANTIZE_HPP
#define TESSERA_RUNTIME_QUANTIZE_HPP

#include <cstdint>
#include <vector>

namespace tessera {

/// bf16, f16 and fp8 (e4m3fn) storage with round-to-nearest-even
/// conversion; toE4M3 saturates to +-448 as fp8 quantization does.
uint16_t toBF16(float value);
float fromBF16(uint16_t bits);
uint16_t toF16(float value);
float fromF16(uint16_t bits);
uint8_t toE4M3(float value);
float fromE4M3(uint8_t bits);

/// A weight format of `tile-quantize` (option `weights`).
struct WeightQuantization {
  enum class Format { Int4, Int8, Fp8 } format = Format::Int4;
  /// Rows of k per scale; 0 for one scale per column (per channel). fp8:
  /// the side of the square blocks of one scale.
  int64_t group = 128;
  /// Asymmetric: `(code - zero) * scale` with an integer-valued zero.
  bool zeroPoints = false;
  /// The matrix is [n, k] (read with transpose_b, as MoE expert weights
  /// are): groups run along each row, int4 packs along k, and the scales
  /// (zeros) are [n, groups].
  bool transposed = false;
};

/// A [k, n] (or transposed [n, k]) weight matrix in the operand order of a
/// quantized kernel; rows and cols are as stored.
struct QuantizedWeights {
  int64_t rows = 0, cols = 0;
  WeightQuantization scheme;
  /// int4: two codes per byte along a row, low nibble first, rows padded to
  /// whole bytes (packInt4); int8 and fp8: one code per byte, row-major.
  std::vector<uint8_t> codes;
  /// f16 bits, [groups, n] (transposed: [n, groups]) with groups =
  /// ceil(k / group) (1 per channel); zeros empty unless scheme.zeroPoints.
  /// Empty for fp8.
  std::vector<uint16_t> scales, zeros;
  /// fp8: f32 [groups, blockColumns()], one per group x group block of the
  /// matrix as stored.
  std::vector<float> blockScales;
  /// Groups of k (fp8: blocks of rows).
  int64_t groups() const;
  int64_t blockColumns() const;
  /// The signed code of element (row, col) (int4 and int8).
  int code(int64_t row, int64_t col) const;
  /// (code - zero) * scale of element (row, col), in float.
  float dequantized(int64_t row, int64_t col) const;
};

/// Quantizes row-major `weights` [rows, cols] by round to nearest: per
/// group the scale maps the largest magnitude (symmetric) or the range
/// (with zero points) onto the code range, int4 [-8, 7], int8 [-127, 127],
/// fp8 e4m3 [-448, 448] (per block, symmetric).
QuantizedWeights quantizeWeights(const float *weights, int64_t rows,
                                 int64_t cols,
                                 const WeightQuantization &scheme);

/// An activation format of `tile-quantize` (option `activations`).
enum class ActivationFormat { Int8, Fp8 };

/// [rows, cols] activations quantized per token (row), or per token within
/// blocks of `block` columns: one f32 scale per row and block.
struct QuantizedActivations {
  int64_t rows = 0, cols = 0, block = 0;
  ActivationFormat format = ActivationFormat::Int8;
  /// Row-major, one byte per code: int8, or fp8 e4m3 bits.
  std::vector<uint8_t> codes;
  /// [rows, blocks()] (one per row when block is 0).
  std::vector<float> scales;
  int64_t blocks() const;
  /// code * scale of element (row, col), in float.
  float dequantized(int64_t row, int64_t col) const;
};

/// Quantizes row-major `a` [rows, cols] symmetrically: per row (and block
/// of `block` columns; 0: the whole row) the scale is max |a| / 127 (int8)
/// or / 448 (fp8 e4m3) and the codes a / scale rounded to the nearest code,
/// exactly as a kernel's `tile.quant` does. With block 0 this makes the
/// operands of a kernel quantized with `activation-scales=token`: the codes
/// and the [rows] scales.
QuantizedActivations quantizeActivations(const float *a, int64_t rows,
                                         int64_t cols, ActivationFormat format,
                                         int64_t block = 0);

/// Packs int4 codes (int8 values in [-8, 7], row-major [rows, cols]) into
/// two codes per byte along a row, low nibble first, rows padded to whole
/// bytes: the layout the int4 kernels read.
std::vector<uint8_t> packInt4(const int8_t *codes, int64_t rows, int64_t cols);

} // namespace tessera

#endif // TESSERA_RUNTIME_QUANTIZE_HPP
