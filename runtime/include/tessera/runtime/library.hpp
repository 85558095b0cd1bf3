//===- library.hpp - Library ops over the shipped kernels -------*- C++ -*-===//
//
// gemm, attention and moe pick the shipped kernel that fits the device and
// the views' element types, and report a clear error for combinations no
// shipped kernel covers. The kernels come from a KernelLibrary: the bundles
// compiled into Tessera::kernels (tessera::addShippedKernels, in
// tessera/runtime/shipped_kernels.hpp) or bundle files given by the caller
// (the standalone runtime's way). The ops run on whichever device the
// library's modules were loaded on; views hold that device's memory.
//
//===----------------------------------------------------------------------===//

#ifndef TESSERA_RUNTIME_LIBRARY_HPP
#define TESSERA_RUNTIME_LIBRARY_HPP

#include "tessera/runtime/quantize.hpp"
#include "tessera/runtime/tessera.hpp"

#include <cstdint>
#include <vector>

namespace tessera {

/// Modules holding the shipped kernels, searched by kernel name.
class KernelLibrary {
public:
  KernelLibrary() = default;
  void add(Module module) { modules.push_back(std::move(module)); }
  /// Adds the bundle file at `path`; fails (with error()) if unloadable.
  tessera_status addFile(const Device &device, const char *path);
  /// The module that has `kernel`, or null.
  Module *find(const char *kernel);

private:
  std::vector<Module> modules;
};

/// C[M, N] = A[M, K] · B[K, N]: bf16 views (gemm_bf16).
tessera_status gemm(KernelLibrary &library, const tessera_view &a,
                    const tessera_view &b, const tessera_view &c);

/// C = A · dequant(W, S): bf16 A [M, K], int4 W [K, N] (packed with
/// packInt4), f16 S [ceil(K / 128), N] group scales (gemm_w4a16).
tessera_status gemmInt4(KernelLibrary &library, const tessera_view &a,
                        const tessera_view &packedWeights,
                        const tessera_view &scales, const tessera_view &c);

/// Weights quantized by quantizeWeights ([K, N], not transposed), as views
/// in the library's device memory: `codes` (int4: an I4 view of the [K, N]
/// codes, two per byte as packInt4 stores them, its row stride counting
/// bytes; int8: I8; fp8: F8E4M3FN), `scales` (f16 [groups, N]; fp8: the f32
/// block scales [ceil(K / 128), ceil(N / 128)]) and, for zero-point schemes,
/// `zeros` (f16 [groups, N]).
struct QuantizedWeightViews {
  WeightQuantization scheme;
  tessera_view codes, scales, zeros;
};

/// C = A · dequant(W): bf16 A [M, K] and C [M, N], for the schemes a shipped
/// kernel covers: int8 per channel (gemm_bf16_int8_pc), fp8 e4m3 in blocks
/// of 128 (gemm_bf16_fp8_b128), int4 in groups of 64 with zero points
/// (gemm_bf16_int4_g64_zp) and int4 in groups of 128 (gemm_w4a16).
tessera_status gemmQuantized(KernelLibrary &library, const tessera_view &a,
                             const QuantizedWeightViews &weights,
                             const tessera_view &c);

/// O = softmax(Q Kᵀ · scale [causal]) V with head dim d = 64 or 128, bf16
/// views Q, O [batch * heads, seq_q, d] and K, V [batch * kv_heads, seq_kv,
/// d] (flash_attention_fwd, flash_attention_fwd_d128); heads must be a
/// multiple of kv_heads.
tessera_status attention(KernelLibrary &library, const tessera_view &q,
                         const tessera_view &k, const tessera_view &v,
                         const tessera_view &o, bool causal, float scale);

/// How attentionDecode splits a cache of `maxLen` positions into about
/// `requested` (at least 1) ranges of whole 64-position blocks: `size`
/// positions each, `count` of them covering the cache (at least one).
struct DecodeSplits {
  int64_t size, count;
};
DecodeSplits decodeSplits(int64_t maxLen, int64_t requested);

/// Decode attention over a KV cache (attention_decode_d128, then
/// attention_decode_combine_d128): bf16 views Q, O [batch * kv_heads, R,
/// 128] (R = q_len * group <= 16 rows: row r is new token r / group of
/// query head r mod group of the kv head), K, V [batch * kv_heads, max_len,
/// 128] (the caches) and i32 seqlens [batch] (positions of each sequence
/// that hold keys, the new tokens' last; new token t sees the positions
/// below len - q_len + t + 1). The cache is split into `splits` ranges of
/// whole 64-position blocks whose partial results are merged by their
/// log-sum-exp (0: enough splits for about 256 programs, at most one per
/// block); the partials live in device memory the op allocates. Rows that
/// see no position get zeros.
tessera_status attentionDecode(KernelLibrary &library, const Device &device,
                               const tessera_view &q, const tessera_view &k,
                               const tessera_view &v,
                               const tessera_view &seqlens,
                               const tessera_view &o, int64_t group,
                               float scale, int64_t splits = 0);

/// The alignment of MoE routing: the slots t * topk + j sorted by expert,
/// each expert's run padded to `block` rows with the sentinel T * topk, and
/// one expert per block. Experts without tokens get no block.
struct MoeAlignment {
  std::vector<int32_t> sortedIds;
  std::vector<int32_t> expertIds;
};
MoeAlignment alignMoe(const int32_t *topkIds, int64_t tokens, int64_t topk,
                      int64_t experts, int64_t block = 64);

/// out[T, D] (f32, overwritten) = sum_j w[t, j] · down_e(silu(gate_e x_t) *
/// up_e x_t) for the experts e = topk_ids[t, j]: x bf16 [T, D], w13 bf16
/// [E, 2I, D] (gate rows first), w2 bf16 [E, D, I], topk_ids i32 [T, topk],
/// topk_weights f32 [T, topk] (moe_gate_up_swiglu + moe_down_combine).
/// The routing is aligned on the host: on CUDA and HIP devices the top-k
/// ids are read back from device memory, and the alignment and the
/// intermediate activations are placed in device memory for the launches.
/// Top-k ids and weights must be dense.
tessera_status moe(KernelLibrary &library, const Device &device,
                   const tessera_view &x, const tessera_view &w13,
                   const tessera_view &w2, const tessera_view &topkIds,
                   const tessera_view &topkWeights, const tessera_view &out);

/// One weight of every expert, quantized expert by expert (quantizeWeights
/// with `transposed` on each [n, k] matrix), as views in the library's
/// device memory: codes [E, n, k] (I8 or F8E4M3FN) and scales (int8 per
/// channel: f16 [E, n, 1]; fp8: the f32 block scales [E, ceil(n / 128),
/// ceil(k / 128)]).
struct QuantizedExpertViews {
  tessera_view codes, scales;
};

/// moe with quantized expert weights, all three under `scheme` (int8 per
/// channel or fp8 e4m3 in blocks of 128: the moe_*_int8_pc and
/// moe_*_fp8_b128 kernels): gate and up [E, I, D], down [E, D, I]; x, the
/// routing and out as for moe.
tessera_status
moeQuantized(KernelLibrary &library, const Device &device,
             const WeightQuantization &scheme, const tessera_view &x,
             const QuantizedExpertViews &gate, const QuantizedExpertViews &up,
             const QuantizedExpertViews &down, const tessera_view &topkIds,
             const tessera_view &topkWeights, const tessera_view &out);

} // namespace tessera

#endif // TESSERA_RUNTIME_LIBRARY_HPP
