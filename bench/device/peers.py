#!/usr/bin/env python3
"""Times the peers of Tessera's kernels on a CUDA GPU, for bench/device/run.sh.

Each case is an argument:
  gemm:M:N:K             bf16 C = A B       torch.matmul (cuBLAS); torch.compile
                                            max-autotune-no-cudagraphs (Triton)
  attn:B:H:KVH:S:D:C     bf16 attention     scaled_dot_product_attention
                         (C=1: causal)      (flash); flex_attention (Triton)
  decode:B:KVH:G:L:S     bf16 decode        scaled_dot_product_attention
                         attention: one new (flash); flex_attention (Triton)
                         token of KVH * G
                         heads against L
                         cached positions
                         (S: Tessera's splits)
  moe:T:E:K:HID:INTER    bf16 expert MLPs   torch._grouped_mm; a loop of
                         (SwiGLU) of T      torch.matmul over experts
                         tokens, top-K of E
and each timing is printed as one line, "<case> <peer> <milliseconds>" (the
median of triton.testing.do_bench), or "<case> <peer> error <message>" or
"<case> <peer> skipped" once --budget seconds have passed. The
library peers of every case run before the compiled ones.
"""
import argparse
import sys
import time


def gemm_peers(torch, m, n, k):
    a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(k, n, device="cuda", dtype=torch.bfloat16)
    import torch._inductor.config as inductor

    inductor.max_autotune_gemm_backends = "TRITON"
    # Static shapes: each problem's own autotuned kernel (a second shape
    # would otherwise recompile for dynamic shapes, with slower kernels).
    compiled = torch.compile(lambda x, y: x @ y,
                             mode="max-autotune-no-cudagraphs", dynamic=False)
    return [("cublas", lambda: a @ b), ("triton", lambda: compiled(a, b))]


def attention_peers(torch, batch, heads, kv_heads, seq, dim, causal):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    import torch.nn.functional as F

    q = torch.randn(batch, heads, seq, dim, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, seq, dim, device="cuda", dtype=torch.bfloat16)
    v = torch.randn_like(k)

    def flash():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal),
                                                  enable_gqa=True)

    mask = None
    if causal:
        mask = create_block_mask(lambda b, h, qi, ki: qi >= ki, None, None,
                                 seq, seq)
    flex = torch.compile(flex_attention, dynamic=False)
    return [("flash", flash),
            ("flex", lambda: flex(q, k, v, block_mask=mask, enable_gqa=True))]


def decode_peers(torch, batch, kv_heads, group, length, splits):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.flex_attention import flex_attention
    import torch.nn.functional as F

    q = torch.randn(batch, kv_heads * group, 1, 128, device="cuda",
                    dtype=torch.bfloat16)
    k = torch.randn(batch, kv_heads, length, 128, device="cuda",
                    dtype=torch.bfloat16)
    v = torch.randn_like(k)

    def flash():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)

    flex = torch.compile(flex_attention, dynamic=False)
    return [("flash", flash),
            ("flex", lambda: flex(q, k, v, enable_gqa=True))]


def moe_peers(torch, tokens, experts, topk, hidden, inter):
    routes = torch.rand(tokens, experts, device="cuda").topk(topk, dim=1).indices
    order = routes.flatten().argsort()
    counts = torch.bincount(routes.flatten(), minlength=experts)
    offsets = counts.cumsum(0).to(torch.int32)
    x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16)
    rows = x[order // topk]
    # Weights stored [E, N, K], used as [E, K, N] (column-major), as
    # _grouped_mm wants them.
    w13 = torch.randn(experts, 2 * inter, hidden, device="cuda",
                      dtype=torch.bfloat16) / hidden**0.5
    w2 = torch.randn(experts, hidden, inter, device="cuda",
                     dtype=torch.bfloat16) / inter**0.5
    silu = torch.nn.functional.silu

    def grouped():
        h = torch._grouped_mm(rows, w13.transpose(-2, -1), offs=offsets)
        act = silu(h[:, :inter]) * h[:, inter:]
        return torch._grouped_mm(act, w2.transpose(-2, -1), offs=offsets)

    bounds = [0] + offsets.tolist()

    def loop():
        outs = []
        for e in range(experts):
            part = rows[bounds[e]:bounds[e + 1]]
            h = part @ w13[e].t()
            outs.append((silu(h[:, :inter]) * h[:, inter:]) @ w2[e].t())
        return torch.cat(outs)

    return [("grouped_mm", grouped), ("loop", loop)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=300,
                        help="seconds after which the rest is skipped")
    parser.add_argument("cases", nargs="+")
    args = parser.parse_args()
    import torch
    from triton.testing import do_bench

    deadline = time.monotonic() + args.budget
    makers = {"gemm": gemm_peers, "attn": attention_peers,
              "decode": decode_peers, "moe": moe_peers}
    names = {"gemm": ("cublas", "triton"), "attn": ("flash", "flex"),
             "decode": ("flash", "flex"), "moe": ("grouped_mm", "loop")}
    # Two passes: first each case's library peer (cuBLAS, flash, grouped_mm),
    # then the peers that compile (Triton autotuning, flex_attention) and
    # the MoE loop, so that a budget spent compiling skips those, not the
    # libraries' timings.
    for first in (True, False):
        for case in args.cases:
            kind, *numbers = case.split(":")
            if time.monotonic() > deadline:
                print(f"{case} {names[kind][0 if first else 1]} skipped",
                      flush=True)
                continue
            try:
                peers = makers[kind](torch, *[int(x) for x in numbers])
            except Exception as error:  # a peer that cannot run is a row
                if first:
                    print(f"{case} all error {type(error).__name__}: {error}",
                          flush=True)
                continue
            name, fn = peers[0 if first else 1]
            try:
                ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
                print(f"{case} {name} {ms:.5f}", flush=True)
            except Exception as error:
                message = str(error).splitlines()[0] if str(error) else ""
                print(f"{case} {name} error {type(error).__name__}: {message}",
                      flush=True)
            del peers, fn
            torch.cuda.empty_cache()


if __name__ == "__main__":
    sys.exit(main())
