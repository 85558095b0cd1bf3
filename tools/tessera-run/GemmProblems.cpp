//===- GemmProblems.cpp - GEMM and weight-quantized GEMM --------*- C++ -*-===//

#include "Problems.h"

using namespace tessera;
using namespace tessera::run;

namespace {
float uniform(std::mt19937 &rng) {
  return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
}

/// ref[M, N] = a[M, K] · weights[K, N] in float64.
void referenceGemm(const std::vector<double> &a, int64_t m, int64_t k,
                   int64_t n, const std::vector<double> &weights,
                   std::vector<double> &ref) {
  ref.assign(m * n, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        ref[i * n + j] += a[i * k + kk] * weights[kk * n + j];
}

std::vector<double> bf16Values(const uint16_t *bits, int64_t count) {
  std::vector<double> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = fromBF16(bits[i]);
  return values;
}

/// C[M, N] = A[M, K] · B[K, N] with bf16 storage (gemm_bf16: a program
/// per 128 x `tileN` tile of C).
class GemmBF16 : public Problem {
public:
  explicit GemmBF16(const Flags &flags, std::string kernel = "gemm_bf16",
                    int64_t tileN = 128, int64_t clusterX = 1)
      : kernel(std::move(kernel)), tileN(tileN), clusterX(clusterX),
        m(flags.get("m", 256)), n(flags.get("n", 256)), k(flags.get("k", 256)),
        a({m, k}, 2), b({k, n}, 2), c({m, n}, 2) {}

  std::string describe() const override {
    return "M=" + std::to_string(m) + " N=" + std::to_string(n) +
           " K=" + std::to_string(k);
  }
  void prepare(std::mt19937 &rng) override {
    // Rows of A and columns of B over orders of magnitude: an output tile,
    // row or column taken from the wrong place shows.
    fillScaledBF16(a, rng, spreadMagnitudes(rng, m), {});
    fillScaledBF16(b, rng, {}, spreadMagnitudes(rng, n));
    poisonBF16(c);
  }
  tessera_status launch(Launcher &launcher) override {
    void *args[] = {&a.view, &b.view, &c.view};
    // Whole clusters along x: a program past the last row tile computes
    // nothing it stores.
    int64_t rows = (m + 127) / 128;
    tessera_grid grid{(rows + clusterX - 1) / clusterX * clusterX,
                      (n + tileN - 1) / tileN, 1};
    return launcher.launch(kernel, grid, args);
  }
  void results(std::vector<double> &out, std::vector<double> &ref) override {
    out.resize(m * n);
    for (int64_t i = 0; i < m * n; ++i)
      out[i] = fromBF16(c.as<uint16_t>()[i]);
    referenceGemm(bf16Values(a.as<uint16_t>(), m * k), m, k, n,
                  bf16Values(b.as<uint16_t>(), k * n), ref);
  }
  double tolerance() const override { return 1e-2; }
  int64_t rowLength() const override { return n; }
  double flops() const override { return 2.0 * m * n * k; }

private:
  std::string kernel;
  int64_t tileN, clusterX;
  int64_t m, n, k;
  Tensor a, b, c;
};

/// The same on 128x256 tiles (gemm_bf16_wide.mlir).
class GemmBF16Wide : public GemmBF16 {
public:
  explicit GemmBF16Wide(const Flags &flags)
      : GemmBF16(flags, "gemm_bf16_128x256", 256) {}
};

/// The same, warp-specialized, on 128x256 tiles (gemm_bf16_ws.mlir).
class GemmBF16WarpSpecialized : public GemmBF16 {
public:
  explicit GemmBF16WarpSpecialized(const Flags &flags)
      : GemmBF16(flags, "gemm_bf16_ws", 256) {}
};

/// The same with its epilogue through shared memory and a TMA store
/// (gemm_bf16_ws_tma_store.mlir).
class GemmBF16TmaStore : public GemmBF16 {
public:
  explicit GemmBF16TmaStore(const Flags &flags)
      : GemmBF16(flags, "gemm_bf16_ws_tma_store", 256) {}
};

/// The same on 128x128 tiles on the ping-pong schedule, persistent
/// (gemm_bf16_ws_pingpong.mlir).
class GemmBF16PingPong : public GemmBF16 {
public:
  explicit GemmBF16PingPong(const Flags &flags)
      : GemmBF16(flags, "gemm_bf16_ws_pingpong", 128) {}
};

/// The same in clusters of two programs that multicast B
/// (gemm_bf16_ws_multicast.mlir).
class GemmBF16Multicast : public GemmBF16 {
public:
  explicit GemmBF16Multicast(const Flags &flags)
      : GemmBF16(flags, "gemm_bf16_ws_multicast", 256, 2) {}
};

/// C = A · dequant(W, S[, Z]): codes W[K, N] (int4 packed two per byte
/// along N, int8 or fp8), f16 scales S and zero points Z [groups, N] (fp8:
/// f32 S per 128x128 block), made by the runtime's quantizeWeights from
/// random real weights. With quantized activations the kernel quantizes A
/// per token within each K tile, or (token scales) takes A as codes with
/// one scale per row, both made by the runtime's quantizeActivations.
/// Checked against the dequantized operands; the error against the real
/// ones is reported.
class QuantizedGemm : public Problem {
public:
  QuantizedGemm(const Flags &flags, std::string kernel,
                QuantizationScheme layout)
      : kernel(std::move(kernel)), scheme(layout.weights),
        activationBlock(layout.activationBlock),
        tokenScales(layout.tokenScales), m(flags.get("m", 256)),
        n(flags.get("n", 256)), k(flags.get("k", 256)), a({m, k}, 2),
        c({m, n}, 2) {}

  std::string describe() const override {
    std::string text = "M=" + std::to_string(m) + " N=" + std::to_string(n) +
                       " K=" + std::to_string(k);
    if (fp8())
      text += " fp8 blocks=" + std::to_string(scheme.group) + "x" +
              std::to_string(scheme.group);
    else
      text += (scheme.format == WeightQuantization::Format::Int4 ? " int4"
                                                                 : " int8") +
              (scheme.group ? " group=" + std::to_string(scheme.group)
                            : std::string(" per-channel"));
    if (scheme.zeroPoints)
      text += " zero-points";
    if (quantizedActivations())
      text += std::string(fp8() ? " fp8" : " int8") + " activations per " +
              (tokenScales ? std::string("token")
                           : std::to_string(activationBlock) + " k");
    return text;
  }
  void prepare(std::mt19937 &rng) override {
    fillScaledBF16(a, rng, spreadMagnitudes(rng, m), {});
    // Each quantization group of each column (fp8: each 128x128 block) has
    // its own magnitude, so that its scale differs from its neighbours'.
    int64_t rowsPerGroup =
        scheme.group ? scheme.group : std::max<int64_t>(k, 1);
    int64_t colsPerGroup = fp8() ? scheme.group : 1;
    int64_t groupRows = (k + rowsPerGroup - 1) / rowsPerGroup,
            groupCols = (n + colsPerGroup - 1) / colsPerGroup;
    std::vector<float> magnitude = spreadMagnitudes(rng, groupRows * groupCols);
    real.resize(k * n);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        real[kk * n + j] =
            0.05f *
            magnitude[kk / rowsPerGroup * groupCols + j / colsPerGroup] *
            uniform(rng);
    quantized = quantizeWeights(real.data(), k, n, scheme);
    bool int4 = scheme.format == WeightQuantization::Format::Int4;
    // Sizes count codes; the row stride counts bytes. int4 kernels read
    // the bytes as nibble pairs.
    w = makeView(quantized.codes.data(), {k, n}, int4 ? (n + 1) / 2 : n);
    if (int4)
      w = int4PairView(w);
    if (fp8())
      s = makeView(quantized.blockScales.data(),
                   {quantized.groups(), quantized.blockColumns()},
                   quantized.blockColumns());
    else
      s = makeView(quantized.scales.data(), {quantized.groups(), n}, n);
    z = makeView(quantized.zeros.data(), {quantized.groups(), n}, n);
    // The activations as the kernel multiplies them.
    std::vector<double> bf16 = bf16Values(a.as<uint16_t>(), m * k);
    activations = bf16;
    if (quantizedActivations()) {
      std::vector<float> values(bf16.begin(), bf16.end());
      aQuantized = quantizeActivations(values.data(), m, k,
                                       fp8() ? ActivationFormat::Fp8
                                             : ActivationFormat::Int8,
                                       tokenScales ? 0 : activationBlock);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t kk = 0; kk < k; ++kk)
          activations[i * k + kk] = aQuantized.dequantized(i, kk);
      aCodes = makeView(aQuantized.codes.data(), {m, k}, k);
      aScales = tessera::view(aQuantized.scales.data(), {m});
    }
    poisonBF16(c);
  }
  tessera_status launch(Launcher &launcher) override {
    std::vector<void *> args = {&a.view, &w, &s};
    if (tokenScales)
      args = {&aCodes, &aScales, &w, &s};
    if (scheme.zeroPoints)
      args.push_back(&z);
    args.push_back(&c.view);
    tessera_grid grid{(m + 127) / 128, (n + 127) / 128, 1};
    return launcher.launch(kernel.c_str(), grid, args.data());
  }
  void results(std::vector<double> &out, std::vector<double> &ref) override {
    out.resize(m * n);
    for (int64_t i = 0; i < m * n; ++i)
      out[i] = fromBF16(c.as<uint16_t>()[i]);
    // With bf16 activations the kernel rounds each dequantized weight to
    // bf16 before the MMA (or multiplies codes exact in bf16); with int8 or
    // fp8 activations it multiplies the codes exactly.
    std::vector<double> weights(k * n);
    for (int64_t kk = 0; kk < k; ++kk)
      for (int64_t j = 0; j < n; ++j)
        weights[kk * n + j] =
            quantizedActivations()
                ? quantized.dequantized(kk, j)
                : fromBF16(toBF16(quantized.dequantized(kk, j)));
    referenceGemm(activations, m, k, n, weights, ref);
  }
  bool secondReference(std::vector<double> &ref, std::string &what) override {
    what = quantizedActivations() ? "unquantized weights and activations"
                                  : "unquantized weights";
    referenceGemm(bf16Values(a.as<uint16_t>(), m * k), m, k, n,
                  std::vector<double>(real.begin(), real.end()), ref);
    return true;
  }
  double tolerance() const override { return 1e-2; }
  int64_t rowLength() const override { return n; }
  double flops() const override { return 2.0 * m * n * k; }

private:
  bool fp8() const { return scheme.format == WeightQuantization::Format::Fp8; }
  bool quantizedActivations() const { return activationBlock || tokenScales; }
  static tessera_view makeView(void *data, std::vector<int64_t> sizes,
                               int64_t rowStride) {
    tessera_view view{};
    view.data = data;
    view.rank = 2;
    view.sizes[0] = sizes[0];
    view.sizes[1] = sizes[1];
    view.strides[0] = rowStride;
    view.strides[1] = 1;
    return view;
  }
  std::string kernel;
  WeightQuantization scheme;
  int64_t activationBlock;
  bool tokenScales;
  int64_t m, n, k;
  Tensor a, c;
  std::vector<float> real;
  QuantizedWeights quantized;
  QuantizedActivations aQuantized;
  std::vector<double> activations;
  tessera_view w{}, s{}, z{}, aCodes{}, aScales{};
};

const bool registered =
    registerProblem<GemmBF16>("gemm_bf16") &&
    registerProblem<GemmBF16Wide>("gemm_bf16_128x256") &&
    registerProblem<GemmBF16WarpSpecialized>("gemm_bf16_ws") &&
    registerProblem<GemmBF16Multicast>("gemm_bf16_ws_multicast") &&
    registerProblem<GemmBF16TmaStore>("gemm_bf16_ws_tma_store") &&
    registerProblem<GemmBF16PingPong>("gemm_bf16_ws_pingpong");
} // namespace

std::optional<QuantizationScheme>
tessera::run::parseQuantizedName(const std::string &kernel,
                                 const std::string &base) {
  if (kernel.size() <= base.size() + 1 ||
      kernel.compare(0, base.size(), base) || kernel[base.size()] != '_')
    return std::nullopt;
  std::string suffix = kernel.substr(base.size() + 1);
  QuantizationScheme result;
  bool fp8 = suffix.compare(0, 3, "fp8") == 0;
  std::string activations = fp8 ? "_af8k" : "_a8k";
  std::string perToken = fp8 ? "_af8t" : "_a8t";
  if (suffix.size() > perToken.size() &&
      suffix.compare(suffix.size() - perToken.size(), perToken.size(),
                     perToken) == 0) {
    result.tokenScales = true;
    suffix.resize(suffix.size() - perToken.size());
  } else if (size_t a8 = suffix.find(activations); a8 != std::string::npos) {
    std::string block = suffix.substr(a8 + activations.size());
    if (block.empty() || block.size() > 6 ||
        block.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    result.activationBlock = std::stoll(block);
    suffix.resize(a8);
  }
  WeightQuantization &scheme = result.weights;
  if (suffix.size() > 3 && suffix.compare(suffix.size() - 3, 3, "_zp") == 0) {
    scheme.zeroPoints = true;
    suffix.resize(suffix.size() - 3);
  }
  if (suffix == "fp8_b128") {
    scheme.format = WeightQuantization::Format::Fp8;
    scheme.group = 128;
  } else if (suffix == "int8_pc") {
    scheme.format = WeightQuantization::Format::Int8;
    scheme.group = 0;
  } else if (suffix == "int4_g32" || suffix == "int4_g64" ||
             suffix == "int4_g128") {
    scheme.group = std::stoll(suffix.substr(6));
  } else {
    return std::nullopt;
  }
  return result;
}

std::optional<QuantizationScheme>
tessera::run::quantizedGemmScheme(const std::string &kernel) {
  // The shipped int4 kernel, and the names tile-quantize gives.
  if (kernel == "gemm_w4a16")
    return QuantizationScheme{};
  return parseQuantizedName(kernel, "gemm_bf16");
}

std::unique_ptr<Problem>
tessera::run::makeQuantizedGemm(const std::string &kernel, const Flags &flags) {
  std::optional<QuantizationScheme> scheme = quantizedGemmScheme(kernel);
  if (!scheme)
    return nullptr;
  return std::make_unique<QuantizedGemm>(flags, kernel, *scheme);
}
