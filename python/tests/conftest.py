"""Shared fixtures: kernels compiled once per session, and bf16 helpers."""

import os
import pathlib

import numpy as np
import pytest

import tessera

ROOT = pathlib.Path(__file__).resolve().parents[2]
AXPY = ROOT / "examples" / "scale-and-add" / "axpy.mlir"
GEMM = ROOT / "runtime" / "kernels" / "gemm" / "gemm_bf16.mlir"


@pytest.fixture(scope="session")
def axpy_bundle():
    return tessera.compile(AXPY, targets=["host", "sm_80", "gfx942"], cache=False)


@pytest.fixture(scope="session")
def gemm_bundle():
    return tessera.compile(GEMM, targets=["host", "sm_90a"], cache=False)


def to_bf16(x):
    """float32 values as bf16 bits (uint16), rounded to nearest even."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounded = bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))
    return (rounded >> np.uint32(16)).astype(np.uint16)


def from_bf16(bits):
    """bf16 bits (uint16) as float64."""
    wide = bits.astype(np.uint32) << np.uint32(16)
    return wide.view(np.float32).astype(np.float64)
