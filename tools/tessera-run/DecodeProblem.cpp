//===- DecodeProblem.cpp - Decode attention over a KV cache -----*- C++ -*-===//

#include "Problems.h"

#include "tessera/runtime/library.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tessera::run;

namespace {
/// attention_decode_d128 then attention_decode_combine_d128: the q_len *
/// group query rows of each (sequence, kv head) against the first len
/// positions of that sequence's cache, split along the cache. Q, O:
/// [batch * kv_heads, q_len * group, 128]; K, V: [batch * kv_heads, seq_kv,
/// 128]; all bf16. Cache positions at or past a sequence's length hold NaN:
/// a kernel that lets one into a result fails the check.
class DecodeAttention : public Problem {
public:
  static constexpr int64_t kDim = 128;

  explicit DecodeAttention(const Flags &flags)
      : kvHeads(flags.get("kv-heads", 2)), group(flags.get("group", 4)),
        qLen(flags.get("q-len", 1)), seqKv(flags.get("seq-kv", 300)),
        requestedSplits(flags.get("splits", 4)) {
    lengthsGiven = flags.has("lens");
    if (lengthsGiven) {
      // tessera-run checked the list.
      parseIntegerList(flags.text("lens", ""), lengths);
      batch = lengths.size();
    } else {
      batch = flags.get("batch", 3);
    }
    rows = qLen * group;
    // Splits of whole 64-position blocks covering the cache, as the
    // library op makes them.
    tessera::DecodeSplits ranges =
        tessera::decodeSplits(seqKv, requestedSplits);
    split = ranges.size;
    splits = ranges.count;
  }

  bool valid(std::string &why) const override {
    if (kvHeads < 1 || group < 1 || qLen < 1 || rows > 16) {
      why = "decode needs --kv-heads, --group and --q-len of at least 1, "
            "and --q-len * --group <= 16 query rows";
      return false;
    }
    if (requestedSplits < 1) {
      why = "--splits must be at least 1";
      return false;
    }
    for (int64_t length : lengths)
      if (length < 0 || length > seqKv) {
        why = "--lens takes comma-separated lengths in [0, --seq-kv]";
        return false;
      }
    if (lengthsGiven ? lengths.empty() : batch < 1) {
      why = "decode needs a sequence (--batch or --lens)";
      return false;
    }
    return true;
  }
  std::string describe() const override {
    std::string text = "batch=" + std::to_string(batch) +
                       " kv_heads=" + std::to_string(kvHeads) +
                       " group=" + std::to_string(group) +
                       " q_len=" + std::to_string(qLen) +
                       " seq_kv=" + std::to_string(seqKv) +
                       " splits=" + std::to_string(splits) + "x" +
                       std::to_string(split) + " lens=";
    for (size_t b = 0; b < lengths.size(); ++b)
      text += (b ? "," : "") + std::to_string(lengths[b]);
    return text;
  }
  void prepare(std::mt19937 &rng) override {
    if (!lengthsGiven) {
      // The first sequence fills the cache; the others have random
      // lengths that hold their new tokens.
      std::uniform_int_distribution<int64_t> length(std::min(qLen, seqKv),
                                                    seqKv);
      lengths.assign(batch, seqKv);
      for (int64_t b = 1; b < batch; ++b)
        lengths[b] = length(rng);
    }
    int64_t heads = batch * kvHeads;
    q = std::make_unique<Tensor>(std::vector<int64_t>{heads, rows, kDim}, 2);
    k = std::make_unique<Tensor>(std::vector<int64_t>{heads, seqKv, kDim}, 2);
    v = std::make_unique<Tensor>(std::vector<int64_t>{heads, seqKv, kDim}, 2);
    o = std::make_unique<Tensor>(std::vector<int64_t>{heads, rows, kDim}, 2);
    op = std::make_unique<Tensor>(
        std::vector<int64_t>{heads, splits, rows, kDim}, 4);
    lse =
        std::make_unique<Tensor>(std::vector<int64_t>{heads, splits, rows}, 4);
    seqlens = std::make_unique<Tensor>(std::vector<int64_t>{batch}, 4);
    for (int64_t b = 0; b < batch; ++b)
      seqlens->as<int32_t>()[b] = static_cast<int32_t>(lengths[b]);
    // Magnitudes per head and position, as for prefill attention.
    auto perHead = [&](int64_t count, int64_t positions, float exponent) {
      std::vector<float> scale = spreadMagnitudes(rng, count, exponent), out;
      for (int64_t h = 0; h < count; ++h)
        out.insert(out.end(), positions, scale[h]);
      return out;
    };
    fillScaledBF16(*q, rng, perHead(heads, rows, 1.0f), {});
    fillScaledBF16(*k, rng, perHead(heads, seqKv, 1.0f), {});
    fillScaledBF16(*v, rng, spreadMagnitudes(rng, heads * seqKv), {});
    for (int64_t bh = 0; bh < heads; ++bh)
      for (int64_t pos = lengths[bh / kvHeads]; pos < seqKv; ++pos)
        for (Tensor *cache : {k.get(), v.get()})
          std::fill_n(cache->as<uint16_t>() + (bh * seqKv + pos) * kDim, kDim,
                      uint16_t(0x7FC0));
    poisonBF16(*o);
    float nan = std::numeric_limits<float>::quiet_NaN();
    std::fill_n(op->as<float>(), op->elements(), nan);
    std::fill_n(lse->as<float>(), lse->elements(), nan);
  }
  tessera_status launch(Launcher &launcher) override {
    float scale = float(1.0 / std::sqrt(double(kDim)));
    void *first[] = {&q->view,   &k->view, &v->view, &seqlens->view, &op->view,
                     &lse->view, &scale,   &group,   &kvHeads,       &split};
    tessera_grid grid{splits, batch * kvHeads, 1};
    if (tessera_status status =
            launcher.launch("attention_decode_d128", grid, first))
      return status;
    void *second[] = {&op->view, &lse->view, &o->view};
    return launcher.launch("attention_decode_combine_d128",
                           {batch * kvHeads, 1, 1}, second);
  }
  void results(std::vector<double> &out, std::vector<double> &ref) override {
    out.resize(o->elements());
    ref.assign(o->elements(), 0.0);
    for (int64_t i = 0; i < o->elements(); ++i)
      out[i] = fromBF16(o->as<uint16_t>()[i]);
    double scale = float(1.0 / std::sqrt(double(kDim)));
    for (int64_t bh = 0; bh < batch * kvHeads; ++bh) {
      int64_t length = lengths[bh / kvHeads];
      // New token t sees the positions below length - q_len + t + 1.
      for (int64_t r = 0; r < rows; ++r)
        attendRow(q->as<uint16_t>() + (bh * rows + r) * kDim,
                  k->as<uint16_t>() + bh * seqKv * kDim,
                  v->as<uint16_t>() + bh * seqKv * kDim,
                  std::clamp<int64_t>(length - qLen + r / group + 1, 0, length),
                  kDim, scale, &ref[(bh * rows + r) * kDim]);
    }
  }
  // P is rounded to bf16 before P·V, as in prefill attention.
  double tolerance() const override { return 1e-2; }
  int64_t rowLength() const override { return kDim; }
  double flops() const override {
    double positions = 0;
    for (int64_t length : lengths)
      positions += double(length);
    return 4.0 * kvHeads * rows * positions * kDim;
  }

private:
  int64_t kvHeads, group, qLen, seqKv, requestedSplits;
  int64_t batch = 0, rows = 0, split = 64, splits = 1;
  bool lengthsGiven = false;
  std::vector<int64_t> lengths;
  std::unique_ptr<Tensor> q, k, v, o, op, lse, seqlens;
};

const bool registered =
    registerProblem<DecodeAttention>("attention_decode_d128");
} // namespace
