//===- MoeProblem.cpp - The MoE expert block --------------------*- C++ -*-===//

#include "Problems.h"

#include "tessera/runtime/library.hpp"

#include <algorithm>
#include <numeric>

using namespace tessera::run;

namespace {
constexpr int64_t kBlock = 64; // rows per block in moe_expert_block.mlir

/// Routing (top-k of a softmax over random logits, renormalized) and
/// alignment (slots sorted by expert, each expert's run padded to 64 rows
/// with the sentinel T * topk) on the host; then the two kernels of
/// moe_expert_block.mlir: gate+up with SwiGLU, down with the weighted
/// atomic combine into Out (f32, zeroed first).
class MoeExpertBlock : public Problem {
public:
  explicit MoeExpertBlock(const Flags &flags)
      : tokens(flags.get("tokens", 100)), experts(flags.get("experts", 8)),
        topk(flags.get("topk", 2)), hidden(flags.get("hidden", 128)),
        inter(flags.get("inter", 128)), x({tokens, hidden}, 2),
        w13({experts, 2 * inter, hidden}, 2), w2({experts, hidden, inter}, 2),
        out({tokens, hidden}, 4) {}

  bool valid(std::string &why) const override {
    if (topk < 1 || topk > experts) {
      why = "--topk must be between 1 and --experts";
      return false;
    }
    return tokens > 0 && hidden > 0 && inter > 0;
  }
  std::string describe() const override {
    return "tokens=" + std::to_string(tokens) +
           " experts=" + std::to_string(experts) +
           " topk=" + std::to_string(topk) +
           " hidden=" + std::to_string(hidden) +
           " inter=" + std::to_string(inter) + ", " +
           std::to_string(emptyExperts) + " experts without tokens";
  }

  void prepare(std::mt19937 &rng) override {
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    fillRandomBF16(x, rng);
    fillRandomBF16(w13, rng, 0.2f);
    fillRandomBF16(w2, rng, 0.2f);
    // Router: softmax over logits, top-k, weights renormalized. Experts
    // past the first half get low logits so some receive no token.
    topkIds.assign(tokens * topk, 0);
    topkWeights.assign(tokens * topk, 0.0f);
    for (int64_t t = 0; t < tokens; ++t) {
      std::vector<double> p(experts);
      for (int64_t e = 0; e < experts; ++e)
        p[e] = std::exp(3.0 * dist(rng) - (e >= (experts + 1) / 2 ? 50.0 : 0));
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
    slots = static_cast<int64_t>(sortedIds.size());
    h = std::make_unique<Tensor>(std::vector<int64_t>{slots, inter}, 2);
    poisonBF16(*h);
    std::fill(out.as<float>(), out.as<float>() + out.elements(), 0.0f);
  }

  tessera_status launch(tessera_module *module) override {
    std::fill(out.as<float>(), out.as<float>() + out.elements(), 0.0f);
    // Gate and up projections are the two halves of the fused weight.
    tessera_view gate = w13.view, up = w13.view;
    gate.sizes[1] = up.sizes[1] = inter;
    up.data = w13.as<uint16_t>() + inter * hidden;
    tessera_view ids = tessera::view(sortedIds.data(), {slots});
    tessera_view blockExperts = tessera::view(
        expertIds.data(), {static_cast<int64_t>(expertIds.size())});
    tessera_view routed = tessera::view(topkIds.data(), {tokens * topk});
    tessera_view weights = tessera::view(topkWeights.data(), {tokens * topk});
    int32_t k32 = static_cast<int32_t>(topk);
    int64_t blocks = slots / kBlock;
    if (blocks == 0)
      return TESSERA_SUCCESS;
    void *first[] = {&x.view, &gate,         &up,     &h->view,
                     &ids,    &blockExperts, &routed, &k32};
    tessera_grid grid1{blocks, (inter + 63) / 64, 1};
    if (tessera_status status =
            tesseraLaunch(module, "moe_gate_up_swiglu", grid1, first))
      return status;
    void *second[] = {&h->view, &w2.view,      &out.view, &weights,
                      &ids,     &blockExperts, &routed,   &k32};
    tessera_grid grid2{blocks, (hidden + 63) / 64, 1};
    return tesseraLaunch(module, "moe_down_combine", grid2, second);
  }

  void results(std::vector<double> &result, std::vector<double> &ref) override {
    result.assign(out.as<float>(), out.as<float>() + out.elements());
    ref.assign(tokens * hidden, 0.0);
    auto bf = [](const Tensor &t, int64_t i) {
      return double(
          fromBF16(reinterpret_cast<const uint16_t *>(t.bytes.data())[i]));
    };
    std::vector<double> act(inter);
    for (int64_t t = 0; t < tokens; ++t)
      for (int64_t j = 0; j < topk; ++j) {
        int64_t e = topkIds[t * topk + j];
        for (int64_t i = 0; i < inter; ++i) {
          double g = 0, u = 0;
          for (int64_t d = 0; d < hidden; ++d) {
            double xv = bf(x, t * hidden + d);
            g += xv * bf(w13, (e * 2 * inter + i) * hidden + d);
            u += xv * bf(w13, (e * 2 * inter + inter + i) * hidden + d);
          }
          act[i] = g / (1 + std::exp(-g)) * u;
        }
        for (int64_t d = 0; d < hidden; ++d) {
          double y = 0;
          for (int64_t i = 0; i < inter; ++i)
            y += act[i] * bf(w2, (e * hidden + d) * inter + i);
          ref[t * hidden + d] += topkWeights[t * topk + j] * y;
        }
      }
  }
  // The intermediate activation is stored as bf16 between the kernels.
  double tolerance() const override { return 1e-2; }
  double flops() const override {
    return 2.0 * tokens * topk * (3.0 * hidden * inter);
  }

private:
  int64_t tokens, experts, topk, hidden, inter;
  Tensor x, w13, w2, out;
  std::unique_ptr<Tensor> h;
  std::vector<int32_t> topkIds, sortedIds, expertIds;
  std::vector<float> topkWeights;
  int64_t slots = 0, emptyExperts = 0;
};

const bool registered = registerProblem<MoeExpertBlock>("moe_gate_up_swiglu");
} // namespace
