//===- Problems.cpp - Shared helpers of tessera-run's problems --*- C++ -*-===//

#include "Problems.h"

#include <algorithm>
#include <charconv>

using namespace tessera::run;

bool tessera::run::parseInteger(const std::string &text, int64_t &value) {
  const char *end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  return error == std::errc() && stop == end && !text.empty();
}

bool tessera::run::parseIntegerList(const std::string &text,
                                    std::vector<int64_t> &values) {
  values.clear();
  size_t begin = 0;
  do {
    size_t comma = std::min(text.find(',', begin), text.size());
    int64_t value = 0;
    if (!parseInteger(text.substr(begin, comma - begin), value))
      return false;
    values.push_back(value);
    begin = comma + 1;
  } while (begin <= text.size());
  return true;
}

int64_t Flags::get(const std::string &name, int64_t fallback) const {
  auto it = values.find(name);
  int64_t value = fallback;
  if (it != values.end())
    parseInteger(it->second, value);
  return value;
}

Tensor::Tensor(std::vector<int64_t> shape, size_t elementBytes) {
  view.rank = shape.size();
  int64_t count = 1;
  for (int64_t d = view.rank; d-- > 0;) {
    view.sizes[d] = shape[d];
    view.strides[d] = count;
    count *= shape[d];
  }
  bytes.resize(std::max<int64_t>(count, 1) * elementBytes);
  view.data = bytes.data();
}

int64_t Tensor::elements() const {
  int64_t count = 1;
  for (int64_t d = 0; d < view.rank; ++d)
    count *= view.sizes[d];
  return count;
}

void tessera::run::fillRandomBF16(Tensor &tensor, std::mt19937 &rng,
                                  float scale) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  for (int64_t i = 0; i < tensor.elements(); ++i)
    tensor.as<uint16_t>()[i] = toBF16(dist(rng));
}

void tessera::run::poisonBF16(Tensor &tensor) {
  std::fill(tensor.as<uint16_t>(), tensor.as<uint16_t>() + tensor.elements(),
            uint16_t(0x7FC0));
}

void tessera::run::attendRow(const uint16_t *q, const uint16_t *keys,
                             const uint16_t *values, int64_t count, int64_t dim,
                             double scale, double *out) {
  std::vector<double> weights(count);
  double best = -INFINITY, sum = 0;
  for (int64_t j = 0; j < count; ++j) {
    double dot = 0;
    for (int64_t d = 0; d < dim; ++d)
      dot += double(fromBF16(q[d])) * fromBF16(keys[j * dim + d]);
    best = std::max(best, weights[j] = dot * scale);
  }
  for (double &weight : weights)
    sum += weight = std::exp(weight - best);
  for (int64_t j = 0; j < count; ++j)
    for (int64_t d = 0; d < dim; ++d)
      out[d] += weights[j] / sum * fromBF16(values[j * dim + d]);
}

std::vector<float> tessera::run::spreadMagnitudes(std::mt19937 &rng,
                                                  int64_t count,
                                                  float maxExponent) {
  std::uniform_real_distribution<float> exponent(-maxExponent, maxExponent);
  std::vector<float> scales(count);
  for (float &scale : scales)
    scale = std::exp2(exponent(rng));
  return scales;
}

void tessera::run::fillScaledBF16(Tensor &tensor, std::mt19937 &rng,
                                  const std::vector<float> &rowScale,
                                  const std::vector<float> &colScale) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  int64_t cols = tensor.view.sizes[tensor.view.rank - 1];
  for (int64_t i = 0; i < tensor.elements(); ++i) {
    float scale = (rowScale.empty() ? 1.0f : rowScale[i / cols]) *
                  (colScale.empty() ? 1.0f : colScale[i % cols]);
    tensor.as<uint16_t>()[i] = toBF16(scale * dist(rng));
  }
}

Comparison tessera::run::compare(const std::vector<double> &out,
                                 const std::vector<double> &ref,
                                 int64_t rowLength) {
  Comparison result;
  int64_t cols = std::max<int64_t>(rowLength, 1);
  int64_t rows = int64_t(out.size()) / cols;
  std::vector<double> rowDiff(rows), rowNorm(rows), colDiff(cols),
      colNorm(cols);
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i]))
      result.finite = false;
    double d = out[i] - ref[i];
    result.maxAbs = std::max(result.maxAbs, std::abs(d));
    rowDiff[i / cols] += d * d;
    rowNorm[i / cols] += ref[i] * ref[i];
    colDiff[i % cols] += d * d;
    colNorm[i % cols] += ref[i] * ref[i];
  }
  // A row or column counts when it has at least kMinLine elements: the RMS
  // of fewer can be a single cancellation. The whole output always counts.
  constexpr int64_t kMinLine = 8;
  auto worst = [](const std::vector<double> &diff,
                  const std::vector<double> &norm, int64_t length) {
    double relative = 0;
    if (length < kMinLine)
      return relative;
    for (size_t i = 0; i < diff.size(); ++i)
      relative =
          std::max(relative, diff[i] == 0   ? 0.0
                             : norm[i] == 0 ? INFINITY
                                            : std::sqrt(diff[i] / norm[i]));
    return relative;
  };
  double diff = 0, norm = 0;
  for (int64_t r = 0; r < rows; ++r) {
    diff += rowDiff[r];
    norm += rowNorm[r];
  }
  result.relative =
      std::max({worst({diff}, {norm}, kMinLine), worst(rowDiff, rowNorm, cols),
                worst(colDiff, colNorm, rows)});
  if (!result.finite) {
    result.relative = INFINITY;
    result.maxAbs = INFINITY;
  }
  return result;
}

std::map<std::string, Maker> &tessera::run::problemRegistry() {
  static std::map<std::string, Maker> registry;
  return registry;
}

bool tessera::run::isKnownKernel(const std::string &kernel) {
  return problemRegistry().count(kernel) ||
         quantizedGemmScheme(kernel).has_value() ||
         quantizedMoeScheme(kernel).has_value();
}

std::unique_ptr<Problem> tessera::run::makeProblem(const std::string &kernel,
                                                   const Flags &flags) {
  auto it = problemRegistry().find(kernel);
  if (it != problemRegistry().end())
    return it->second(flags);
  if (quantizedMoeScheme(kernel))
    return makeQuantizedMoe(kernel, flags);
  return makeQuantizedGemm(kernel, flags);
}
