"""Launches on the host and the emulators with NumPy arrays, checked against
float64 references, and the errors bad arguments raise."""

import numpy as np
import pytest

import tessera
from conftest import from_bf16, to_bf16

DEVICES = ["host", "emu:sm_80", "emu:gfx942"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("n", [1, 256, 1000])
def test_axpy(axpy_bundle, device, n):
    rng = np.random.default_rng(n)
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    expected = 1.5 * x.astype(np.float64) + y.astype(np.float64)
    axpy_bundle["axpy"](x, y, 1.5, grid=(n + 255) // 256, device=device,
                        races=device.startswith("emu"))
    np.testing.assert_allclose(y, expected, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("device", ["host", "emu:sm_90a"])
def test_gemm_bf16(gemm_bundle, device):
    m, n, k = 200, 72, 72  # ragged: not multiples of the 128x128 tile
    rng = np.random.default_rng(7)
    a = to_bf16(rng.standard_normal((m, k)))
    b = to_bf16(rng.standard_normal((k, n)))
    c = np.full((m, n), 0x7FC0, dtype=np.uint16)  # poisoned: NaN
    gemm_bundle["gemm_bf16"](a, b, c, grid=((m + 127) // 128, (n + 127) // 128),
                             device=device, races=device.startswith("emu"))
    expected = from_bf16(a) @ from_bf16(b)
    got = from_bf16(c)
    assert np.isfinite(got).all()
    # bf16 output: 8 bits of mantissa.
    np.testing.assert_allclose(got, expected, rtol=2e-2, atol=2e-2 * np.sqrt(k))


def test_strided_view(axpy_bundle):
    x = np.arange(512, dtype=np.float32)
    y = np.zeros((2, 512), dtype=np.float32)
    axpy_bundle["axpy"](x, y[1], 2.0, grid=2)
    np.testing.assert_array_equal(y[1], 2.0 * x)
    assert not y[0].any()


def test_interpret_mode(gemm_bundle, monkeypatch):
    monkeypatch.setenv("TESSERA_INTERPRET", "1")
    a = to_bf16(np.eye(64, dtype=np.float32))
    b = to_bf16(np.arange(64 * 64, dtype=np.float32).reshape(64, 64) / 64)
    c = np.zeros((64, 64), dtype=np.uint16)
    # "cuda" runs on the sm_90a emulator.
    gemm_bundle["gemm_bf16"](a, b, c, grid=(1, 1), device="cuda")
    np.testing.assert_array_equal(c, b)


def test_wrong_arguments(axpy_bundle):
    axpy = axpy_bundle["axpy"]
    # Errors name the arguments as the source does.
    assert axpy.info("emu:gfx942")["arg_names"] == ["X", "Y", "a"]
    assert axpy.info()["args"] == ["view:f32:1", "view:f32:1", "scalar:f32"]
    x = np.zeros(256, dtype=np.float32)
    with pytest.raises(TypeError, match=r"argument 0 \(X, view:f32:1\) of kernel 'axpy'"):
        axpy(x.astype(np.float64), x, 1.0)
    with pytest.raises(ValueError, match=r"argument 1 \(Y, view:f32:1\) of kernel 'axpy' takes rank 1; the array has rank 2"):
        axpy(x, x.reshape(16, 16), 1.0)
    with pytest.raises(TypeError, match="takes 3 arguments; given 2"):
        axpy(x, x)
    with pytest.raises(TypeError, match=r"argument 2 \(a, scalar:f32\) .* takes a float"):
        axpy(x, x, "one")
    with pytest.raises(TypeError, match="not a DLPack|takes an array"):
        axpy([0.0] * 256, x, 1.0)
    with pytest.raises(ValueError, match="innermost dimension"):
        axpy(np.zeros(512, dtype=np.float32)[::2], x, 1.0)
    with pytest.raises(ValueError, match="unknown device"):
        axpy(x, x, 1.0, device="tpu")
    with pytest.raises(ValueError, match="grid"):
        axpy(x, x, 1.0, grid=(0,))
    with pytest.raises(KeyError):
        axpy_bundle["nope"](x, x, 1.0)
    with pytest.raises(ValueError, match="no chip .sm_99."):
        axpy(x, x, 1.0, device="emu:sm_99")


def test_extent_assumption(gemm_bundle):
    # The kernel's proof assumed that A and B agree on K: a launch that
    # breaks it is refused before it runs.
    a = np.zeros((64, 64), dtype=np.uint16)
    b = np.zeros((32, 64), dtype=np.uint16)
    c = np.zeros((64, 64), dtype=np.uint16)
    with pytest.raises(ValueError, match="A and B agree on K"):
        gemm_bundle["gemm_bf16"](a, b, c, grid=(1, 1))


def test_integer_scalars():
    source = """
tile.kernel @fill(%Y: !tile.view<?xi32>, %v: i32) threads(32) {
  %c0 = arith.constant 0 : index
  %t = tile.splat %v : i32 -> tensor<32xi32>
  tile.store %t -> %Y[%c0] : tensor<32xi32> -> !tile.view<?xi32>
  tile.return
}
"""
    fill = tessera.compile(source, cache=False)["fill"]
    y = np.zeros(32, dtype=np.int32)
    fill(y, -7)
    assert (y == -7).all()
    with pytest.raises(ValueError, match="does not fit in i32"):
        fill(y, 2**40)
    with pytest.raises(TypeError, match="takes an int"):
        fill(y, 1.5)
