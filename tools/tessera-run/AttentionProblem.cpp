//===- AttentionProblem.cpp - FlashAttention forward ------------*- C++ -*-===//

#include "Problems.h"

#include <algorithm>
#include <cmath>

using namespace tessera::run;

namespace {
/// O = softmax(Q Kᵀ / sqrt(D) [causal]) V per head, GQA by head mapping
/// (flash_attention_fwd: D = 64; flash_attention_fwd_d128: D = 128;
/// flash_attention_fwd_m64: D = 64 on 64 query rows a program). Q, O:
/// [batch * heads, seq_q, D]; K, V: [batch * kv_heads, seq_kv, D]; all
/// bf16.
class FlashAttention : public Problem {
public:
  explicit FlashAttention(const Flags &flags,
                          std::string kernel = "flash_attention_fwd",
                          int64_t headDim = 64, int64_t rowsPerProgram = 128)
      : kernel(std::move(kernel)), dim(headDim), rows(rowsPerProgram),
        batch(flags.get("batch", 1)), heads(flags.get("heads", 4)),
        kvHeads(flags.get("kv-heads", 2)), seqQ(flags.get("seq-q", 200)),
        seqKv(flags.get("seq-kv", 200)), causal(flags.get("causal", 1) != 0),
        q({batch * heads, seqQ, dim}, 2), k({batch * kvHeads, seqKv, dim}, 2),
        v({batch * kvHeads, seqKv, dim}, 2), o({batch * heads, seqQ, dim}, 2) {}

  bool valid(std::string &why) const override {
    if (kvHeads < 1 || heads % kvHeads) {
      why = "--heads must be a multiple of --kv-heads";
      return false;
    }
    return true;
  }
  std::string describe() const override {
    return "batch=" + std::to_string(batch) +
           " heads=" + std::to_string(heads) +
           " kv_heads=" + std::to_string(kvHeads) +
           " seq_q=" + std::to_string(seqQ) +
           " seq_kv=" + std::to_string(seqKv) +
           " head_dim=" + std::to_string(dim) + (causal ? " causal" : "");
  }
  void prepare(std::mt19937 &rng) override {
    // Queries and keys get a magnitude per head in 2^-1..2^1 (the softmax
    // sharpens or flattens per head); values one per kv head and position
    // in 2^-4..2^4, so that rows read from the wrong head, position or
    // causal range change the output.
    auto perHead = [&](int64_t heads, int64_t positions) {
      std::vector<float> scale = spreadMagnitudes(rng, heads, 1.0f), rows;
      for (int64_t h = 0; h < heads; ++h)
        rows.insert(rows.end(), positions, scale[h]);
      return rows;
    };
    fillScaledBF16(q, rng, perHead(batch * heads, seqQ), {});
    fillScaledBF16(k, rng, perHead(batch * kvHeads, seqKv), {});
    fillScaledBF16(v, rng, spreadMagnitudes(rng, batch * kvHeads * seqKv), {});
    poisonBF16(o);
  }
  tessera_status launch(Launcher &launcher) override {
    float scale = float(1.0 / std::sqrt(double(dim)));
    int64_t group = heads / kvHeads;
    uint8_t isCausal = causal;
    void *args[] = {&q.view, &k.view, &v.view,  &o.view,
                    &scale,  &group,  &isCausal};
    tessera_grid grid{(seqQ + rows - 1) / rows, batch * heads, 1};
    return launcher.launch(kernel, grid, args);
  }
  void results(std::vector<double> &out, std::vector<double> &ref) override {
    out.resize(o.elements());
    ref.assign(o.elements(), 0.0);
    for (int64_t i = 0; i < o.elements(); ++i)
      out[i] = fromBF16(o.as<uint16_t>()[i]);
    int64_t group = heads / kvHeads;
    // The scale the kernel is given, rounded to f32.
    double scale = float(1.0 / std::sqrt(double(dim)));
    for (int64_t bh = 0; bh < batch * heads; ++bh) {
      int64_t kvh = bh / group;
      for (int64_t i = 0; i < seqQ; ++i)
        attendRow(q.as<uint16_t>() + (bh * seqQ + i) * dim,
                  k.as<uint16_t>() + kvh * seqKv * dim,
                  v.as<uint16_t>() + kvh * seqKv * dim,
                  causal ? std::min(seqKv, i + 1) : seqKv, dim, scale,
                  &ref[(bh * seqQ + i) * dim]);
    }
  }
  // P is rounded to bf16 before P·V, as FlashAttention kernels do.
  double tolerance() const override { return 1e-2; }
  int64_t rowLength() const override { return o.view.sizes[o.view.rank - 1]; }
  double flops() const override {
    double pairs = double(seqQ) * seqKv * (causal ? 0.5 : 1.0);
    return 4.0 * batch * heads * pairs * dim;
  }

private:
  std::string kernel;
  int64_t dim, rows, batch, heads, kvHeads, seqQ, seqKv;
  bool causal;
  Tensor q, k, v, o;
};

/// Head dimension 128 (flash_attention_fwd_d128.mlir).
class FlashAttention128 : public FlashAttention {
public:
  explicit FlashAttention128(const Flags &flags)
      : FlashAttention(flags, "flash_attention_fwd_d128", 128) {}
};

/// 64 query rows a program (flash_attention_fwd_m64.mlir).
class FlashAttention64Rows : public FlashAttention {
public:
  explicit FlashAttention64Rows(const Flags &flags)
      : FlashAttention(flags, "flash_attention_fwd_m64", 64, 64) {}
};

const bool registered =
    registerProblem<FlashAttention>("flash_attention_fwd") &&
    registerProblem<FlashAttention128>("flash_attention_fwd_d128") &&
    registerProblem<FlashAttention64Rows>("flash_attention_fwd_m64");
} // namespace
