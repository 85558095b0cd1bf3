"""tessera.compile, tessera.check and the bundle cache."""

import os

import pytest

import tessera
from conftest import AXPY, GEMM

# axpy whose assertion names the neighbouring element of Y: tag-check must
# refuse it with a counterexample.
WRONG_AXPY = AXPY.read_text().replace(
    "%y[(d0) -> (d0)](i)", "%y[(d0) -> (d0 + 1)](i)"
)


def test_compile_text_and_list_kernels():
    bundle = tessera.compile(AXPY.read_text(), targets="host", cache=False)
    assert bundle.kernels("host") == ["axpy"]
    assert len(bytes(bundle)) > 0


def test_parse_error_has_location():
    with pytest.raises(tessera.CompileError) as info:
        tessera.compile("tile.kernel @k() threads(32) {\n  %x = bogus.op\n}\n",
                        cache=False)
    assert "<string>:2:" in info.value.diagnostics


def test_tag_check_counterexample():
    assert WRONG_AXPY != AXPY.read_text()
    with pytest.raises(tessera.CompileError) as info:
        tessera.compile(WRONG_AXPY, cache=False)
    text = info.value.diagnostics
    assert "<string>:" in text
    assert "counterexample" in text
    # Without the check the same kernel compiles.
    tessera.compile(WRONG_AXPY, tag_check=False, cache=False)


def test_check_reports_proofs():
    proofs = tessera.check(GEMM)
    assert len(proofs) == 1
    assert proofs[0].startswith("tag-check: @gemm_bf16: ")
    assert "0 failed" in proofs[0]
    with pytest.raises(tessera.CompileError, match="counterexample"):
        tessera.check(WRONG_AXPY)


def test_check_after_passes():
    proofs = tessera.check(GEMM, targets=["sm_90a"], passes="tile-pipeline")
    assert "0 failed" in proofs[0]


def test_bad_options():
    with pytest.raises(tessera.CompileError, match="unknown target 'sm_99'"):
        tessera.compile(AXPY, targets=["sm_99"], cache=False)
    with pytest.raises(tessera.CompileError, match="cannot parse"):
        tessera.compile(AXPY, passes="no-such-pass", cache=False)
    with pytest.raises(tessera.CompileError, match="no target"):
        tessera.compile(AXPY, targets=[], cache=False)
    with pytest.raises(FileNotFoundError):
        tessera.compile("no/such/file.mlir")


def test_targets():
    known = tessera.targets()
    assert known["host"] == ["host"]
    assert "emu-sm_90a" in known["sm_90a"]
    assert "gfx942-hsaco" in known["gfx942"]


def test_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TESSERA_CACHE_DIR", str(tmp_path))
    first = tessera.compile(AXPY, targets=["host"])
    assert not first.cached
    assert len(list(tmp_path.glob("*.bundle"))) == 1
    second = tessera.compile(AXPY, targets=["host"])
    assert second.cached and bytes(second) == bytes(first)
    # Other options are another entry.
    third = tessera.compile(AXPY, targets=["host"], tag_check=False)
    assert not third.cached
    assert len(list(tmp_path.glob("*.bundle"))) == 2
    monkeypatch.setenv("TESSERA_CACHE", "0")
    assert not tessera.compile(AXPY, targets=["host"]).cached


def test_save_and_load(tmp_path, axpy_bundle):
    path = tmp_path / "axpy.bundle"
    axpy_bundle.save(path)
    assert bytes(tessera.load(path)) == bytes(axpy_bundle)
