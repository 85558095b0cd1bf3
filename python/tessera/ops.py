"""tessera.ops: GEMM, attention and MoE over the kernels Tessera ships.

    from tessera import ops
    c = ops.gemm(a, b)                       # bf16 [M, K] x [K, N]
    o = ops.attention(q, k, v, causal=True)  # bf16 [B*H, S, d], d = 64 or 128
    o = ops.attention_decode(q, k_cache, v_cache, seqlens, group=8)
    y = ops.moe(x, w13, w2, topk_ids, topk_weights)
    qw = ops.quantize_weights(w, "int8", group=0)
    c = ops.gemm_quantized(a, qw)

Each op runs the runtime's library operation (the software-pipelined
shipped kernels, the one that fits the device and the dtypes) on `device`:
"host", "emu:<chip>", "cuda:<n>" or "hip:<n>", with the arrays as
tessera's kernels take them (bf16 as uint16 bits or ml_dtypes.bfloat16 in
NumPy; any DLPack tensor). Outputs are allocated like the first input
(NumPy arrays, or tensors with `new_empty`) unless `out` is given.
"""

from __future__ import annotations

import dataclasses
import math
import threading
from typing import Any, Callable, Optional

from . import _as_argument, _open_device, _tessera

__all__ = ["QuantizedWeights", "attention", "attention_decode", "gemm", "gemm_quantized", "moe",
           "quantize_weights"]

_LIBRARIES: dict[str, "_tessera.Library"] = {}
_LOCK = threading.Lock()


def _library(device: str) -> "_tessera.Library":
    with _LOCK:
        if device not in _LIBRARIES:
            _LIBRARIES[device] = _tessera.Library(_open_device(device, 0))
        return _LIBRARIES[device]


def _empty(like, shape: tuple, float32: bool = False):
    """A new array shaped `shape` of `like`'s kind: `like`'s dtype, or
    float32 with `float32`."""
    if hasattr(like, "new_empty"):  # PyTorch
        import torch

        return like.new_empty(shape, dtype=torch.float32 if float32 else like.dtype)
    import numpy as np

    if type(like).__module__ != "numpy":
        raise ValueError("pass out= for arrays that are neither NumPy nor PyTorch")
    return np.empty(shape, dtype=np.float32 if float32 else like.dtype)


def gemm(a, b, out=None, *, device: str = "host"):
    """out[M, N] = a[M, K] · b[K, N], bf16 (gemm_bf16)."""
    if out is None:
        out = _empty(a, (a.shape[0], b.shape[1]))
    _library(device).gemm(_as_argument(a), _as_argument(b), _as_argument(out))
    return out


def attention(q, k, v, out=None, *, causal: bool = False,
              scale: Optional[float] = None, device: str = "host"):
    """out = softmax(q kᵀ · scale [causal]) v for bf16 q, out [B*H, Sq, d]
    and k, v [B*Hkv, Skv, d] (d = 64 or 128; H a multiple of Hkv: grouped
    query attention). `scale` defaults to 1/sqrt(d)."""
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    if out is None:
        out = _empty(q, tuple(q.shape))
    _library(device).attention(_as_argument(q), _as_argument(k), _as_argument(v),
                               _as_argument(out), causal, float(scale))
    return out


def attention_decode(q, k_cache, v_cache, seqlens, out=None, *, group: int,
                     scale: Optional[float] = None, splits: int = 0,
                     device: str = "host"):
    """Decode attention over a KV cache, head dim 128, bf16: q, out
    [B*Hkv, R, 128] with R = q_len * group <= 16 (row r: new token r //
    group of query head r % group of the kv head; one new token is q
    [B, H, 128] reshaped), k_cache, v_cache [B*Hkv, max_len, 128], int32
    seqlens [B] (cached positions of each sequence, the new tokens' last;
    token t sees positions < len - q_len + t + 1). The cache is split into
    `splits` ranges merged by their log-sum-exp (0: the op chooses). Rows
    that see no position are zeros. `scale` defaults to 1/sqrt(128)."""
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    if out is None:
        out = _empty(q, tuple(q.shape))
    _library(device).attention_decode(
        _as_argument(q), _as_argument(k_cache), _as_argument(v_cache),
        _as_argument(seqlens), _as_argument(out), int(group), float(scale),
        int(splits))
    return out


def moe(x, w13, w2, topk_ids, topk_weights, out=None, *, device: str = "host"):
    """out[T, D] (float32) = Σ_j topk_weights[t, j] · down_e(silu(gate_e x_t)
    * up_e x_t) over e = topk_ids[t, j]: bf16 x [T, D], w13 [E, 2I, D] (gate
    rows first), w2 [E, D, I]; int32 topk_ids and float32 topk_weights
    [T, k]."""
    if out is None:
        out = _empty(x, (x.shape[0], x.shape[1]), float32=True)
    _library(device).moe(_as_argument(x), _as_argument(w13), _as_argument(w2),
                         _as_argument(topk_ids), _as_argument(topk_weights),
                         _as_argument(out))
    return out


@dataclasses.dataclass
class QuantizedWeights:
    """A [K, N] weight matrix quantized for gemm_quantized: `codes` (int8:
    int8 [K, N]; fp8: e4m3 bits, uint8 [K, N]; int4: uint8 [K, ceil(N/2)],
    two codes per byte, low nibble first), `scales` (float16 [groups, N];
    fp8: float32 [ceil(K/128), ceil(N/128)]) and, with zero points, `zeros`
    (float16 [groups, N])."""

    format: str
    group: int
    zero_points: bool
    shape: tuple
    codes: Any
    scales: Any
    zeros: Any = None

    def map(self, move: Callable[[Any], Any]) -> "QuantizedWeights":
        """The same weights with every array passed through `move` (to put
        them in a GPU's memory, say)."""
        return dataclasses.replace(
            self, codes=move(self.codes), scales=move(self.scales),
            zeros=None if self.zeros is None else move(self.zeros))


def quantize_weights(w, format: str = "int4", group: int = 128,
                     zero_points: bool = False) -> QuantizedWeights:
    """Quantizes float32 weights w[K, N] (a NumPy array) by round to nearest:
    int4 or int8 in groups of `group` rows of K (0: per channel),
    symmetric or with zero points, or fp8 e4m3 in blocks of 128x128."""
    import numpy as np

    w = np.ascontiguousarray(w, dtype=np.float32)
    if w.ndim != 2:
        raise ValueError("quantize_weights takes a 2-D [K, N] matrix")
    codes, code_shape, scales, zeros, block_scales, (groups, block_cols) = (
        _tessera.quantize_weights(w, format, group, zero_points))
    n = w.shape[1]
    code_dtype = np.int8 if format == "int8" else np.uint8
    codes = np.frombuffer(codes, dtype=code_dtype).reshape(code_shape).copy()
    if format == "fp8":
        scales = np.frombuffer(block_scales, np.float32).reshape(groups, block_cols).copy()
        zeros = None
    else:
        scales = np.frombuffer(scales, np.float16).reshape(groups, n).copy()
        zeros = (np.frombuffer(zeros, np.float16).reshape(groups, n).copy()
                 if zero_points else None)
    return QuantizedWeights(format, group, zero_points, tuple(w.shape), codes,
                            scales, zeros)


def gemm_quantized(a, weights: QuantizedWeights, out=None, *,
                   device: str = "host"):
    """out[M, N] = a[M, K] · dequant(weights), bf16 a and out, for the
    schemes a shipped kernel covers: int8 per channel, fp8 blocks of 128,
    int4 groups of 64 with zero points, int4 groups of 128."""
    if out is None:
        out = _empty(a, (a.shape[0], weights.shape[1]))
    _library(device).gemm_quantized(
        _as_argument(a), weights.codes, weights.scales, weights.zeros,
        _as_argument(out), weights.format, weights.group, weights.zero_points,
        weights.shape[1])
    return out


# PyTorch custom operators (torch.ops.tessera.*), where PyTorch is installed.
try:
    import torch as _torch
except ImportError:
    _torch = None
if _torch is not None:
    from . import torch_ops  # noqa: F401
