"""PyTorch: tensors as kernel arguments, torch.ops.tessera.* against
PyTorch's own operators, and the ops inside a torch.compile graph."""

import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed (TESSERA_WITH_TORCH=1 "
    "scripts/install-deps.sh installs it into .venv)")

import tessera  # noqa: E402
from conftest import GEMM  # noqa: E402
from tessera import ops  # noqa: E402,F401  (registers torch.ops.tessera)


def bf16(*shape, generator, scale=1.0):
    return (scale * torch.randn(*shape, generator=generator, dtype=torch.float64)).to(torch.bfloat16)


def test_kernel_takes_bf16_tensors(gemm_bundle):
    g = torch.Generator().manual_seed(1)
    a, b = bf16(130, 64, generator=g), bf16(64, 72, generator=g)
    c = torch.full((130, 72), float("nan"), dtype=torch.bfloat16)
    gemm_bundle["gemm_bf16"](a, b, c, grid=(2, 1), device="emu:sm_90a", races=True)
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=2e-2, atol=0.1)
    with pytest.raises(TypeError, match="takes bf16 elements"):
        gemm_bundle["gemm_bf16"](a.float(), b, c, grid=(2, 1))


def test_gemm_op_matches_matmul():
    g = torch.Generator().manual_seed(2)
    a, b = bf16(100, 96, generator=g), bf16(96, 50, generator=g)
    c = torch.ops.tessera.gemm(a, b)
    assert c.dtype == torch.bfloat16 and c.shape == (100, 50)
    torch.testing.assert_close(c.double(), torch.matmul(a.double(), b.double()),
                               rtol=2e-2, atol=0.1)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("heads,kv_heads", [(4, 4), (4, 1), (8, 2)])
def test_attention_op_matches_sdpa(causal, heads, kv_heads):
    g = torch.Generator().manual_seed(heads * 10 + kv_heads)
    batch, seq, d = 2, 45, 64
    q = bf16(batch, heads, seq, d, generator=g)
    k = bf16(batch, kv_heads, seq, d, generator=g)
    v = bf16(batch, kv_heads, seq, d, generator=g)
    o = torch.ops.tessera.attention(q.reshape(batch * heads, seq, d),
                                    k.reshape(batch * kv_heads, seq, d),
                                    v.reshape(batch * kv_heads, seq, d), causal)
    expected = torch.nn.functional.scaled_dot_product_attention(
        q.double(), k.double(), v.double(), is_causal=causal,
        enable_gqa=heads != kv_heads)
    torch.testing.assert_close(o.reshape(batch, heads, seq, d).double(), expected,
                               rtol=2e-2, atol=2e-2)


def test_attention_decode_op_matches_sdpa():
    # One new token of 8 query heads on 2 kv heads, sequences of ragged
    # lengths in a cache of 200 positions; SDPA sees each sequence's keys.
    g = torch.Generator().manual_seed(17)
    batch, heads, kv_heads, max_len, d = 3, 8, 2, 200, 128
    lengths = torch.tensor([200, 1, 77], dtype=torch.int32)
    q = bf16(batch, heads, d, generator=g)
    k = bf16(batch, kv_heads, max_len, d, generator=g)
    v = bf16(batch, kv_heads, max_len, d, generator=g)
    o = torch.ops.tessera.attention_decode(
        q.reshape(batch * kv_heads, heads // kv_heads, d),
        k.reshape(batch * kv_heads, max_len, d),
        v.reshape(batch * kv_heads, max_len, d), lengths, heads // kv_heads)
    for b in range(batch):
        n = int(lengths[b])
        expected = torch.nn.functional.scaled_dot_product_attention(
            q[b, :, None].double(), k[b, :, :n].double(), v[b, :, :n].double(),
            enable_gqa=True)
        torch.testing.assert_close(
            o.reshape(batch, heads, d)[b].double(), expected[:, 0],
            rtol=2e-2, atol=2e-2)


def test_moe_op():
    g = torch.Generator().manual_seed(3)
    tokens, experts, topk, dim, inter = 6, 4, 2, 64, 64
    x = bf16(tokens, dim, generator=g)
    w13 = bf16(experts, 2 * inter, dim, generator=g, scale=0.2)
    w2 = bf16(experts, dim, inter, generator=g, scale=0.2)
    ids = torch.stack([torch.randperm(experts, generator=g)[:topk] for _ in range(tokens)]).int()
    weights = torch.rand(tokens, topk, generator=g)
    out = torch.ops.tessera.moe(x, w13, w2, ids, weights)
    expected = torch.zeros(tokens, dim, dtype=torch.float64)
    for t in range(tokens):
        for j in range(topk):
            e = int(ids[t, j])
            gu = w13[e].double() @ x[t].double()
            h = (torch.nn.functional.silu(gu[:inter]) * gu[inter:]).bfloat16().double()
            expected[t] += float(weights[t, j]) * (w2[e].double() @ h)
    torch.testing.assert_close(out.double(), expected, rtol=3e-2, atol=3e-2)


def test_gemm_quantized_op():
    g = torch.Generator().manual_seed(4)
    w = torch.randn(128, 64, generator=g)
    qw = ops.quantize_weights(w.numpy(), "int8", group=0)
    a = bf16(20, 128, generator=g)
    c = torch.ops.tessera.gemm_quantized(
        a, torch.from_numpy(qw.codes), torch.from_numpy(qw.scales), None,
        "int8", 0, False, 64)
    dequant = torch.from_numpy(qw.codes).double() * torch.from_numpy(qw.scales).double()
    torch.testing.assert_close(c.double(), a.double() @ dequant, rtol=2e-2, atol=0.2)


def test_ops_in_a_compiled_graph():
    g = torch.Generator().manual_seed(5)
    a, b = bf16(64, 64, generator=g), bf16(64, 64, generator=g)

    def f(a, b):
        return torch.relu(torch.ops.tessera.gemm(a, b)) * 2

    compiled = torch.compile(f, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(a, b), f(a, b))

    # A decode step: the new token's projection, then attention over the
    # cache, in one graph.
    k = bf16(2, 100, 128, generator=g)
    v = bf16(2, 100, 128, generator=g)
    wq = bf16(128, 512, generator=g)
    lengths = torch.tensor([100], dtype=torch.int32)

    def step(x, k, v, lengths):
        q = torch.ops.tessera.gemm(x, wq).reshape(2, 2, 128)
        return torch.ops.tessera.attention_decode(q, k, v, lengths, 2)

    x = bf16(1, 128, generator=g)
    compiled = torch.compile(step, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(x, k, v, lengths), step(x, k, v, lengths))


def test_interpret_mode_runs_ops_on_the_emulator(monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "sm_80")
    g = torch.Generator().manual_seed(6)
    a, b = bf16(64, 32, generator=g), bf16(32, 48, generator=g)
    c = torch.ops.tessera.gemm(a, b)
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=2e-2, atol=0.1)


cuda = pytest.mark.skipif(not torch.cuda.is_available(),
                          reason="no CUDA device (these run on a GPU machine)")


@cuda
def test_cuda_tensors_on_the_current_stream():
    # A bundle with an sm_90a image; CUDA tensors without a stream argument
    # go on PyTorch's current stream, after the work queued there.
    bundle = tessera.compile(GEMM, targets=["sm_90a"], cache=False)
    g = torch.Generator().manual_seed(7)
    a = bf16(256, 128, generator=g).cuda()
    b = bf16(128, 192, generator=g).cuda()
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        c = torch.full((256, 192), float("nan"), dtype=torch.bfloat16, device="cuda")
        bundle["gemm_bf16"](a, b, c, grid=(2, 2), device="cuda")
    stream.synchronize()
    torch.testing.assert_close(c.double(), a.double() @ b.double(), rtol=2e-2, atol=0.2)


@cuda
def test_cuda_ops_match_torch():
    g = torch.Generator().manual_seed(8)
    a, b = bf16(200, 96, generator=g).cuda(), bf16(96, 136, generator=g).cuda()
    torch.testing.assert_close(torch.ops.tessera.gemm(a, b).double(),
                               a.double() @ b.double(), rtol=2e-2, atol=0.2)
