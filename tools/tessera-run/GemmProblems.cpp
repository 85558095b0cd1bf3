//===- GemmProblems.cpp - GEMM and weight-quantized GEMM --------*- C++ -*-===//

#include "Problems.h"

using namespace tessera::run;

namespace {
float uniform(std::mt19937 &rng) {
  return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
}

/// C[M, N] = A[M, K] · B[K, N] with bf16 storage (gemm_bf16).
class GemmBF16 : public Problem {
public:
  explicit GemmBF16(const Flags &flags)
      : m(flags.get("m", 256)), n(flags.get("n", 256)), k(flags.get("k", 256)),
        a({m, k}, 2), b({k, n}, 2), c({m, n}, 2) {}

  std::string describe() const override {
    return "M=" + std::to_string(m) + " N=" + std::to_string(n) +
           " K=" + std::to_string(k);
  }
  void prepare(std::mt19937 &rng) override {
    fillRandomBF16(a, rng);
    fillRandomBF16(b, rng);
    poisonBF16(c);
  }
  tessera_status launch(tessera_module *module) override {
    void *args[] = {&a.view, &b.view, &c.view};
    tessera_grid grid{(m + 127) / 128, (n + 127) / 128, 1};
    return tesseraLaunch(module, "gemm_bf16", grid, args);
  }
  void results(std::vector<double> &out, std::vector<double> &ref) override {
    out.resize(m * n);
    ref.assign(m * n, 0.0);
    for (int64_t i = 0; i < m * n; ++i)
      out[i] = fromBF16(c.as<uint16_t>()[i]);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) {
        double x = fromBF16(a.as<uint16_t>()[i * k + kk]);
        for (int64_t j = 0; j < n; ++j)
          ref[i * n + j] += x * fromBF16(b.as<uint16_t>()[kk * n + j]);
      }
  }
  double tolerance() const override { return 1e-2; }
  double flops() const override { return 2.0 * m * n * k; }

private:
  int64_t m, n, k;
  Tensor a, b, c;
};

/// C = A · dequant(W, S): int4 codes W[K, N] packed two per byte along N,
/// f16 scales S[ceil(K / 128), N] (gemm_w4a16).
class GemmW4A16 : public Problem {
public:
  explicit GemmW4A16(const Flags &flags)
      : m(flags.get("m", 256)), n(flags.get("n", 256)), k(flags.get("k", 256)),
        a({m, k}, 2), w({k, (n + 1) / 2}, 1), s({(k + 127) / 128, n}, 2),
        c({m, n}, 2) {
    // Sizes count codes; the row stride counts bytes.
    w.view.sizes[1] = n;
  }

  std::string describe() const override {
    return "M=" + std::to_string(m) + " N=" + std::to_string(n) +
           " K=" + std::to_string(k) + " group=128";
  }
  int code(int64_t row, int64_t col) {
    uint8_t byte = w.as<uint8_t>()[row * ((n + 1) / 2) + col / 2];
    int nibble = (col % 2) ? byte >> 4 : byte & 0xF;
    return nibble >= 8 ? nibble - 16 : nibble;
  }
  void prepare(std::mt19937 &rng) override {
    fillRandomBF16(a, rng);
    std::uniform_int_distribution<int> bytes(0, 255);
    for (uint8_t &byte : w.bytes) // two codes per byte
      byte = static_cast<uint8_t>(bytes(rng));
    for (int64_t i = 0; i < s.elements(); ++i)
      s.as<uint16_t>()[i] = toF16(0.01f + 0.05f * std::fabs(uniform(rng)));
    poisonBF16(c);
  }
  tessera_status launch(tessera_module *module) override {
    void *args[] = {&a.view, &w.view, &s.view, &c.view};
    tessera_grid grid{(m + 127) / 128, (n + 127) / 128, 1};
    return tesseraLaunch(module, "gemm_w4a16", grid, args);
  }
  void results(std::vector<double> &out, std::vector<double> &ref) override {
    out.resize(m * n);
    ref.assign(m * n, 0.0);
    for (int64_t i = 0; i < m * n; ++i)
      out[i] = fromBF16(c.as<uint16_t>()[i]);
    // The kernel rounds each dequantized weight to bf16 before the MMA.
    std::vector<double> weights(k * n);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        weights[kk * n + j] =
            fromBF16(toBF16(float(code(kk, j)) *
                            fromF16(s.as<uint16_t>()[(kk / 128) * n + j])));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t kk = 0; kk < k; ++kk) {
        double x = fromBF16(a.as<uint16_t>()[i * k + kk]);
        for (int64_t j = 0; j < n; ++j)
          ref[i * n + j] += x * weights[kk * n + j];
      }
  }
  double tolerance() const override { return 1e-2; }
  double flops() const override { return 2.0 * m * n * k; }

private:
  int64_t m, n, k;
  Tensor a, w, s, c;
};

const bool registered = registerProblem<GemmBF16>("gemm_bf16") &&
                        registerProblem<GemmW4A16>("gemm_w4a16");
} // namespace
