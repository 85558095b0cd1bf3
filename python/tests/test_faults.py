"""Faults a kernel or a bundle can have: errors, never a crash."""

import os
import subprocess

import numpy as np
import pytest

import tessera
from conftest import ROOT

ACROSS_WARPS = ROOT / "test" / "integration" / "Inputs" / "gpu_across_warps.mlir"


def test_garbage_bundle():
    with pytest.raises(tessera.DeviceError, match="not a Tessera bundle"):
        tessera.Bundle(b"garbage" * 10).kernels()


def test_flipped_image_byte(axpy_bundle):
    data = bytearray(bytes(axpy_bundle))
    data[len(data) // 2] ^= 0x40
    with pytest.raises(tessera.DeviceError, match="cannot load"):
        tessera.Bundle(bytes(data)).kernels()


def test_no_image_for_device():
    bundle = tessera.compile(ACROSS_WARPS, targets=["host"], cache=False)
    with pytest.raises(tessera.DeviceError, match="cannot load"):
        bundle.kernels("emu:sm_80")


@pytest.mark.skipif(
    not os.environ.get("TESSERA_COMPILE"),
    reason="needs TESSERA_COMPILE, a tessera-compile with the test passes "
    "(ctest sets it)",
)
def test_race_is_a_kernel_error(tmp_path):
    # The barrier after the loads removed in the per-thread code (a
    # test-only pass of tessera-compile): the next iteration's stores race
    # with another warp's reads, which the emulator's detector names.
    path = tmp_path / "bug.bundle"
    subprocess.run(
        [os.environ["TESSERA_COMPILE"], str(ACROSS_WARPS), "--target=sm_80",
         "--gpu-passes=test-gpu-plant-bug{bug=scratch-barrier}", "-o", str(path)],
        check=True, capture_output=True)
    kernel = tessera.load(path)["column_max_loop"]
    x = np.random.default_rng(1).standard_normal((150, 100)).astype(np.float32)
    m = np.zeros((1, 100), dtype=np.float32)
    with pytest.raises(tessera.KernelError, match="with no barrier between"):
        kernel(x, m, grid=2, device="emu:sm_80", races=True)
