//===- LibraryOpsTest.cpp - gemm, attention and moe library ops -*- C++ -*-===//
//
// The library ops on the shipped kernels (Tessera::kernels) against small
// float64 references, and their errors for unsupported combinations, on the
// host and on the emulator (the shipped sm_80 images).
//
//===----------------------------------------------------------------------===//

#include "tessera/runtime/shipped_kernels.hpp"

#include "Devices.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {
uint16_t bf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return static_cast<uint16_t>((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16);
}
float fromBF16(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}
std::vector<uint16_t> randomBF16(size_t n, std::mt19937 &rng, float scale = 1) {
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<uint16_t> out(n);
  for (uint16_t &x : out)
    x = bf16(dist(rng));
  return out;
}
double relativeError(const std::vector<double> &out,
                     const std::vector<double> &ref) {
  double diff = 0, norm = 0;
  for (size_t i = 0; i < out.size(); ++i) {
    diff += (out[i] - ref[i]) * (out[i] - ref[i]);
    norm += ref[i] * ref[i];
  }
  return std::sqrt(diff / norm);
}

using tessera::test::Where;

class LibraryOps : public ::testing::TestWithParam<Where> {
protected:
  void SetUp() override {
    device = tessera::Device::open(GetParam().kind);
    if (GetParam().chip)
      ASSERT_EQ(tesseraEmulatorSetChip(device.get(), GetParam().chip),
                TESSERA_SUCCESS)
          << tessera::error();
    // Every bundle (GEMMs and attention, the MoE block, the three
    // quantized GEMMs, the two quantized MoE blocks) has an image for the
    // host and for the emulator of each GPU target.
    ASSERT_EQ(tessera::addShippedKernels(library, device), 7)
        << tessera::error();
    ASSERT_NE(library.find("gemm_bf16"), nullptr) << tessera::error();
  }
  tessera::Device device;
  tessera::KernelLibrary library;
  std::mt19937 rng{3};
};

/// C = A B through the library's GEMM against a float64 reference.
void checkGemm(tessera::KernelLibrary &library, std::mt19937 &rng, int64_t m,
               int64_t n, int64_t k) {
  auto a = randomBF16(m * k, rng), b = randomBF16(k * n, rng);
  std::vector<uint16_t> c(m * n, 0x7FC0);
  ASSERT_EQ(tessera::gemm(library,
                          tessera::view(a.data(), {m, k}, TESSERA_DTYPE_BF16),
                          tessera::view(b.data(), {k, n}, TESSERA_DTYPE_BF16),
                          tessera::view(c.data(), {m, n}, TESSERA_DTYPE_BF16)),
            TESSERA_SUCCESS)
      << tessera::error();
  std::vector<double> out(m * n), ref(m * n, 0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p)
        ref[i * n + j] +=
            double(fromBF16(a[i * k + p])) * fromBF16(b[p * n + j]);
      out[i * n + j] = fromBF16(c[i * n + j]);
    }
  EXPECT_LT(relativeError(out, ref), 1e-2);
}

TEST_P(LibraryOps, GemmMatchesReference) {
  checkGemm(library, rng, 70, 90, 50);
}

TEST_P(LibraryOps, GemmOfAlignedRowsMatchesReference) {
  // Rows of 16-byte multiples (A 128 bytes, B 272): on sm_90a both operands
  // are copied by TMA from the tensor maps the runtime encodes (the ragged
  // M and N edges zero-filled by it); GemmMatchesReference's odd rows take
  // the kernel's own copies instead.
  checkGemm(library, rng, 70, 136, 64);
}

TEST_P(LibraryOps, Int4GemmWithPrepackedWeights) {
  const int64_t m = 40, n = 33, k = 256;
  auto a = randomBF16(m * k, rng);
  std::vector<int8_t> codes(k * n);
  std::uniform_int_distribution<int> code(-8, 7);
  for (int8_t &c : codes)
    c = static_cast<int8_t>(code(rng));
  std::vector<uint8_t> packed = tessera::packInt4(codes.data(), k, n);
  ASSERT_EQ(packed.size(), static_cast<size_t>(k * ((n + 1) / 2)));
  EXPECT_EQ(packed[0] & 0xF, static_cast<uint8_t>(codes[0]) & 0xF);
  EXPECT_EQ(packed[0] >> 4, static_cast<uint8_t>(codes[1]) & 0xF);
  std::vector<uint16_t> scales(2 * n, 0x2E66); // f16 0.1
  std::vector<uint16_t> c(m * n, 0x7FC0);
  tessera_view w = tessera::view(packed.data(), {k, n}, TESSERA_DTYPE_I4);
  w.strides[0] = (n + 1) / 2; // bytes per row
  ASSERT_EQ(tessera::gemmInt4(
                library, tessera::view(a.data(), {m, k}, TESSERA_DTYPE_BF16), w,
                tessera::view(scales.data(), {2, n}, TESSERA_DTYPE_F16),
                tessera::view(c.data(), {m, n}, TESSERA_DTYPE_BF16)),
            TESSERA_SUCCESS)
      << tessera::error();
  std::vector<double> out(m * n), ref(m * n, 0);
  const double scale = 0.0999755859375; // f16 0x2E66
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t p = 0; p < k; ++p)
        ref[i * n + j] += double(fromBF16(a[i * k + p])) *
                          fromBF16(bf16(float(codes[p * n + j] * scale)));
      out[i * n + j] = fromBF16(c[i * n + j]);
    }
  EXPECT_LT(relativeError(out, ref), 1e-2);
}

/// gemmQuantized for each shipped scheme, on weights quantizeWeights made,
/// against a float64 product with the dequantized weights (rounded to bf16,
/// as the kernels round them before the MMA).
TEST_P(LibraryOps, QuantizedGemmsMatchTheirDequantizedWeights) {
  using Format = tessera::WeightQuantization::Format;
  const int64_t m = 70, n = 150, k = 200;
  for (tessera::WeightQuantization scheme :
       {tessera::WeightQuantization{Format::Int8, 0, false},
        tessera::WeightQuantization{Format::Fp8, 128, false},
        tessera::WeightQuantization{Format::Int4, 64, true},
        tessera::WeightQuantization{Format::Int4, 128, false}}) {
    auto a = randomBF16(m * k, rng);
    std::vector<float> real(k * n);
    std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
    for (float &x : real)
      x = dist(rng);
    tessera::QuantizedWeights q =
        tessera::quantizeWeights(real.data(), k, n, scheme);
    bool int4 = scheme.format == Format::Int4,
         fp8 = scheme.format == Format::Fp8;
    tessera::QuantizedWeightViews w;
    w.scheme = scheme;
    w.codes = tessera::view(q.codes.data(), {k, n},
                            int4  ? TESSERA_DTYPE_I4
                            : fp8 ? TESSERA_DTYPE_F8E4M3FN
                                  : TESSERA_DTYPE_I8);
    if (int4)
      w.codes.strides[0] = (n + 1) / 2; // bytes per row
    w.scales =
        fp8 ? tessera::view(q.blockScales.data(),
                            {q.groups(), q.blockColumns()}, TESSERA_DTYPE_F32)
            : tessera::view(q.scales.data(), {q.groups(), n},
                            TESSERA_DTYPE_F16);
    if (scheme.zeroPoints)
      w.zeros =
          tessera::view(q.zeros.data(), {q.groups(), n}, TESSERA_DTYPE_F16);
    std::vector<uint16_t> c(m * n, 0x7FC0);
    ASSERT_EQ(tessera::gemmQuantized(
                  library, tessera::view(a.data(), {m, k}, TESSERA_DTYPE_BF16),
                  w, tessera::view(c.data(), {m, n}, TESSERA_DTYPE_BF16)),
              TESSERA_SUCCESS)
        << tessera::error();
    std::vector<double> out(m * n), ref(m * n, 0);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        for (int64_t p = 0; p < k; ++p)
          ref[i * n + j] += double(fromBF16(a[i * k + p])) *
                            fromBF16(bf16(q.dequantized(p, j)));
        out[i * n + j] = fromBF16(c[i * n + j]);
      }
    EXPECT_LT(relativeError(out, ref), 1e-2)
        << "format " << int(scheme.format) << " group " << scheme.group;
  }
  // A scheme no shipped kernel covers, and scales of the wrong shape.
  std::vector<uint16_t> h(64 * 64);
  tessera_view a = tessera::view(h.data(), {64, 64}, TESSERA_DTYPE_BF16);
  tessera::QuantizedWeightViews w;
  w.scheme = {Format::Int4, 32, false};
  EXPECT_EQ(tessera::gemmQuantized(library, a, w, a),
            TESSERA_ERROR_UNSUPPORTED);
  EXPECT_NE(tessera::error().find("no shipped quantized GEMM for this scheme"),
            std::string::npos);
  std::vector<int8_t> codes(64 * 64);
  w.scheme = {Format::Int8, 0, false};
  w.codes = tessera::view(codes.data(), {64, 64}, TESSERA_DTYPE_I8);
  w.scales = tessera::view(h.data(), {2, 64}, TESSERA_DTYPE_F16);
  EXPECT_EQ(tessera::gemmQuantized(library, a, w, a),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(tessera::error().find("scales need [1, 64]"), std::string::npos)
      << tessera::error();
}

TEST_P(LibraryOps, AttentionMatchesReference) {
  // Each shipped head dimension; causal, two query heads sharing a kv head.
  for (int64_t dim : {64, 128}) {
    const int64_t heads = 2, kvHeads = 1, seq = 70;
    const float scale = float(1.0 / std::sqrt(double(dim)));
    auto q = randomBF16(heads * seq * dim, rng),
         k = randomBF16(kvHeads * seq * dim, rng),
         v = randomBF16(kvHeads * seq * dim, rng);
    std::vector<uint16_t> o(heads * seq * dim, 0x7FC0);
    auto view3 = [&](std::vector<uint16_t> &t, int64_t h) {
      return tessera::view(t.data(), {h, seq, dim}, TESSERA_DTYPE_BF16);
    };
    ASSERT_EQ(tessera::attention(library, view3(q, heads), view3(k, kvHeads),
                                 view3(v, kvHeads), view3(o, heads),
                                 /*causal=*/true, scale),
              TESSERA_SUCCESS)
        << tessera::error();
    std::vector<double> out, ref;
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t i = 0; i < seq; ++i) {
        std::vector<double> s(i + 1);
        double best = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= i; ++j) {
          double dot = 0;
          for (int64_t d = 0; d < dim; ++d)
            dot += double(fromBF16(q[(h * seq + i) * dim + d])) *
                   fromBF16(k[j * dim + d]);
          best = std::max(best, s[j] = dot * scale);
        }
        for (double &x : s)
          sum += x = std::exp(x - best);
        for (int64_t d = 0; d < dim; ++d) {
          double acc = 0;
          for (int64_t j = 0; j <= i; ++j)
            acc += s[j] / sum * fromBF16(v[j * dim + d]);
          ref.push_back(acc);
          out.push_back(fromBF16(o[(h * seq + i) * dim + d]));
        }
      }
    EXPECT_LT(relativeError(out, ref), 1e-2) << "head dim " << dim;
  }
  // Head dimensions that differ, or that no kernel has, are refused.
  std::vector<uint16_t> t(2 * 8 * 128);
  tessera_view d128 = tessera::view(t.data(), {2, 8, 128}, TESSERA_DTYPE_BF16),
               d64 = tessera::view(t.data(), {2, 8, 64}, TESSERA_DTYPE_BF16),
               d96 = tessera::view(t.data(), {2, 8, 96}, TESSERA_DTYPE_BF16);
  EXPECT_EQ(tessera::attention(library, d128, d64, d64, d128, false, 1.0f),
            TESSERA_ERROR_UNSUPPORTED);
  EXPECT_EQ(tessera::attention(library, d96, d96, d96, d96, false, 1.0f),
            TESSERA_ERROR_UNSUPPORTED);
  EXPECT_NE(tessera::error().find("d = 64 or 128"), std::string::npos)
      << tessera::error();
}

TEST_P(LibraryOps, DecodeAttentionMatchesReference) {
  // Three sequences (empty, ragged, the whole cache) of two kv heads with
  // four query heads each and two new tokens; cache positions past a
  // length hold NaN, which no result may read.
  const int64_t dim = 128, kvHeads = 2, group = 4, qLen = 2, maxLen = 130;
  const int64_t rows = qLen * group, heads = 3 * kvHeads;
  std::vector<int32_t> lengths = {0, 70, 130};
  const float scale = float(1.0 / std::sqrt(double(dim)));
  auto q = randomBF16(heads * rows * dim, rng),
       k = randomBF16(heads * maxLen * dim, rng),
       v = randomBF16(heads * maxLen * dim, rng);
  for (int64_t bh = 0; bh < heads; ++bh)
    for (int64_t pos = lengths[bh / kvHeads]; pos < maxLen; ++pos)
      for (auto *cache : {&k, &v})
        std::fill_n(cache->data() + (bh * maxLen + pos) * dim, dim, 0x7FC0);
  std::vector<double> ref;
  for (int64_t bh = 0; bh < heads; ++bh)
    for (int64_t r = 0; r < rows; ++r) {
      int64_t seen =
          std::max<int64_t>(lengths[bh / kvHeads] - qLen + r / group + 1, 0);
      std::vector<double> s(seen);
      double best = -INFINITY, sum = 0;
      for (int64_t j = 0; j < seen; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < dim; ++d)
          dot += double(fromBF16(q[(bh * rows + r) * dim + d])) *
                 fromBF16(k[(bh * maxLen + j) * dim + d]);
        best = std::max(best, s[j] = dot * scale);
      }
      for (double &x : s)
        sum += x = std::exp(x - best);
      for (int64_t d = 0; d < dim; ++d) {
        double acc = 0;
        for (int64_t j = 0; j < seen; ++j)
          acc += s[j] / sum * fromBF16(v[(bh * maxLen + j) * dim + d]);
        ref.push_back(acc);
      }
    }
  auto view3 = [&](std::vector<uint16_t> &t, int64_t n) {
    return tessera::view(t.data(), {heads, n, dim}, TESSERA_DTYPE_BF16);
  };
  tessera_view seqlens = tessera::view(lengths.data(), {3}, TESSERA_DTYPE_I32);
  // Splits chosen by the op, one split, and a split per block.
  for (int64_t splits : {0, 1, 3}) {
    std::vector<uint16_t> o(heads * rows * dim, 0x7FC0);
    ASSERT_EQ(tessera::attentionDecode(library, device, view3(q, rows),
                                       view3(k, maxLen), view3(v, maxLen),
                                       seqlens, view3(o, rows), group, scale,
                                       splits),
              TESSERA_SUCCESS)
        << tessera::error();
    std::vector<double> out;
    for (uint16_t bits : o)
      out.push_back(fromBF16(bits));
    EXPECT_LT(relativeError(out, ref), 1e-2) << splits << " splits";
    // The empty sequence's rows are zeros.
    EXPECT_EQ(
        *std::max_element(out.begin(), out.begin() + kvHeads * rows * dim),
        0.0);
  }
  // More than 16 rows, rows that are not whole groups, i64 lengths.
  std::vector<uint16_t> t(heads * 17 * dim);
  EXPECT_EQ(tessera::attentionDecode(library, device, view3(t, 17),
                                     view3(k, maxLen), view3(v, maxLen),
                                     seqlens, view3(t, 17), 1, scale),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(tessera::error().find("1 to 16 query rows"), std::string::npos)
      << tessera::error();
  EXPECT_EQ(tessera::attentionDecode(library, device, view3(t, 6),
                                     view3(k, maxLen), view3(v, maxLen),
                                     seqlens, view3(t, 6), 4, scale),
            TESSERA_ERROR_INVALID_ARGUMENT);
  std::vector<int64_t> wide(3);
  EXPECT_EQ(tessera::attentionDecode(
                library, device, view3(q, rows), view3(k, maxLen),
                view3(v, maxLen),
                tessera::view(wide.data(), {3}, TESSERA_DTYPE_I64),
                view3(q, rows), group, scale),
            TESSERA_ERROR_UNSUPPORTED);
  EXPECT_NE(tessera::error().find("i32 [batch] sequence lengths"),
            std::string::npos)
      << tessera::error();
}

TEST_P(LibraryOps, MoeAlignmentPadsRunsAndSkipsEmptyExperts) {
  // 3 tokens, top-2 over 4 experts; expert 2 gets nothing.
  std::vector<int32_t> ids = {0, 1, 1, 3, 0, 3};
  tessera::MoeAlignment a = tessera::alignMoe(ids.data(), 3, 2, 4, 4);
  EXPECT_EQ(a.expertIds, (std::vector<int32_t>{0, 1, 3}));
  EXPECT_EQ(a.sortedIds,
            (std::vector<int32_t>{0, 4, 6, 6, 1, 2, 6, 6, 3, 5, 6, 6}));
}

/// The float64 MoE block: sum over each token's experts e of its weight
/// times down_e(silu(gate_e x) * up_e x), the activations rounded to bf16
/// as the kernels' H is; gate(e, i, d), up(e, i, d) and down(e, d, i) give
/// the weights the kernels multiply by.
template <typename Gate, typename Up, typename Down>
std::vector<double>
moeReference(const std::vector<uint16_t> &x, const std::vector<int32_t> &ids,
             const std::vector<float> &weights, int64_t hidden, int64_t inter,
             Gate gate, Up up, Down down) {
  int64_t tokens = int64_t(x.size()) / hidden,
          topk = int64_t(ids.size()) / tokens;
  std::vector<double> ref(tokens * hidden, 0);
  for (int64_t t = 0; t < tokens; ++t)
    for (int64_t j = 0; j < topk; ++j) {
      int64_t e = ids[t * topk + j];
      std::vector<double> act(inter);
      for (int64_t i = 0; i < inter; ++i) {
        double g = 0, u = 0;
        for (int64_t d = 0; d < hidden; ++d) {
          double xv = fromBF16(x[t * hidden + d]);
          g += xv * gate(e, i, d);
          u += xv * up(e, i, d);
        }
        act[i] = fromBF16(bf16(float(g / (1 + std::exp(-g)) * u)));
      }
      for (int64_t d = 0; d < hidden; ++d) {
        double y = 0;
        for (int64_t i = 0; i < inter; ++i)
          y += act[i] * down(e, d, i);
        ref[t * hidden + d] += weights[t * topk + j] * y;
      }
    }
  return ref;
}

TEST_P(LibraryOps, MoeMatchesReference) {
  const int64_t tokens = 20, experts = 4, topk = 2, hidden = 64, inter = 64;
  auto x = randomBF16(tokens * hidden, rng);
  auto w13 = randomBF16(experts * 2 * inter * hidden, rng, 0.2f);
  auto w2 = randomBF16(experts * hidden * inter, rng, 0.2f);
  std::vector<int32_t> ids(tokens * topk);
  std::vector<float> weights(tokens * topk);
  for (int64_t t = 0; t < tokens; ++t) {
    ids[t * 2] = static_cast<int32_t>(t % 3); // expert 3 stays empty
    ids[t * 2 + 1] = static_cast<int32_t>((t + 1) % 3);
    weights[t * 2] = 0.75f;
    weights[t * 2 + 1] = 0.25f;
  }
  std::vector<float> out(tokens * hidden, NAN);
  ASSERT_EQ(
      tessera::moe(
          library, device,
          tessera::view(x.data(), {tokens, hidden}, TESSERA_DTYPE_BF16),
          tessera::view(w13.data(), {experts, 2 * inter, hidden},
                        TESSERA_DTYPE_BF16),
          tessera::view(w2.data(), {experts, hidden, inter},
                        TESSERA_DTYPE_BF16),
          tessera::view(ids.data(), {tokens, topk}, TESSERA_DTYPE_I32),
          tessera::view(weights.data(), {tokens, topk}, TESSERA_DTYPE_F32),
          tessera::view(out.data(), {tokens, hidden}, TESSERA_DTYPE_F32)),
      TESSERA_SUCCESS)
      << tessera::error();
  std::vector<double> got(out.begin(), out.end());
  std::vector<double> ref = moeReference(
      x, ids, weights, hidden, inter,
      [&](int64_t e, int64_t i, int64_t d) {
        return fromBF16(w13[(e * 2 * inter + i) * hidden + d]);
      },
      [&](int64_t e, int64_t i, int64_t d) {
        return fromBF16(w13[(e * 2 * inter + inter + i) * hidden + d]);
      },
      [&](int64_t e, int64_t d, int64_t i) {
        return fromBF16(w2[(e * hidden + d) * inter + i]);
      });
  EXPECT_LT(relativeError(got, ref), 1e-2);
}

/// One weight of every expert, [E, n, k] with random values, quantized
/// expert by expert as moeQuantized takes it.
struct QuantizedExperts {
  std::vector<tessera::QuantizedWeights> experts;
  std::vector<uint8_t> codes;
  std::vector<uint16_t> scales;
  std::vector<float> blocks;
  tessera::QuantizedExpertViews views;

  QuantizedExperts(std::mt19937 &rng, int64_t e, int64_t n, int64_t k,
                   tessera::WeightQuantization scheme) {
    scheme.transposed = true;
    std::uniform_real_distribution<float> dist(-0.2f, 0.2f);
    std::vector<float> real(n * k);
    for (int64_t i = 0; i < e; ++i) {
      for (float &x : real)
        x = dist(rng);
      experts.push_back(tessera::quantizeWeights(real.data(), n, k, scheme));
      const tessera::QuantizedWeights &q = experts.back();
      codes.insert(codes.end(), q.codes.begin(), q.codes.end());
      scales.insert(scales.end(), q.scales.begin(), q.scales.end());
      blocks.insert(blocks.end(), q.blockScales.begin(), q.blockScales.end());
    }
    bool fp8 = scheme.format == tessera::WeightQuantization::Format::Fp8;
    const tessera::QuantizedWeights &q = experts.front();
    views.codes =
        tessera::view(codes.data(), {e, n, k},
                      fp8 ? TESSERA_DTYPE_F8E4M3FN : TESSERA_DTYPE_I8);
    views.scales =
        fp8 ? tessera::view(blocks.data(), {e, q.groups(), q.blockColumns()},
                            TESSERA_DTYPE_F32)
            : tessera::view(scales.data(), {e, n, 1}, TESSERA_DTYPE_F16);
  }
  /// The weight the kernels multiply by: dequantized, rounded to bf16.
  double at(int64_t e, int64_t row, int64_t col) const {
    return fromBF16(bf16(experts[e].dequantized(row, col)));
  }
};

/// moeQuantized with int8 per-channel and fp8 block-scaled experts against
/// a float64 MoE over the dequantized weights.
TEST_P(LibraryOps, QuantizedMoeMatchesItsDequantizedExperts) {
  using Format = tessera::WeightQuantization::Format;
  const int64_t tokens = 20, experts = 4, topk = 2, hidden = 64, inter = 96;
  for (tessera::WeightQuantization scheme :
       {tessera::WeightQuantization{Format::Int8, 0, false},
        tessera::WeightQuantization{Format::Fp8, 128, false}}) {
    auto x = randomBF16(tokens * hidden, rng);
    QuantizedExperts gate(rng, experts, inter, hidden, scheme),
        up(rng, experts, inter, hidden, scheme),
        down(rng, experts, hidden, inter, scheme);
    std::vector<int32_t> ids(tokens * topk);
    std::vector<float> weights(tokens * topk);
    for (int64_t t = 0; t < tokens; ++t) {
      ids[t * 2] = static_cast<int32_t>(t % 3); // expert 3 stays empty
      ids[t * 2 + 1] = static_cast<int32_t>((t + 2) % 4 == 3 ? 0 : (t + 2) % 4);
      weights[t * 2] = 0.6f;
      weights[t * 2 + 1] = 0.4f;
    }
    std::vector<float> out(tokens * hidden, NAN);
    ASSERT_EQ(
        tessera::moeQuantized(
            library, device, scheme,
            tessera::view(x.data(), {tokens, hidden}, TESSERA_DTYPE_BF16),
            gate.views, up.views, down.views,
            tessera::view(ids.data(), {tokens, topk}, TESSERA_DTYPE_I32),
            tessera::view(weights.data(), {tokens, topk}, TESSERA_DTYPE_F32),
            tessera::view(out.data(), {tokens, hidden}, TESSERA_DTYPE_F32)),
        TESSERA_SUCCESS)
        << tessera::error();
    std::vector<double> got(out.begin(), out.end());
    std::vector<double> ref = moeReference(
        x, ids, weights, hidden, inter,
        [&](int64_t e, int64_t i, int64_t d) { return gate.at(e, i, d); },
        [&](int64_t e, int64_t i, int64_t d) { return up.at(e, i, d); },
        [&](int64_t e, int64_t d, int64_t i) { return down.at(e, d, i); });
    EXPECT_LT(relativeError(got, ref), 1e-2) << "format " << int(scheme.format);
  }
  // A scheme without a shipped kernel, and a down weight of the wrong shape.
  std::vector<uint16_t> x(tokens * hidden);
  std::vector<int32_t> ids(tokens * topk, 0);
  std::vector<float> weights(tokens * topk), out(tokens * hidden);
  tessera::WeightQuantization int8{Format::Int8, 0, false};
  QuantizedExperts gate(rng, experts, inter, hidden, int8),
      wrong(rng, experts, inter, hidden, int8);
  auto call = [&](tessera::WeightQuantization scheme) {
    return tessera::moeQuantized(
        library, device, scheme,
        tessera::view(x.data(), {tokens, hidden}, TESSERA_DTYPE_BF16),
        gate.views, gate.views, wrong.views,
        tessera::view(ids.data(), {tokens, topk}, TESSERA_DTYPE_I32),
        tessera::view(weights.data(), {tokens, topk}, TESSERA_DTYPE_F32),
        tessera::view(out.data(), {tokens, hidden}, TESSERA_DTYPE_F32));
  };
  EXPECT_EQ(call({Format::Int4, 32, false}), TESSERA_ERROR_UNSUPPORTED);
  EXPECT_NE(tessera::error().find("no shipped quantized MoE for this scheme"),
            std::string::npos);
  EXPECT_EQ(call(int8), TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(tessera::error().find("quantized MoE shapes do not agree"),
            std::string::npos)
      << tessera::error();
}

TEST_P(LibraryOps, UnsupportedCombinationsAreClearErrors) {
  std::vector<float> f(64 * 64);
  tessera_view m = tessera::view(f.data(), {64, 64}, TESSERA_DTYPE_F32);
  EXPECT_EQ(tessera::gemm(library, m, m, m), TESSERA_ERROR_UNSUPPORTED);
  EXPECT_NE(tessera::error().find("no shipped GEMM for [64, 64] f32"),
            std::string::npos);
  std::vector<uint16_t> h(64 * 64);
  tessera_view a = tessera::view(h.data(), {64, 32}, TESSERA_DTYPE_BF16);
  tessera_view b = tessera::view(h.data(), {16, 64}, TESSERA_DTYPE_BF16);
  tessera_view c = tessera::view(h.data(), {64, 64}, TESSERA_DTYPE_BF16);
  EXPECT_EQ(tessera::gemm(library, a, b, c), TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(tessera::error().find("GEMM shapes do not agree"),
            std::string::npos);
  tessera::KernelLibrary empty;
  tessera_view b2 = tessera::view(h.data(), {32, 64}, TESSERA_DTYPE_BF16);
  EXPECT_EQ(tessera::gemm(empty, a, b2, c), TESSERA_ERROR_NOT_FOUND);
  // A launch checks declared element types against the signature.
  void *args[] = {&m, &m, &m};
  EXPECT_EQ(library.find("gemm_bf16")->launch("gemm_bf16", {1, 1, 1}, args),
            TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(tessera::error().find("holds bf16 but the view is f32"),
            std::string::npos);
  // MoE's top-k ids and weights are dense [T, topk]: a view of every other
  // row is refused.
  const int64_t tokens = 4, topk = 2, experts = 2, d = 64;
  std::vector<uint16_t> x(tokens * d), w13(experts * 2 * d * d),
      w2(experts * d * d);
  std::vector<int32_t> ids(2 * tokens * topk, 0);
  std::vector<float> weights(tokens * topk), out(tokens * d);
  tessera_view sparse =
      tessera::view(ids.data(), {tokens, topk}, TESSERA_DTYPE_I32);
  sparse.strides[0] = 2 * topk;
  EXPECT_EQ(
      tessera::moe(
          library, device,
          tessera::view(x.data(), {tokens, d}, TESSERA_DTYPE_BF16),
          tessera::view(w13.data(), {experts, 2 * d, d}, TESSERA_DTYPE_BF16),
          tessera::view(w2.data(), {experts, d, d}, TESSERA_DTYPE_BF16), sparse,
          tessera::view(weights.data(), {tokens, topk}, TESSERA_DTYPE_F32),
          tessera::view(out.data(), {tokens, d}, TESSERA_DTYPE_F32)),
      TESSERA_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(tessera::error().find("must be dense [T, topk] views"),
            std::string::npos)
      << tessera::error();
}

INSTANTIATE_TEST_SUITE_P(
    Devices, LibraryOps,
    ::testing::Values(Where{TESSERA_DEVICE_HOST, nullptr},
                      Where{TESSERA_DEVICE_EMULATOR, "sm_80"},
                      Where{TESSERA_DEVICE_EMULATOR, "sm_90a"},
                      Where{TESSERA_DEVICE_EMULATOR, "gfx942"}),
    tessera::test::deviceName);
} // namespace
