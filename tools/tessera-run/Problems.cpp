//===- Problems.cpp - Shared helpers of tessera-run's problems --*- C++ -*-===//

#include "Problems.h"

#include <algorithm>

using namespace tessera::run;

int64_t Flags::get(const std::string &name, int64_t fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : std::stoll(it->second);
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
