"""tessera.ops against float64 references, on the host and the emulator."""

import numpy as np
import pytest

import tessera
from tessera import ops
from conftest import from_bf16, to_bf16


def bf16_random(rng, shape, scale=1.0):
    return to_bf16(scale * rng.standard_normal(shape))


@pytest.mark.parametrize("device", ["host", "emu:sm_80"])
def test_gemm(device):
    rng = np.random.default_rng(3)
    a, b = bf16_random(rng, (100, 64)), bf16_random(rng, (64, 70))
    c = np.full((100, 70), 0x7FC0, dtype=np.uint16)  # poisoned: NaN
    assert ops.gemm(a, b, c, device=device) is c
    expected = from_bf16(a) @ from_bf16(b)
    np.testing.assert_allclose(from_bf16(c), expected, rtol=2e-2, atol=0.2)
    # Allocated like A.
    d = ops.gemm(a, b, device=device)
    assert d.dtype == np.uint16 and d.shape == (100, 70)
    np.testing.assert_array_equal(d, c)


def reference_attention(q, k, v, heads, kv_heads, causal, scale):
    q, k, v = from_bf16(q), from_bf16(k), from_bf16(v)
    out = np.empty_like(q)
    for bh in range(q.shape[0]):
        b, h = divmod(bh, heads)
        kv = b * kv_heads + h // (heads // kv_heads)
        s = scale * q[bh] @ k[kv].T
        if causal:
            s = np.where(np.tril(np.ones(s.shape, dtype=bool)), s, -np.inf)
        p = np.exp(s - s.max(axis=1, keepdims=True))
        out[bh] = (p / p.sum(axis=1, keepdims=True)) @ v[kv]
    return out


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("device", ["host", "emu:sm_80"])
def test_attention_gqa(device, causal):
    rng = np.random.default_rng(5)
    batch, heads, kv_heads, seq, d = 1, 4, 2, 70, 64
    q = bf16_random(rng, (batch * heads, seq, d))
    k = bf16_random(rng, (batch * kv_heads, seq, d))
    v = bf16_random(rng, (batch * kv_heads, seq, d))
    o = ops.attention(q, k, v, causal=causal, device=device)
    expected = reference_attention(q, k, v, heads, kv_heads, causal, d**-0.5)
    np.testing.assert_allclose(from_bf16(o), expected, rtol=2e-2, atol=2e-2)


@pytest.mark.parametrize("device", ["host", "emu:sm_90a"])
def test_attention_decode(device):
    # Two sequences of two kv heads, group 4, two new tokens each; cache
    # positions past a length hold NaN, which no result may read.
    rng = np.random.default_rng(7)
    kv_heads, group, q_len, max_len, d = 2, 4, 2, 150, 128
    lengths = np.array([150, 67], dtype=np.int32)
    rows, bhs = q_len * group, len(lengths) * kv_heads
    q = bf16_random(rng, (bhs, rows, d))
    k = bf16_random(rng, (bhs, max_len, d))
    v = bf16_random(rng, (bhs, max_len, d))
    for bh in range(bhs):
        k[bh, lengths[bh // kv_heads]:] = v[bh, lengths[bh // kv_heads]:] = 0x7FC0
    o = ops.attention_decode(q, k, v, lengths, group=group, splits=2,
                             device=device)
    expected = np.empty((bhs, rows, d))
    for bh in range(bhs):
        n = lengths[bh // kv_heads]
        for r in range(rows):
            seen = n - q_len + r // group + 1
            s = d**-0.5 * from_bf16(k[bh, :seen]) @ from_bf16(q[bh, r])
            p = np.exp(s - s.max())
            expected[bh, r] = p / p.sum() @ from_bf16(v[bh, :seen])
    np.testing.assert_allclose(from_bf16(o), expected, rtol=2e-2, atol=2e-2)
    # More query rows than a program holds.
    with pytest.raises(ValueError, match="1 to 16 query rows"):
        ops.attention_decode(np.zeros((bhs, 17, d), np.uint16), k, v, lengths,
                             group=1, device=device)


@pytest.mark.parametrize("device", ["host", "emu:sm_80"])
def test_moe(device):
    rng = np.random.default_rng(11)
    tokens, experts, topk, dim, inter = 9, 4, 2, 64, 64
    x = bf16_random(rng, (tokens, dim))
    w13 = bf16_random(rng, (experts, 2 * inter, dim), 0.2)
    w2 = bf16_random(rng, (experts, dim, inter), 0.2)
    ids = np.stack([rng.permutation(experts)[:topk] for _ in range(tokens)]).astype(np.int32)
    weights = rng.random((tokens, topk)).astype(np.float32)
    out = ops.moe(x, w13, w2, ids, weights, device=device)
    assert out.dtype == np.float32 and out.shape == (tokens, dim)
    xf, w13f, w2f = from_bf16(x), from_bf16(w13), from_bf16(w2)
    expected = np.zeros((tokens, dim))
    for t in range(tokens):
        for j in range(topk):
            e = ids[t, j]
            gate, up = w13f[e, :inter] @ xf[t], w13f[e, inter:] @ xf[t]
            h = gate / (1 + np.exp(-gate)) * up
            h = from_bf16(to_bf16(h))  # the kernels keep h in bf16
            expected[t] += weights[t, j] * (w2f[e] @ h)
    np.testing.assert_allclose(out, expected, rtol=3e-2, atol=3e-2)


@pytest.mark.parametrize("device", ["host", "emu:sm_80"])
@pytest.mark.parametrize("scheme", [("int8", 0, False), ("fp8", 128, False),
                                    ("int4", 128, False), ("int4", 64, True)])
def test_gemm_quantized(scheme, device):
    fmt, group, zero_points = scheme
    rng = np.random.default_rng(13)
    k, n = 256, 96
    w = rng.standard_normal((k, n)).astype(np.float32)
    qw = ops.quantize_weights(w, fmt, group=group, zero_points=zero_points)
    a = bf16_random(rng, (33, k))
    c = ops.gemm_quantized(a, qw, device=device)
    # The reference multiplies by the weights as quantized, not the
    # originals: quantization error is not the kernel's.
    expected = from_bf16(a) @ dequantize(qw)
    assert np.abs(dequantize(qw) - w).max() < 0.5  # the codes are w's
    np.testing.assert_allclose(from_bf16(c), expected, rtol=2e-2,
                               atol=2e-2 * np.sqrt(k))


def dequantize(qw):
    """qw's [K, N] weights in float64, decoded as the kernels read them."""
    k, n = qw.shape
    rows = np.arange(k)[:, None]
    if qw.format == "fp8":
        bits = qw.codes.astype(np.int64)
        exponent, mantissa = (bits >> 3) & 0xF, bits & 7
        magnitude = np.where(exponent == 0, mantissa / 8 * 2.0**-6,
                             (1 + mantissa / 8) * 2.0 ** (exponent - 7))
        values = np.where(bits & 0x80, -magnitude, magnitude)
        scales = qw.scales.astype(np.float64)
        return values * scales[rows // 128, np.arange(n)[None, :] // 128]
    if qw.format == "int4":
        nibbles = np.stack([qw.codes & 0xF, qw.codes >> 4], axis=-1)
        codes = nibbles.reshape(k, -1)[:, :n].astype(np.int64)
        codes = np.where(codes >= 8, codes - 16, codes)
    else:
        codes = qw.codes.astype(np.int64)
    groups = rows // qw.group if qw.group else np.zeros_like(rows)
    values = codes.astype(np.float64)
    if qw.zero_points:
        values = values - qw.zeros.astype(np.float64)[groups[:, 0]]
    return values * qw.scales.astype(np.float64)[groups[:, 0]]


def test_op_errors():
    a = np.zeros((64, 64), dtype=np.float32)
    with pytest.raises(TypeError, match="gemm: A takes bf16"):
        ops.gemm(a, a)
    q = np.zeros((2, 16, 96), dtype=np.uint16)
    with pytest.raises(ValueError):
        ops.attention(q, q, q)
    with pytest.raises(ValueError, match="unknown weight format"):
        ops.quantize_weights(a, "int3")
    with pytest.raises(ValueError, match="no shipped quantized GEMM"):
        ops.gemm_quantized(to_bf16(a), ops.quantize_weights(a, "int8", group=32))
