//===- Library.cpp - Library ops over the shipped kernels -------*- C++ -*-===//

#include "tessera/runtime/library.hpp"

#include "Device.h"
#include "Internal.h"

#include <algorithm>
#include <cstring>
#include <string>

using tessera::runtime::fail;

namespace tessera {

tessera_status KernelLibrary::addFile(const Device &device, const char *path) {
  Module module = Module::load(device, path);
  if (!module)
    return TESSERA_ERROR_INVALID_BUNDLE;
  modules.push_back(std::move(module));
  return TESSERA_SUCCESS;
}

Module *KernelLibrary::find(const char *kernel) {
  for (Module &module : modules) {
    if (module.kernel(kernel))
      return &module;
  }
  return nullptr;
}

namespace {
/// Memory an op needs besides its arguments, on the device the library is
/// loaded for (host memory for the host and the emulator), released with
/// the object, after the launches that use it have finished; and copies
/// between it and the host.
class DeviceScratch {
public:
  explicit DeviceScratch(const Device &device)
      : backend(*device.get()->backend) {}
  DeviceScratch(const DeviceScratch &) = delete;
  DeviceScratch &operator=(const DeviceScratch &) = delete;
  ~DeviceScratch() {
    for (void *data : owned)
      backend.release(data);
  }
  tessera_status allocate(size_t bytes, void *&data) {
    if (tessera_status status = backend.allocate(bytes, &data))
      return status;
    owned.push_back(data);
    return TESSERA_SUCCESS;
  }
  /// `bytes` of device memory at `from` into host memory at `to`.
  tessera_status read(void *to, const void *from, size_t bytes) {
    return backend.copy(to, from, bytes, runtime::Copy::DeviceToHost, nullptr);
  }
  /// `bytes` of host memory at `from` into device memory at `to`.
  tessera_status write(void *to, const void *from, size_t bytes) {
    return backend.copy(to, from, bytes, runtime::Copy::HostToDevice, nullptr);
  }
  /// A copy of `bytes` at `from` (host memory) in new device memory.
  tessera_status copyIn(const void *from, size_t bytes, void *&data) {
    if (tessera_status status = allocate(bytes, data))
      return status;
    return write(data, from, bytes);
  }

private:
  runtime::Backend &backend;
  std::vector<void *> owned;
};

std::string shape(const tessera_view &view) {
  std::string text = "[";
  for (int64_t d = 0; d < view.rank; ++d)
    text += (d ? ", " : "") + std::to_string(view.sizes[d]);
  return text + "] " + tesseraDTypeName(view.dtype);
}

bool is(const tessera_view &view, tessera_dtype dtype, int64_t rank) {
  return view.dtype == dtype && view.rank == rank;
}

/// The shipped GEMMs' grid: one program per 128x128 tile of C.
tessera_grid gemmGrid(const tessera_view &c) {
  return {(c.sizes[0] + 127) / 128, (c.sizes[1] + 127) / 128, 1};
}

tessera_status launch(KernelLibrary &library, const char *kernel,
                      tessera_grid grid, void *const *args) {
  Module *module = library.find(kernel);
  if (!module)
    return fail(
        TESSERA_ERROR_NOT_FOUND,
        std::string("the kernel library has no ") + kernel +
            "; add the shipped kernels (tessera::addShippedKernels) or their "
            "bundles");
  return module->launch(kernel, grid, args);
}
} // namespace

tessera_status gemm(KernelLibrary &library, const tessera_view &a,
                    const tessera_view &b, const tessera_view &c) {
  if (!is(a, TESSERA_DTYPE_BF16, 2) || !is(b, TESSERA_DTYPE_BF16, 2) ||
      !is(c, TESSERA_DTYPE_BF16, 2))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped GEMM for " + shape(a) + " x " + shape(b) + " -> " +
                    shape(c) +
                    "; supported: bf16 x bf16 -> bf16 (2-D), and bf16 x int4 "
                    "with gemmInt4");
  if (a.sizes[1] != b.sizes[0] || c.sizes[0] != a.sizes[0] ||
      c.sizes[1] != b.sizes[1])
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "GEMM shapes do not agree: " + shape(a) + " x " + shape(b) +
                    " -> " + shape(c));
  void *args[] = {const_cast<tessera_view *>(&a),
                  const_cast<tessera_view *>(&b),
                  const_cast<tessera_view *>(&c)};
  return launch(library, "gemm_bf16", gemmGrid(c), args);
}

tessera_status gemmInt4(KernelLibrary &library, const tessera_view &a,
                        const tessera_view &w, const tessera_view &s,
                        const tessera_view &c) {
  if (!is(a, TESSERA_DTYPE_BF16, 2) || !is(w, TESSERA_DTYPE_I4, 2) ||
      !is(s, TESSERA_DTYPE_F16, 2) || !is(c, TESSERA_DTYPE_BF16, 2))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped int4 GEMM for " + shape(a) + " x " + shape(w) +
                    " scaled by " + shape(s) + " -> " + shape(c) +
                    "; supported: bf16 x int4 with f16 group-128 scales -> "
                    "bf16");
  int64_t k = a.sizes[1];
  if (w.sizes[0] != k || s.sizes[0] != (k + 127) / 128 ||
      s.sizes[1] != w.sizes[1] || c.sizes[0] != a.sizes[0] ||
      c.sizes[1] != w.sizes[1])
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "int4 GEMM shapes do not agree: " + shape(a) + " x " +
                    shape(w) + " scaled by " + shape(s) + " -> " + shape(c) +
                    " (scales need ceil(K / 128) rows)");
  // The kernel reads the same bytes as nibble pairs.
  tessera_view packed = int4PairView(w);
  void *args[] = {const_cast<tessera_view *>(&a), &packed,
                  const_cast<tessera_view *>(&s),
                  const_cast<tessera_view *>(&c)};
  return launch(library, "gemm_w4a16", gemmGrid(c), args);
}

tessera_status gemmQuantized(KernelLibrary &library, const tessera_view &a,
                             const QuantizedWeightViews &weights,
                             const tessera_view &c) {
  using Format = WeightQuantization::Format;
  const WeightQuantization &scheme = weights.scheme;
  const tessera_view &w = weights.codes, &s = weights.scales;
  if (scheme.transposed)
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped quantized GEMM reads transposed [N, K] weights");
  const char *kernel = nullptr;
  tessera_dtype codes = TESSERA_DTYPE_I8, scales = TESSERA_DTYPE_F16;
  int64_t group = scheme.group;
  if (scheme.format == Format::Int8 && group == 0 && !scheme.zeroPoints) {
    kernel = "gemm_bf16_int8_pc";
  } else if (scheme.format == Format::Fp8 && group == 128) {
    kernel = "gemm_bf16_fp8_b128";
    codes = TESSERA_DTYPE_F8E4M3FN;
    scales = TESSERA_DTYPE_F32;
  } else if (scheme.format == Format::Int4 && group == 64 &&
             scheme.zeroPoints) {
    kernel = "gemm_bf16_int4_g64_zp";
    codes = TESSERA_DTYPE_I4;
  } else if (scheme.format == Format::Int4 && group == 128 &&
             !scheme.zeroPoints) {
    return gemmInt4(library, a, w, s, c);
  }
  if (!kernel)
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped quantized GEMM for this scheme; supported: int8 "
                "per channel, fp8 blocks of 128, int4 groups of 64 with zero "
                "points, int4 groups of 128");
  if (!is(a, TESSERA_DTYPE_BF16, 2) || !is(w, codes, 2) || !is(s, scales, 2) ||
      !is(c, TESSERA_DTYPE_BF16, 2) ||
      (scheme.zeroPoints && !is(weights.zeros, TESSERA_DTYPE_F16, 2)))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                std::string(kernel) + " takes bf16 A and C, " +
                    tesseraDTypeName(codes) + " codes and " +
                    tesseraDTypeName(scales) + " scales" +
                    (scheme.zeroPoints ? " and f16 zeros" : "") +
                    " (2-D); got " + shape(a) + ", " + shape(w) + ", " +
                    shape(s) + " -> " + shape(c));
  int64_t k = a.sizes[1], n = w.sizes[1];
  // Scale rows: groups of k (one per channel), or blocks of 128 x 128.
  int64_t rows = group ? (k + group - 1) / group : 1;
  int64_t cols = scheme.format == Format::Fp8 ? (n + 127) / 128 : n;
  bool zerosAgree = !scheme.zeroPoints || (weights.zeros.sizes[0] == rows &&
                                           weights.zeros.sizes[1] == n);
  if (w.sizes[0] != k || s.sizes[0] != rows || s.sizes[1] != cols ||
      !zerosAgree || c.sizes[0] != a.sizes[0] || c.sizes[1] != n)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                std::string(kernel) + " shapes do not agree: " + shape(a) +
                    " x " + shape(w) + " scaled by " + shape(s) + " -> " +
                    shape(c) + " (scales need [" + std::to_string(rows) + ", " +
                    std::to_string(cols) + "])");
  tessera_view packed = codes == TESSERA_DTYPE_I4 ? int4PairView(w) : w;
  std::vector<void *> args = {const_cast<tessera_view *>(&a), &packed,
                              const_cast<tessera_view *>(&s)};
  if (scheme.zeroPoints)
    args.push_back(const_cast<tessera_view *>(&weights.zeros));
  args.push_back(const_cast<tessera_view *>(&c));
  return launch(library, kernel, gemmGrid(c), args.data());
}

tessera_status attention(KernelLibrary &library, const tessera_view &q,
                         const tessera_view &k, const tessera_view &v,
                         const tessera_view &o, bool causal, float scale) {
  // One kernel per head dimension, Q's, which all four share.
  bool shipped =
      is(q, TESSERA_DTYPE_BF16, 3) && (q.sizes[2] == 64 || q.sizes[2] == 128);
  for (const tessera_view *view : {&q, &k, &v, &o})
    if (!shipped || !is(*view, TESSERA_DTYPE_BF16, 3) ||
        view->sizes[2] != q.sizes[2])
      return fail(TESSERA_ERROR_UNSUPPORTED,
                  "no shipped attention for " + shape(*view) +
                      "; supported: bf16 [batch * heads, seq, d], d = 64 "
                      "or 128 in all four");
  if (k.sizes[0] == 0 || q.sizes[0] % k.sizes[0] != 0 ||
      v.sizes[0] != k.sizes[0] || v.sizes[1] != k.sizes[1] ||
      o.sizes[0] != q.sizes[0] || o.sizes[1] != q.sizes[1])
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "attention shapes do not agree: q " + shape(q) + ", k " +
                    shape(k) + ", v " + shape(v) + ", o " + shape(o) +
                    " (query heads must be a multiple of kv heads)");
  int64_t group = q.sizes[0] / k.sizes[0];
  bool isCausal = causal;
  void *args[] = {const_cast<tessera_view *>(&q),
                  const_cast<tessera_view *>(&k),
                  const_cast<tessera_view *>(&v),
                  const_cast<tessera_view *>(&o),
                  &scale,
                  &group,
                  &isCausal};
  return launch(library,
                q.sizes[2] == 64 ? "flash_attention_fwd"
                                 : "flash_attention_fwd_d128",
                {(q.sizes[1] + 127) / 128, q.sizes[0], 1}, args);
}

DecodeSplits decodeSplits(int64_t maxLen, int64_t requested) {
  int64_t blocks = std::max<int64_t>((maxLen + 63) / 64, 1);
  int64_t perSplit = (blocks + std::clamp<int64_t>(requested, 1, blocks) - 1) /
                     std::clamp<int64_t>(requested, 1, blocks);
  return {perSplit * 64, (blocks + perSplit - 1) / perSplit};
}

tessera_status attentionDecode(KernelLibrary &library, const Device &device,
                               const tessera_view &q, const tessera_view &k,
                               const tessera_view &v,
                               const tessera_view &seqlens,
                               const tessera_view &o, int64_t group,
                               float scale, int64_t splits) {
  constexpr int64_t dim = 128;
  for (const tessera_view *view : {&q, &k, &v, &o})
    if (!is(*view, TESSERA_DTYPE_BF16, 3) || view->sizes[2] != dim)
      return fail(TESSERA_ERROR_UNSUPPORTED,
                  "no shipped decode attention for " + shape(*view) +
                      "; supported: bf16 [batch * kv_heads, rows, 128]");
  if (!is(seqlens, TESSERA_DTYPE_I32, 1))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "decode attention takes i32 [batch] sequence lengths, not " +
                    shape(seqlens));
  int64_t batch = seqlens.sizes[0], heads = q.sizes[0], rows = q.sizes[1];
  if (batch == 0 || heads % batch != 0 || k.sizes[0] != heads ||
      v.sizes[0] != heads || v.sizes[1] != k.sizes[1] || o.sizes[0] != heads ||
      o.sizes[1] != rows)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "decode attention shapes do not agree: q " + shape(q) + ", k " +
                    shape(k) + ", v " + shape(v) + ", seqlens " +
                    shape(seqlens) + ", o " + shape(o) +
                    " (q, k, v and o need batch * kv_heads rows)");
  if (group < 1 || rows < 1 || rows > 16 || rows % group != 0)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "decode attention needs 1 to 16 query rows a kv head, a "
                "multiple of the group " +
                    std::to_string(group) + "; got " + std::to_string(rows));
  if (splits < 0)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "decode attention's splits must be 0 (chosen) or positive");
  auto [split, count] = decodeSplits(
      k.sizes[1], splits ? splits : std::max<int64_t>(256 / heads, 1));
  splits = count;
  DeviceScratch scratch(device);
  void *partialData = nullptr, *lseData = nullptr;
  if (tessera_status status = scratch.allocate(
          heads * splits * rows * dim * sizeof(float), partialData))
    return status;
  if (tessera_status status =
          scratch.allocate(heads * splits * rows * sizeof(float), lseData))
    return status;
  tessera_view partial =
      view(partialData, {heads, splits, rows, dim}, TESSERA_DTYPE_F32);
  tessera_view lse = view(lseData, {heads, splits, rows}, TESSERA_DTYPE_F32);
  int64_t kvHeads = heads / batch;
  void *first[] = {const_cast<tessera_view *>(&q),
                   const_cast<tessera_view *>(&k),
                   const_cast<tessera_view *>(&v),
                   const_cast<tessera_view *>(&seqlens),
                   &partial,
                   &lse,
                   &scale,
                   &group,
                   &kvHeads,
                   &split};
  if (tessera_status status =
          launch(library, "attention_decode_d128", {splits, heads, 1}, first))
    return status;
  void *second[] = {&partial, &lse, const_cast<tessera_view *>(&o)};
  return launch(library, "attention_decode_combine_d128", {heads, 1, 1},
                second);
}

MoeAlignment alignMoe(const int32_t *topkIds, int64_t tokens, int64_t topk,
                      int64_t experts, int64_t block) {
  MoeAlignment alignment;
  int32_t sentinel = static_cast<int32_t>(tokens * topk);
  for (int64_t e = 0; e < experts; ++e) {
    size_t start = alignment.sortedIds.size();
    for (int64_t s = 0; s < tokens * topk; ++s)
      if (topkIds[s] == e)
        alignment.sortedIds.push_back(static_cast<int32_t>(s));
    if (alignment.sortedIds.size() == start)
      continue;
    while ((alignment.sortedIds.size() - start) % block)
      alignment.sortedIds.push_back(sentinel);
    for (size_t b = start; b < alignment.sortedIds.size(); b += block)
      alignment.expertIds.push_back(static_cast<int32_t>(e));
  }
  return alignment;
}

namespace {
/// The kernels of a MoE block and the weight views each reads: after x (and
/// before H) for gate+up, after H (and before out) for down.
struct MoeKernels {
  std::string gateUp, down;
  std::vector<tessera_view> gateUpWeights, downWeights;
};

/// Checks the routing and output views, aligns the routing on the host
/// (on a GPU the ids are read back; the alignment and H live in device
/// memory for the launches) and launches both kernels.
tessera_status runMoe(KernelLibrary &library, const Device &device,
                      const tessera_view &x, int64_t experts, int64_t inter,
                      MoeKernels kernels, const tessera_view &topkIds,
                      const tessera_view &topkWeights,
                      const tessera_view &out) {
  int64_t tokens = x.sizes[0], hidden = x.sizes[1], topk = topkIds.sizes[1];
  if (!is(topkIds, TESSERA_DTYPE_I32, 2) ||
      !is(topkWeights, TESSERA_DTYPE_F32, 2) || !is(out, TESSERA_DTYPE_F32, 2))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped MoE for ids " + shape(topkIds) + ", weights " +
                    shape(topkWeights) + ", out " + shape(out) +
                    "; supported: i32 ids, f32 weights and output");
  if (topkIds.sizes[0] != tokens || topkWeights.sizes[0] != tokens ||
      topkWeights.sizes[1] != topk || out.sizes[0] != tokens ||
      out.sizes[1] != hidden)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "MoE shapes do not agree: x " + shape(x) + ", ids " +
                    shape(topkIds) + ", weights " + shape(topkWeights) +
                    ", out " + shape(out));
  if (topkIds.strides[0] != topk || topkWeights.strides[0] != topk ||
      topkIds.strides[1] != 1 || topkWeights.strides[1] != 1)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "MoE top-k ids and weights must be dense [T, topk] views");
  DeviceScratch scratch(device);
  std::vector<int32_t> ids(tokens * topk);
  if (tessera_status status =
          scratch.read(ids.data(), topkIds.data, ids.size() * sizeof(int32_t)))
    return status;
  for (int64_t s = 0; s < tokens * topk; ++s)
    if (ids[s] < 0 || ids[s] >= experts)
      return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                  "routed expert " + std::to_string(ids[s]) + " of slot " +
                      std::to_string(s) + " is not in [0, " +
                      std::to_string(experts) + ")");
  MoeAlignment alignment = alignMoe(ids.data(), tokens, topk, experts);
  std::vector<float> zeros(hidden, 0.0f);
  for (int64_t t = 0; t < tokens; ++t)
    if (tessera_status status =
            scratch.write(static_cast<float *>(out.data) + t * out.strides[0],
                          zeros.data(), hidden * sizeof(float)))
      return status;
  int64_t slots = static_cast<int64_t>(alignment.sortedIds.size());
  if (slots == 0)
    return TESSERA_SUCCESS;
  void *sortedData = nullptr, *blocksData = nullptr, *hData = nullptr;
  size_t blocksBytes = alignment.expertIds.size() * sizeof(int32_t);
  if (tessera_status status = scratch.copyIn(
          alignment.sortedIds.data(), slots * sizeof(int32_t), sortedData))
    return status;
  if (tessera_status status =
          scratch.copyIn(alignment.expertIds.data(), blocksBytes, blocksData))
    return status;
  if (tessera_status status =
          scratch.allocate(slots * inter * sizeof(uint16_t), hData))
    return status;

  // H holds the activations between the kernels.
  tessera_view hv = view(hData, {slots, inter}, TESSERA_DTYPE_BF16);
  tessera_view sorted = view(sortedData, {slots}, TESSERA_DTYPE_I32);
  tessera_view blocks =
      view(blocksData, {static_cast<int64_t>(alignment.expertIds.size())},
           TESSERA_DTYPE_I32);
  tessera_view routed = view(topkIds.data, {tokens * topk}, TESSERA_DTYPE_I32);
  tessera_view weights =
      view(topkWeights.data, {tokens * topk}, TESSERA_DTYPE_F32);
  int32_t k32 = static_cast<int32_t>(topk);
  int64_t numBlocks = slots / 64;
  std::vector<void *> first = {const_cast<tessera_view *>(&x)};
  for (tessera_view &w : kernels.gateUpWeights)
    first.push_back(&w);
  for (void *arg : {(void *)&hv, (void *)&sorted, (void *)&blocks,
                    (void *)&routed, (void *)&k32})
    first.push_back(arg);
  if (tessera_status status =
          launch(library, kernels.gateUp.c_str(),
                 {numBlocks, (inter + 63) / 64, 1}, first.data()))
    return status;
  std::vector<void *> second = {&hv};
  for (tessera_view &w : kernels.downWeights)
    second.push_back(&w);
  for (void *arg :
       {(void *)const_cast<tessera_view *>(&out), (void *)&weights,
        (void *)&sorted, (void *)&blocks, (void *)&routed, (void *)&k32})
    second.push_back(arg);
  return launch(library, kernels.down.c_str(),
                {numBlocks, (hidden + 63) / 64, 1}, second.data());
}
} // namespace

tessera_status moe(KernelLibrary &library, const Device &device,
                   const tessera_view &x, const tessera_view &w13,
                   const tessera_view &w2, const tessera_view &topkIds,
                   const tessera_view &topkWeights, const tessera_view &out) {
  if (!is(x, TESSERA_DTYPE_BF16, 2) || !is(w13, TESSERA_DTYPE_BF16, 3) ||
      !is(w2, TESSERA_DTYPE_BF16, 3))
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped MoE for x " + shape(x) + ", w13 " + shape(w13) +
                    ", w2 " + shape(w2) +
                    "; supported: bf16 activations and weights (quantized "
                    "weights: moeQuantized)");
  int64_t hidden = x.sizes[1], experts = w13.sizes[0];
  int64_t inter = w13.sizes[1] / 2;
  if (w13.sizes[1] % 2 || w13.sizes[2] != hidden || w2.sizes[0] != experts ||
      w2.sizes[1] != hidden || w2.sizes[2] != inter)
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "MoE shapes do not agree: x " + shape(x) + ", w13 " +
                    shape(w13) + ", w2 " + shape(w2));
  // The gate and up halves of w13, as two views.
  tessera_view gate = w13, up = w13;
  gate.sizes[1] = up.sizes[1] = inter;
  up.data = static_cast<uint16_t *>(w13.data) + inter * w13.strides[1];
  return runMoe(library, device, x, experts, inter,
                {"moe_gate_up_swiglu", "moe_down_combine", {gate, up}, {w2}},
                topkIds, topkWeights, out);
}

tessera_status
moeQuantized(KernelLibrary &library, const Device &device,
             const WeightQuantization &scheme, const tessera_view &x,
             const QuantizedExpertViews &gate, const QuantizedExpertViews &up,
             const QuantizedExpertViews &down, const tessera_view &topkIds,
             const tessera_view &topkWeights, const tessera_view &out) {
  using Format = WeightQuantization::Format;
  bool int8 =
      scheme.format == Format::Int8 && scheme.group == 0 && !scheme.zeroPoints;
  bool fp8 = scheme.format == Format::Fp8 && scheme.group == 128;
  if (!int8 && !fp8)
    return fail(TESSERA_ERROR_UNSUPPORTED,
                "no shipped quantized MoE for this scheme; supported: int8 "
                "per channel, fp8 blocks of 128");
  tessera_dtype codes = int8 ? TESSERA_DTYPE_I8 : TESSERA_DTYPE_F8E4M3FN;
  tessera_dtype scales = int8 ? TESSERA_DTYPE_F16 : TESSERA_DTYPE_F32;
  if (!is(x, TESSERA_DTYPE_BF16, 2))
    return fail(TESSERA_ERROR_UNSUPPORTED, "no shipped quantized MoE for x " +
                                               shape(x) +
                                               "; supported: bf16 activations");
  for (const QuantizedExpertViews *w : {&gate, &up, &down})
    if (!is(w->codes, codes, 3) || !is(w->scales, scales, 3))
      return fail(TESSERA_ERROR_UNSUPPORTED,
                  std::string("the ") + (int8 ? "int8" : "fp8") +
                      " MoE takes " + tesseraDTypeName(codes) + " codes and " +
                      tesseraDTypeName(scales) +
                      " scales [experts, ...]; got " + shape(w->codes) +
                      " and " + shape(w->scales));
  int64_t hidden = x.sizes[1], experts = gate.codes.sizes[0];
  int64_t inter = gate.codes.sizes[1];
  // Per expert, scales [n, 1] (int8) or [ceil(n / 128), ceil(k / 128)].
  auto agrees = [&](const QuantizedExpertViews &w, int64_t n, int64_t k) {
    int64_t rows = int8 ? n : (n + 127) / 128,
            cols = int8 ? 1 : (k + 127) / 128;
    return w.codes.sizes[0] == experts && w.codes.sizes[1] == n &&
           w.codes.sizes[2] == k && w.scales.sizes[0] == experts &&
           w.scales.sizes[1] == rows && w.scales.sizes[2] == cols;
  };
  if (!agrees(gate, inter, hidden) || !agrees(up, inter, hidden) ||
      !agrees(down, hidden, inter))
    return fail(TESSERA_ERROR_INVALID_ARGUMENT,
                "quantized MoE shapes do not agree: x " + shape(x) + ", gate " +
                    shape(gate.codes) + " scaled by " + shape(gate.scales) +
                    ", up " + shape(up.codes) + " scaled by " +
                    shape(up.scales) + ", down " + shape(down.codes) +
                    " scaled by " + shape(down.scales) +
                    " (gate and up [E, I, D], down [E, D, I])");
  std::string suffix = int8 ? "_int8_pc" : "_fp8_b128";
  return runMoe(library, device, x, experts, inter,
                {"moe_gate_up_swiglu" + suffix,
                 "moe_down_combine" + suffix,
                 {gate.codes, gate.scales, up.codes, up.scales},
                 {down.codes, down.scales}},
                topkIds, topkWeights, out);
}

} // namespace tessera
