"""tessera.ops as PyTorch custom operators: torch.ops.tessera.gemm,
attention, attention_decode, moe and gemm_quantized, with fake (meta) implementations so that
torch.compile traces them into its graphs without a break.

Imported by tessera.ops when PyTorch is installed. CPU tensors run on the
host (on an emulator under TESSERA_INTERPRET), CUDA tensors on their GPU.
"""

from __future__ import annotations

import os
from typing import Optional

import torch

from . import ops


def _device(t: torch.Tensor) -> str:
    if t.device.type == "cpu":
        chip = os.environ.get("TESSERA_INTERPRET", "")
        if chip and chip != "0":
            return "emu:" + ("sm_90a" if chip == "1" else chip)
        return "host"
    kind = "hip" if torch.version.hip else "cuda"
    return f"{kind}:{t.device.index or 0}"


@torch.library.custom_op("tessera::gemm", mutates_args=())
def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a[M, K] · b[K, N], bf16."""
    a, b = a.detach().contiguous(), b.detach().contiguous()
    out = a.new_empty((a.shape[0], b.shape[1]))
    ops.gemm(a, b, out, device=_device(a))
    return out


@gemm.register_fake
def _(a, b):
    return a.new_empty((a.shape[0], b.shape[1]))


@torch.library.custom_op("tessera::attention", mutates_args=())
def attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
              causal: bool = False, scale: Optional[float] = None) -> torch.Tensor:
    """softmax(q kᵀ · scale [causal]) v, bf16 [B*H, S, d] (GQA: k and v with
    fewer heads)."""
    q, k, v = (t.detach().contiguous() for t in (q, k, v))
    out = torch.empty_like(q)
    ops.attention(q, k, v, out, causal=causal, scale=scale, device=_device(q))
    return out


@attention.register_fake
def _(q, k, v, causal=False, scale=None):
    return torch.empty_like(q)


@torch.library.custom_op("tessera::attention_decode", mutates_args=())
def attention_decode(q: torch.Tensor, k_cache: torch.Tensor,
                     v_cache: torch.Tensor, seqlens: torch.Tensor, group: int,
                     scale: Optional[float] = None,
                     splits: int = 0) -> torch.Tensor:
    """Decode attention over a KV cache, bf16 [B*Hkv, q_len * group, 128]
    queries against [B*Hkv, max_len, 128] caches, int32 seqlens [B]."""
    q, k_cache, v_cache, seqlens = (
        t.detach().contiguous() for t in (q, k_cache, v_cache, seqlens))
    out = torch.empty_like(q)
    ops.attention_decode(q, k_cache, v_cache, seqlens, out, group=group,
                         scale=scale, splits=splits, device=_device(q))
    return out


@attention_decode.register_fake
def _(q, k_cache, v_cache, seqlens, group, scale=None, splits=0):
    return torch.empty_like(q)


@torch.library.custom_op("tessera::moe", mutates_args=())
def moe(x: torch.Tensor, w13: torch.Tensor, w2: torch.Tensor,
        topk_ids: torch.Tensor, topk_weights: torch.Tensor) -> torch.Tensor:
    """The MoE expert MLPs and the weighted combine, float32 [T, D]."""
    args = [t.detach().contiguous() for t in (x, w13, w2, topk_ids, topk_weights)]
    out = x.new_empty((x.shape[0], x.shape[1]), dtype=torch.float32)
    ops.moe(*args, out, device=_device(x))
    return out


@moe.register_fake
def _(x, w13, w2, topk_ids, topk_weights):
    return x.new_empty((x.shape[0], x.shape[1]), dtype=torch.float32)


@torch.library.custom_op("tessera::gemm_quantized", mutates_args=())
def gemm_quantized(a: torch.Tensor, codes: torch.Tensor, scales: torch.Tensor,
                   zeros: Optional[torch.Tensor], format: str, group: int,
                   zero_points: bool, n: int) -> torch.Tensor:
    """a · dequant(weights), the weights as ops.quantize_weights gives them
    (as tensors)."""
    weights = ops.QuantizedWeights(
        format, group, zero_points, (codes.shape[0], n), codes.detach(),
        scales.detach(), None if zeros is None else zeros.detach())
    out = a.new_empty((a.shape[0], n))
    ops.gemm_quantized(a.detach().contiguous(), weights, out, device=_device(a))
    return out


@gemm_quantized.register_fake
def _(a, codes, scales, zeros, format, group, zero_points, n):
    return a.new_empty((a.shape[0], n))
