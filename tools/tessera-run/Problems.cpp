//===- Problems.cpp - Shared helpers of tessera-run's problems --*- C++ -*-===//

#include "Problems.h"

#include <algorithm>

using namespace tessera::run;

int64_t Flags::get(const std::string &name, int64_t fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : std::stoll(it->second);
}

uint16_t tessera::run::toBF16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return 0x7FC0;
  uint32_t rounding = 0x7FFF + ((bits >> 16) & 1);
  return static_cast<uint16_t>((bits + rounding) >> 16);
}

float tessera::run::fromBF16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t tessera::run::toF16(float value) {
  // Through double: exact for every f16, then round to nearest even.
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = (bits >> 16) & 0x8000;
  float magnitude = std::fabs(value);
  if (std::isnan(value))
    return sign | 0x7E00;
  if (magnitude >= 65520.0f)
    return sign | 0x7C00;
  if (magnitude < 6.103515625e-05f) { // subnormal: units of 2^-24
    uint16_t units =
        static_cast<uint16_t>(std::nearbyint(magnitude * 16777216.0f));
    return sign | units;
  }
  int exponent;
  float mantissa = std::frexp(magnitude, &exponent); // [0.5, 1)
  float scaled = std::nearbyint(mantissa * 2048.0f); // 11 bits
  if (scaled >= 2048.0f) {
    scaled /= 2;
    ++exponent;
  }
  uint16_t e = static_cast<uint16_t>(exponent - 1 + 15);
  return sign | (e << 10) | (static_cast<uint16_t>(scaled) & 0x3FF);
}

float tessera::run::fromF16(uint16_t bits) {
  float sign = (bits & 0x8000) ? -1.0f : 1.0f;
  int e = (bits >> 10) & 0x1F, m = bits & 0x3FF;
  if (e == 0)
    return sign * std::ldexp(float(m), -24);
  if (e == 31)
    return m ? NAN : sign * INFINITY;
  return sign * std::ldexp(float(m | 0x400), e - 25);
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

Comparison tessera::run::compare(const std::vector<double> &out,
                                 const std::vector<double> &ref) {
  Comparison result;
  double diff = 0, norm = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    if (!std::isfinite(out[i]))
      result.finite = false;
    double d = out[i] - ref[i];
    result.maxAbs = std::max(result.maxAbs, std::abs(d));
    diff += d * d;
    norm += ref[i] * ref[i];
  }
  result.relative = std::sqrt(diff) / std::max(std::sqrt(norm), 1e-30);
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

std::unique_ptr<Problem> tessera::run::makeProblem(const std::string &kernel,
                                                   const Flags &flags) {
  auto it = problemRegistry().find(kernel);
  return it == problemRegistry().end() ? nullptr : it->second(flags);
}
