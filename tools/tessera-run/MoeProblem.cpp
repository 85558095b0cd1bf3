//===- MoeProblem.cpp - The MoE expert block --------------------*- C++ -*-===//

#include "Problems.h"

#include "tessera/runtime/library.hpp"

#include <algorithm>
#include <numeric>

using namespace tessera::run;

namespace {
constexpr int64_t kBlock = 64; // rows per block in moe_expert_block.mlir

/// One weight of every expert, [E, n, k] (read transposed by the kernels),
/// quantized expert by expert by the runtime, in the operand order of a
/// tile-quantize'd MoE kernel: codes, scales [E, n, groups] (fp8: [E,
/// ceil(n / 128), ceil(k / 128)]) and zero points.
struct QuantizedExperts {
  std::vector<tessera::QuantizedWeights> experts;
  std::vector<uint8_t> codes;
  std::vector<uint16_t> scales, zeros;
  std::vector<float> blockScales;
  tessera_view codesView{}, scalesView{}, zerosView{};

  /// Expert e's rows [first, first + n) of the bf16 [E, rows, k] `weights`.
  QuantizedExperts(const uint16_t *weights, int64_t numExperts, int64_t rows,
                   int64_t first, int64_t n, int64_t k,
                   tessera::WeightQuantization scheme) {
    scheme.transposed = true;
    std::vector<float> real(n * k);
    for (int64_t e = 0; e < numExperts; ++e) {
      for (int64_t i = 0; i < n * k; ++i)
        real[i] = tessera::fromBF16(weights[(e * rows + first) * k + i]);
      experts.push_back(tessera::quantizeWeights(real.data(), n, k, scheme));
      const tessera::QuantizedWeights &q = experts.back();
      codes.insert(codes.end(), q.codes.begin(), q.codes.end());
      scales.insert(scales.end(), q.scales.begin(), q.scales.end());
      zeros.insert(zeros.end(), q.zeros.begin(), q.zeros.end());
      blockScales.insert(blockScales.end(), q.blockScales.begin(),
                         q.blockScales.end());
    }
    const tessera::QuantizedWeights &q = experts.front();
    if (scheme.format == tessera::WeightQuantization::Format::Int4) {
      // Rows of ceil(k / 2) bytes, read as nibble pairs.
      int64_t bytes = (k + 1) / 2;
      codesView = tessera::int4PairView(
          view(codes.data(), {numExperts, n, k}, {n * bytes, bytes, 1}));
    } else {
      codesView = view(codes.data(), {numExperts, n, k}, {n * k, k, 1});
    }
    if (scheme.format == tessera::WeightQuantization::Format::Fp8) {
      scalesView =
          view(blockScales.data(), {numExperts, q.groups(), q.blockColumns()},
               {q.groups() * q.blockColumns(), q.blockColumns(), 1});
    } else {
      int64_t groups = q.groups();
      scalesView =
          view(scales.data(), {numExperts, n, groups}, {n * groups, groups, 1});
      zerosView =
          view(zeros.data(), {numExperts, n, groups}, {n * groups, groups, 1});
    }
  }
  /// The value the kernel multiplies by: dequantized, and rounded to bf16
  /// unless the kernel multiplies the codes exactly (quantized activations).
  double value(int64_t e, int64_t row, int64_t col, bool exact) const {
    float real = experts[e].dequantized(row, col);
    return exact ? real : tessera::fromBF16(tessera::toBF16(real));
  }

private:
  static tessera_view view(void *data, std::vector<int64_t> sizes,
                           std::vector<int64_t> strides) {
    tessera_view result{};
    result.data = data;
    result.rank = static_cast<int64_t>(sizes.size());
    for (size_t d = 0; d < sizes.size(); ++d) {
      result.sizes[d] = sizes[d];
      result.strides[d] = strides[d];
    }
    return result;
  }
};

/// Routing (top-k of a softmax over random logits, renormalized) and
/// alignment (slots sorted by expert, each expert's run padded to 64 rows
/// with the sentinel T * topk) on the host; then the two kernels of
/// moe_expert_block.mlir: gate+up with SwiGLU, down with the weighted
/// atomic combine into Out (f32, zeroed first). Quantized (both kernels
/// renamed with the same tile-quantize suffix), the expert weights are
/// quantized by the runtime and the reference uses their dequantized
/// values; the error against the bf16 weights is reported.
class MoeExpertBlock : public Problem {
public:
  explicit MoeExpertBlock(
      const Flags &flags, std::string suffix = "",
      std::optional<tessera::WeightQuantization> scheme = {},
      int64_t activationBlock = 0)
      : suffix(std::move(suffix)), scheme(scheme),
        activationBlock(activationBlock), tokens(flags.get("tokens", 100)),
        experts(flags.get("experts", 8)), topk(flags.get("topk", 2)),
        routedExperts(flags.get("routed-experts", (experts + 1) / 2)),
        routing(flags.text("routing", "softmax")),
        routedGiven(flags.has("routed-experts")),
        hidden(flags.get("hidden", 128)), inter(flags.get("inter", 128)),
        x({tokens, hidden}, 2), w13({experts, 2 * inter, hidden}, 2),
        w2({experts, hidden, inter}, 2), out({tokens, hidden}, 4) {}

  bool valid(std::string &why) const override {
    if (topk < 1 || topk > experts) {
      why = "--topk must be between 1 and --experts";
      return false;
    }
    if (routedExperts < 1 || routedExperts > experts) {
      why = "--routed-experts must be between 1 and --experts";
      return false;
    }
    if (routedGiven && routing != "softmax") {
      why = "--routed-experts goes with --routing=softmax";
      return false;
    }
    return tokens > 0 && hidden > 0 && inter > 0;
  }
  std::string describe() const override {
    std::string quantized;
    if (scheme)
      quantized = " weights " + suffix + ",";
    return "tokens=" + std::to_string(tokens) +
           " experts=" + std::to_string(experts) +
           " topk=" + std::to_string(topk) +
           (routing == "softmax" ? "" : " routing=" + routing) +
           " hidden=" + std::to_string(hidden) +
           " inter=" + std::to_string(inter) + "," + quantized + " " +
           std::to_string(emptyExperts) + " experts without tokens, " +
           std::to_string(largestExpert) + " rows in the largest";
  }

  void prepare(std::mt19937 &rng) override {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    // Tokens, and each output row of each expert's weights, get their own
    // magnitude (2^-1..2^1): a row gathered for the wrong token or a tile
    // of the wrong expert changes the output.
    auto spread = [&](int64_t rows, float base) {
      std::vector<float> scales = spreadMagnitudes(rng, rows, 1.0f);
      for (float &scale : scales)
        scale *= base;
      return scales;
    };
    fillScaledBF16(x, rng, spread(tokens, 1.0f), {});
    fillScaledBF16(w13, rng, spread(experts * 2 * inter, 0.2f), {});
    fillScaledBF16(w2, rng, spread(experts * hidden, 0.2f), {});
    // Router: softmax over logits, top-k, weights renormalized. With
    // softmax routing, experts past the first --routed-experts (half by
    // default) get low logits, so that they receive tokens only where top-k
    // needs more experts; uniform routing gives every expert the same
    // chance; zipf makes expert e's logit log(1 / (e + 1)) plus Gumbel
    // noise, so that top-k draws k experts without replacement with
    // probabilities proportional to 1 / (e + 1) (skewed: a few experts get
    // most rows, many none).
    topkIds.assign(tokens * topk, 0);
    topkWeights.assign(tokens * topk, 0.0f);
    std::uniform_real_distribution<double> open(1e-12, 1.0);
    for (int64_t t = 0; t < tokens; ++t) {
      std::vector<double> p(experts);
      for (int64_t e = 0; e < experts; ++e) {
        double logit = 3.0 * dist(rng);
        if (routing == "softmax" && e >= routedExperts)
          logit -= 50.0;
        else if (routing == "zipf")
          logit = -std::log(double(e + 1)) - std::log(-std::log(open(rng)));
        p[e] = std::exp(logit);
      }
      std::vector<int64_t> order(experts);
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + topk, order.end(),
                        [&](int64_t a, int64_t b) { return p[a] > p[b]; });
      double sum = 0;
      for (int64_t j = 0; j < topk; ++j)
        sum += p[order[j]];
      for (int64_t j = 0; j < topk; ++j) {
        topkIds[t * topk + j] = static_cast<int32_t>(order[j]);
        topkWeights[t * topk + j] = static_cast<float>(p[order[j]] / sum);
      }
    }
    // Alignment, as the library op does it.
    tessera::MoeAlignment alignment =
        tessera::alignMoe(topkIds.data(), tokens, topk, experts, kBlock);
    sortedIds = std::move(alignment.sortedIds);
    expertIds = std::move(alignment.expertIds);
    emptyExperts = experts;
    for (int64_t e = 0; e < experts; ++e)
      if (std::find(expertIds.begin(), expertIds.end(), e) != expertIds.end())
        --emptyExperts;
    // More rows than a block's 64 make an expert span several blocks.
    largestExpert = 0;
    for (int64_t e = 0; e < experts; ++e)
      largestExpert = std::max<int64_t>(
          largestExpert, std::count(topkIds.begin(), topkIds.end(), e));
    slots = static_cast<int64_t>(sortedIds.size());
    if (scheme) {
      const auto *bits = w13.as<uint16_t>();
      gate = std::make_unique<QuantizedExperts>(bits, experts, 2 * inter, 0,
                                                inter, hidden, *scheme);
      up = std::make_unique<QuantizedExperts>(bits, experts, 2 * inter, inter,
                                              inter, hidden, *scheme);
      down = std::make_unique<QuantizedExperts>(
          w2.as<uint16_t>(), experts, hidden, 0, hidden, inter, *scheme);
    }
    h = std::make_unique<Tensor>(std::vector<int64_t>{slots, inter}, 2);
    poisonBF16(*h);
    std::fill(out.as<float>(), out.as<float>() + out.elements(), 0.0f);
  }

  tessera_status launch(Launcher &launcher) override {
    // The combine adds into `out`, which prepare() zeroed: --check launches
    // once. --bench's repeated launches keep adding (their timing is what
    // counts), and no host work runs between its events: zeroing 64 MiB on
    // the host there would be timed as GPU time (a device memset of the
    // same bytes takes tens of microseconds on an H200).
    // Gate and up projections are the two halves of the fused weight.
    gateView = upView = w13.view;
    gateView.sizes[1] = upView.sizes[1] = inter;
    upView.data = w13.as<uint16_t>() + inter * hidden;
    tessera_view ids = tessera::view(sortedIds.data(), {slots});
    tessera_view blockExperts = tessera::view(
        expertIds.data(), {static_cast<int64_t>(expertIds.size())});
    tessera_view routed = tessera::view(topkIds.data(), {tokens * topk});
    tessera_view weights = tessera::view(topkWeights.data(), {tokens * topk});
    int32_t k32 = static_cast<int32_t>(topk);
    int64_t blocks = slots / kBlock;
    if (blocks == 0)
      return TESSERA_SUCCESS;
    // Quantized, each weight is followed by its scales (and zero points).
    auto weightArgs = [&](tessera_view &real, QuantizedExperts *quantized) {
      if (!quantized)
        return std::vector<void *>{&real};
      std::vector<void *> args = {&quantized->codesView,
                                  &quantized->scalesView};
      if (scheme->zeroPoints)
        args.push_back(&quantized->zerosView);
      return args;
    };
    std::vector<void *> first = {&x.view};
    for (auto [real, quantized] :
         {std::pair(&gateView, gate.get()), std::pair(&upView, up.get())})
      for (void *arg : weightArgs(*real, quantized))
        first.push_back(arg);
    for (void *arg : {(void *)&h->view, (void *)&ids, (void *)&blockExperts,
                      (void *)&routed, (void *)&k32})
      first.push_back(arg);
    std::string tail = scheme ? "_" + suffix : "";
    tessera_grid grid1{blocks, (inter + 63) / 64, 1};
    if (tessera_status status = launcher.launch(
            ("moe_gate_up_swiglu" + tail).c_str(), grid1, first.data()))
      return status;
    std::vector<void *> second = {&h->view};
    for (void *arg : weightArgs(w2.view, down.get()))
      second.push_back(arg);
    for (void *arg : {(void *)&out.view, (void *)&weights, (void *)&ids,
                      (void *)&blockExperts, (void *)&routed, (void *)&k32})
      second.push_back(arg);
    tessera_grid grid2{blocks, (hidden + 63) / 64, 1};
    return launcher.launch(("moe_down_combine" + tail).c_str(), grid2,
                           second.data());
  }

  void results(std::vector<double> &result, std::vector<double> &ref) override {
    result.assign(out.as<float>(), out.as<float>() + out.elements());
    if (!scheme)
      return reference(ref, bf16Weights());
    reference(
        ref,
        [&](int which, int64_t e, int64_t row, int64_t col) {
          const QuantizedExperts &q = which == 0   ? *gate
                                      : which == 1 ? *up
                                                   : *down;
          return q.value(e, row, col, activationBlock != 0);
        },
        activationBlock);
  }
  bool secondReference(std::vector<double> &ref, std::string &what) override {
    if (!scheme)
      return false;
    what = activationBlock ? "bf16 weights and activations" : "bf16 weights";
    reference(ref, bf16Weights());
    return true;
  }
  // The intermediate activation is stored as bf16 between the kernels.
  double tolerance() const override { return 1e-2; }
  int64_t rowLength() const override { return hidden; }
  double flops() const override {
    return 2.0 * tokens * topk * (3.0 * hidden * inter);
  }

private:
  /// Weight `which` (0 gate [E, I, D], 1 up [E, I, D], 2 down [E, D, I]) of
  /// expert e at (row, col).
  using Weights = std::function<double(int, int64_t, int64_t, int64_t)>;
  Weights bf16Weights() const {
    return [this](int which, int64_t e, int64_t row, int64_t col) {
      const Tensor &t = which == 2 ? w2 : w13;
      int64_t rows = which == 2 ? hidden : 2 * inter;
      int64_t cols = which == 2 ? inter : hidden;
      int64_t first = which == 1 ? inter : 0;
      return double(tessera::fromBF16(reinterpret_cast<const uint16_t *>(
          t.bytes.data())[(e * rows + first + row) * cols + col]));
    };
  }
  /// With `activationBlock`, each MMA's a operand (the gathered tokens,
  /// then the bf16 intermediate) is quantized per row within blocks of
  /// that many k, as the kernels do.
  void reference(std::vector<double> &ref, const Weights &w,
                 int64_t activationBlock = 0) const {
    ref.assign(tokens * hidden, 0.0);
    auto asKernelSees = [&](std::vector<double> &row) {
      if (!activationBlock)
        return;
      std::vector<float> values(row.begin(), row.end());
      tessera::QuantizedActivations q = tessera::quantizeActivations(
          values.data(), 1, static_cast<int64_t>(values.size()),
          scheme->format == tessera::WeightQuantization::Format::Fp8
              ? tessera::ActivationFormat::Fp8
              : tessera::ActivationFormat::Int8,
          activationBlock);
      for (size_t i = 0; i < row.size(); ++i)
        row[i] = q.dequantized(0, static_cast<int64_t>(i));
    };
    std::vector<double> xRow(hidden), act(inter);
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t j = 0; j < topk; ++j) {
        int64_t e = topkIds[t * topk + j];
        for (int64_t d = 0; d < hidden; ++d)
          xRow[d] = tessera::fromBF16(x.as<uint16_t>()[t * hidden + d]);
        asKernelSees(xRow);
        for (int64_t i = 0; i < inter; ++i) {
          double g = 0, u = 0;
          for (int64_t d = 0; d < hidden; ++d) {
            g += xRow[d] * w(0, e, i, d);
            u += xRow[d] * w(1, e, i, d);
          }
          act[i] = g / (1 + std::exp(-g)) * u;
          // The intermediate is stored as bf16 between the kernels.
          if (activationBlock)
            act[i] = tessera::fromBF16(tessera::toBF16(float(act[i])));
        }
        asKernelSees(act);
        for (int64_t d = 0; d < hidden; ++d) {
          double y = 0;
          for (int64_t i = 0; i < inter; ++i)
            y += act[i] * w(2, e, d, i);
          ref[t * hidden + d] += topkWeights[t * topk + j] * y;
        }
      }
  }

  std::string suffix;
  std::optional<tessera::WeightQuantization> scheme;
  int64_t activationBlock;
  int64_t tokens, experts, topk, routedExperts;
  std::string routing;
  bool routedGiven;
  int64_t hidden, inter;
  Tensor x, w13, w2, out;
  tessera_view gateView{}, upView{};
  std::unique_ptr<QuantizedExperts> gate, up, down;
  std::unique_ptr<Tensor> h;
  std::vector<int32_t> topkIds, sortedIds, expertIds;
  std::vector<float> topkWeights;
  int64_t slots = 0, emptyExperts = 0, largestExpert = 0;
};

const bool registered = registerProblem<MoeExpertBlock>("moe_gate_up_swiglu");
} // namespace

std::optional<QuantizationScheme>
tessera::run::quantizedMoeScheme(const std::string &kernel) {
  std::optional<QuantizationScheme> scheme =
      parseQuantizedName(kernel, "moe_gate_up_swiglu");
  // The kernels' a operands are gathered or computed, not given: quantized
  // activations are quantized inside (per K tile), never per token.
  if (!scheme || scheme->tokenScales)
    return std::nullopt;
  return scheme;
}

std::unique_ptr<Problem>
tessera::run::makeQuantizedMoe(const std::string &kernel, const Flags &flags) {
  std::optional<QuantizationScheme> scheme = quantizedMoeScheme(kernel);
  if (!scheme)
    return nullptr;
  return std::make_unique<MoeExpertBlock>(
      flags, kernel.substr(std::string("moe_gate_up_swiglu_").size()),
      scheme->weights, scheme->activationBlock);
}
