//===- Quantize.cpp - Host-side weight quantization and packing -*- C++ -*-===//

#include "tessera/runtime/quantize.hpp"

#include <algorithm>
#include <cmath>

namespace tessera {

std::vector<uint8_t> packInt4(const int8_t *codes, int64_t rows, int64_t cols) {
  int64_t rowBytes = (cols + 1) / 2;
  std::vector<uint8_t> packed(rows * rowBytes, 0);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c) {
      uint8_t nibble = static_cast<uint8_t>(codes[r * cols + c]) & 0xF;
      packed[r * rowBytes + c / 2] |= (c % 2) ? nibble << 4 : nibble;
    }
  return packed;
}

int64_t QuantizedWeights::groups() const {
  bool fp8 = scheme.format == WeightQuantization::Format::Fp8;
  int64_t depth = scheme.transposed && !fp8 ? cols : rows;
  return scheme.group ? (depth + scheme.group - 1) / scheme.group : 1;
}

/// The scale (and zero) of element (row, col) of an int4/int8 matrix.
static int64_t scaleIndex(const QuantizedWeights &q, int64_t row, int64_t col) {
  int64_t k = q.scheme.transposed ? col : row;
  int64_t n = q.scheme.transposed ? row : col;
  int64_t g = q.scheme.group ? k / q.scheme.group : 0;
  return q.scheme.transposed ? n * q.groups() + g : g * q.cols + n;
}

int64_t QuantizedWeights::blockColumns() const {
  return scheme.format == WeightQuantization::Format::Fp8
             ? (cols + scheme.group - 1) / scheme.group
             : cols;
}

int QuantizedWeights::code(int64_t row, int64_t col) const {
  if (scheme.format == WeightQuantization::Format::Int8)
    return static_cast<int8_t>(codes[row * cols + col]);
  uint8_t byte = codes[row * ((cols + 1) / 2) + col / 2];
  int nibble = (col % 2) ? byte >> 4 : byte & 0xF;
  return nibble >= 8 ? nibble - 16 : nibble;
}

float QuantizedWeights::dequantized(int64_t row, int64_t col) const {
  int64_t g = scheme.group ? row / scheme.group : 0;
  if (scheme.format == WeightQuantization::Format::Fp8)
    return fromE4M3(codes[row * cols + col]) *
           blockScales[g * blockColumns() + col / scheme.group];
  float value = float(code(row, col));
  int64_t at = scaleIndex(*this, row, col);
  if (scheme.zeroPoints)
    value -= fromF16(zeros[at]);
  return value * fromF16(scales[at]);
}

/// One f32 scale per block (largest magnitude / 448), codes rounded to the
/// nearest e4m3.
static void quantizeBlocks(const float *weights, QuantizedWeights &out) {
  int64_t rows = out.rows, cols = out.cols, side = out.scheme.group;
  int64_t blockColumns = out.blockColumns();
  out.blockScales.assign(out.groups() * blockColumns, 0.0f);
  out.codes.assign(rows * cols, 0);
  for (int64_t g = 0; g < out.groups(); ++g)
    for (int64_t b = 0; b < blockColumns; ++b) {
      int64_t lastRow = std::min(rows, (g + 1) * side);
      int64_t lastCol = std::min(cols, (b + 1) * side);
      float largest = 0;
      for (int64_t r = g * side; r < lastRow; ++r)
        for (int64_t c = b * side; c < lastCol; ++c)
          largest = std::max(largest, std::fabs(weights[r * cols + c]));
      float scale = largest / 448.0f;
      out.blockScales[g * blockColumns + b] = scale;
      for (int64_t r = g * side; r < lastRow; ++r)
        for (int64_t c = b * side; c < lastCol; ++c)
          out.codes[r * cols + c] =
              scale > 0 ? toE4M3(weights[r * cols + c] / scale) : 0;
    }
}

QuantizedWeights quantizeWeights(const float *weights, int64_t rows,
                                 int64_t cols,
                                 const WeightQuantization &scheme) {
  QuantizedWeights out;
  out.rows = rows;
  out.cols = cols;
  out.scheme = scheme;
  if (scheme.format == WeightQuantization::Format::Fp8) {
    quantizeBlocks(weights, out);
    return out;
  }
  bool int4 = scheme.format == WeightQuantization::Format::Int4;
  int lo = int4 ? -8 : -127, hi = int4 ? 7 : 127;
  // Groups run along k, the rows of [k, n] or the columns of [n, k].
  int64_t depth = scheme.transposed ? cols : rows;
  int64_t channels = scheme.transposed ? rows : cols;
  auto at = [&](int64_t k, int64_t n) {
    return scheme.transposed ? n * cols + k : k * cols + n;
  };
  int64_t groups = out.groups();
  int64_t groupRows = scheme.group ? scheme.group : depth;
  out.scales.assign(groups * channels, 0);
  if (scheme.zeroPoints)
    out.zeros.assign(groups * channels, 0);
  std::vector<int8_t> codes(rows * cols, 0);
  for (int64_t g = 0; g < groups; ++g)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t first = g * groupRows, last = std::min(depth, first + groupRows);
      float minimum = 0, maximum = 0;
      for (int64_t r = first; r < last; ++r) {
        minimum = std::min(minimum, weights[at(r, c)]);
        maximum = std::max(maximum, weights[at(r, c)]);
      }
      // The kernel sees the f16-rounded scale and zero: quantize with them.
      float scale, zero = 0;
      if (scheme.zeroPoints) {
        scale = fromF16(toF16((maximum - minimum) / float(hi - lo)));
        if (scale > 0)
          zero = fromF16(toF16(std::nearbyint(lo - minimum / scale)));
      } else {
        scale =
            fromF16(toF16(std::max(std::fabs(minimum), maximum) / float(hi)));
      }
      int64_t scaleAt = scaleIndex(out, scheme.transposed ? c : first,
                                   scheme.transposed ? first : c);
      out.scales[scaleAt] = toF16(scale);
      if (scheme.zeroPoints)
        out.zeros[scaleAt] = toF16(zero);
      for (int64_t r = first; r < last; ++r) {
        float q =
            scale > 0 ? std::nearbyint(weights[at(r, c)] / scale) + zero : zero;
        codes[at(r, c)] = static_cast<int8_t>(std::clamp<float>(q, lo, hi));
      }
    }
  if (int4)
    out.codes = packInt4(codes.data(), rows, cols);
  else
    out.codes.assign(reinterpret_cast<uint8_t *>(codes.data()),
                     reinterpret_cast<uint8_t *>(codes.data()) + codes.size());
  return out;
}

int64_t QuantizedActivations::blocks() const {
  return block ? (cols + block - 1) / block : 1;
}

float QuantizedActivations::dequantized(int64_t row, int64_t col) const {
  uint8_t bits = codes[row * cols + col];
  float code = format == ActivationFormat::Fp8
                   ? fromE4M3(bits)
                   : float(static_cast<int8_t>(bits));
  return code * scales[row * blocks() + (block ? col / block : 0)];
}

QuantizedActivations quantizeActivations(const float *a, int64_t rows,
                                         int64_t cols, ActivationFormat format,
                                         int64_t block) {
  QuantizedActivations out;
  out.rows = rows;
  out.cols = cols;
  out.block = block;
  out.format = format;
  bool fp8 = format == ActivationFormat::Fp8;
  int64_t width = block ? block : cols;
  out.codes.assign(rows * cols, 0);
  out.scales.assign(rows * out.blocks(), 0.0f);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t b = 0; b < out.blocks(); ++b) {
      const float *x = a + r * cols;
      int64_t first = b * width, last = std::min(cols, first + width);
      float largest = 0;
      for (int64_t c = first; c < last; ++c)
        largest = std::max(largest, std::fabs(x[c]));
      // As tile.quant computes it: the scale in float, then x / scale.
      float scale = largest / (fp8 ? 448.0f : 127.0f);
      out.scales[r * out.blocks() + b] = scale;
      for (int64_t c = first; c < last; ++c) {
        float q = scale > 0 ? x[c] / scale : 0.0f;
        out.codes[r * cols + c] =
            fp8 ? toE4M3(q)
                : static_cast<uint8_t>(static_cast<int8_t>(
                      std::clamp(std::nearbyint(q), -127.0f, 127.0f)));
      }
    }
  return out;
}

} // namespace tessera
