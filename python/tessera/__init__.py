"""Tessera from Python: compile, check and launch tile kernels.

    import numpy as np, tessera
    bundle = tessera.compile("gemm.mlir", targets=["host", "sm_90a"])
    bundle["gemm_bf16"](A, B, C, grid=(4, 3), device="emu:sm_90a", races=True)
    tessera.check("gemm.mlir")   # what tag-check proved, or CompileError

Arrays are NumPy arrays or any DLPack tensor (PyTorch, CuPy), passed to the
kernel without copies: on the host and the emulator they must be in host
memory, on "cuda:N" and "hip:N" in that GPU's memory. Element types NumPy
lacks (bf16, fp8, int4) are also taken as their bits (uint16, uint8; int4
as uint8 with two codes per byte), and ml_dtypes' bfloat16 and float8
arrays are passed as such bits.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
from typing import Iterable, Sequence, Union

from . import _tessera
from ._tessera import DeviceError, KernelError

__all__ = [
    "Bundle",
    "CompileError",
    "DeviceError",
    "Kernel",
    "KernelError",
    "check",
    "compile",
    "load",
    "ops",
    "targets",
]

Source = Union[str, "os.PathLike[str]"]


class CompileError(Exception):
    """A kernel that does not compile or that tag-check refuses.

    `diagnostics` holds the compiler's messages, each with file:line:col,
    and tag-check's counterexample where it found one.
    """

    def __init__(self, diagnostics: str):
        super().__init__(diagnostics.rstrip() or "compile failed")
        self.diagnostics = diagnostics


def targets() -> dict[str, list[str]]:
    """The targets this build compiles for and the images each gives."""
    result = {}
    for line in _tessera.describe_targets().splitlines():
        name, *images = line.split()
        result[name] = images
    return result


def _read_sources(source: Union[Source, Iterable[Source]]) -> list[tuple[str, str]]:
    """(name, text) of each input: a path, or MLIR text given as a string."""
    if isinstance(source, (str, os.PathLike)):
        source = [source]
    inputs = []
    for item in source:
        if isinstance(item, str) and ("\n" in item or "tile.kernel" in item):
            inputs.append(("<string>", item))
            continue
        path = os.fspath(item)
        with open(path, encoding="utf-8") as f:
            inputs.append((path, f.read()))
    if not inputs:
        raise ValueError("no source to compile")
    return inputs


def _compiler_version() -> str:
    """A digest of the compiled extension: cached bundles of another build
    are not reused."""
    global _VERSION
    if _VERSION is None:
        with open(_tessera.__file__, "rb") as f:
            _VERSION = hashlib.sha256(f.read()).hexdigest()
    return _VERSION


_VERSION = None


def cache_dir() -> str | None:
    """Where compiled bundles are kept: $TESSERA_CACHE_DIR, else
    ~/.cache/tessera; None when TESSERA_CACHE=0 turns the cache off."""
    if os.environ.get("TESSERA_CACHE", "1") == "0":
        return None
    return os.environ.get("TESSERA_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "tessera"
    )


def compile(
    source: Union[Source, Iterable[Source]],
    targets: Sequence[str] = ("host",),
    passes: str = "",
    *,
    gpu_passes: str = "",
    tag_check: bool = True,
    rlimit: int = 4000000,
    ptxas: str = "",
    cache: bool = True,
) -> "Bundle":
    """Compiles the kernels of `source` (a path, MLIR text, or a list of
    them) for `targets` (host, sm_80, sm_90a, gfx942, gfx90a), running the
    tile `passes` (a pass pipeline, as tessera-compile's --passes) and
    tag-check. Raises CompileError with the diagnostics on failure.

    With `cache`, a bundle compiled before from the same sources, options
    and compiler is read from cache_dir() instead."""
    if isinstance(targets, str):
        targets = [t for t in targets.split(",") if t]
    inputs = _read_sources(source)
    options = (list(targets), passes, gpu_passes, tag_check, rlimit, ptxas)
    key = None
    directory = cache_dir() if cache else None
    if directory:
        digest = hashlib.sha256()
        for part in (_compiler_version(), repr(options), *(t for i in inputs for t in i)):
            digest.update(part.encode())
            digest.update(b"\0")
        key = os.path.join(directory, digest.hexdigest() + ".bundle")
        try:
            with open(key, "rb") as f:
                return Bundle(f.read(), cached=True)
        except OSError:
            pass
    ok, output, diagnostics = _tessera.compile(
        inputs, list(targets), passes, gpu_passes, tag_check, rlimit, ptxas
    )
    if not ok:
        raise CompileError(diagnostics)
    if key:
        try:
            os.makedirs(directory, exist_ok=True)
            partial = f"{key}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(partial, "wb") as f:
                f.write(output)
            os.replace(partial, key)
        except OSError:
            pass  # a cache that cannot be written is no cache
    return Bundle(output, diagnostics=diagnostics)


def check(
    source: Union[Source, Iterable[Source]],
    targets: Sequence[str] = (),
    passes: str = "",
    *,
    rlimit: int = 4000000,
) -> list[str]:
    """Proves the tag invariants of the kernels of `source` (after the tile
    `passes`; `targets` only say whose shared memory the kernels must fit).
    Returns one line per kernel saying what was proved; raises CompileError
    with the counterexample when an invariant does not hold."""
    if isinstance(targets, str):
        targets = [t for t in targets.split(",") if t]
    ok, proofs, diagnostics = _tessera.check(
        _read_sources(source), list(targets), passes, rlimit
    )
    if not ok:
        raise CompileError(diagnostics)
    return list(proofs)


def load(path: Source) -> "Bundle":
    """Reads a bundle file (tessera-compile's output)."""
    with open(os.fspath(path), "rb") as f:
        return Bundle(f.read())


_DEVICES: dict[tuple[str, int], "_tessera.Device"] = {}
_DEVICES_LOCK = threading.Lock()


def _interpreted(kind: str, chip: str) -> tuple[str, str]:
    """TESSERA_INTERPRET=1 (or a chip name) runs CUDA and HIP launches on
    the emulator: sm_90a for CUDA and gfx942 for HIP unless a chip is named."""
    mode = os.environ.get("TESSERA_INTERPRET", "")
    if not mode or mode == "0" or kind not in ("cuda", "hip"):
        return kind, chip
    if mode == "1":
        return "emu", "sm_90a" if kind == "cuda" else "gfx942"
    return "emu", mode


def _parse_device(device: str) -> tuple[str, int, str]:
    """(kind, ordinal, emulated chip) of "host", "emu[:chip]", "cuda[:n]",
    "hip[:n]"."""
    kind, _, rest = device.partition(":")
    ordinal, chip = 0, ""
    if kind == "emu":
        chip = rest
    elif rest:
        if not rest.isdigit():
            raise ValueError(f"device '{device}': the ordinal must be a number")
        ordinal = int(rest)
    if kind not in ("host", "emu", "cuda", "hip"):
        raise ValueError(
            f"unknown device '{device}'; use host, emu[:chip], cuda[:n] or hip[:n]"
        )
    kind, chip = _interpreted(kind, chip)
    if kind == "emu":
        ordinal = 0
    return kind, ordinal, chip


def _open_device(device: str, threads: int) -> "_tessera.Device":
    kind, ordinal, chip = _parse_device(device)
    key = (f"{kind}:{ordinal}:{chip}", threads)
    with _DEVICES_LOCK:
        if key not in _DEVICES:
            _DEVICES[key] = _tessera.Device(kind, ordinal, chip, threads)
        return _DEVICES[key]


def _native_stream(stream, args, kind: str):
    """The driver stream handle a launch on a device of `kind` queues on, or
    None to launch and wait."""
    if stream is not None:
        for attribute in ("cuda_stream", "ptr"):
            if hasattr(stream, attribute):
                stream = getattr(stream, attribute)
                break
        if not isinstance(stream, int) or isinstance(stream, bool) or stream < 0:
            raise TypeError(
                "stream takes a driver stream handle (int) or an object with "
                "cuda_stream or ptr")
        if kind not in ("cuda", "hip"):
            raise ValueError(f"a {kind} device has no driver streams")
        return stream
    torch = sys.modules.get("torch")
    if torch is None or kind not in ("cuda", "hip"):
        return None
    for arg in args:
        if isinstance(arg, torch.Tensor) and arg.is_cuda:
            return torch.cuda.current_stream(arg.device).cuda_stream
    return None


# ml_dtypes' NumPy dtypes, which NumPy cannot export through DLPack: passed
# as their bits.
_BIT_VIEWS = {
    "bfloat16": "uint16",
    "float8_e4m3fn": "uint8",
    "float8_e5m2": "uint8",
}


def _as_argument(value):
    dtype = getattr(value, "dtype", None)
    if type(value).__module__ == "numpy" and getattr(dtype, "name", "") in _BIT_VIEWS:
        return value.view(_BIT_VIEWS[dtype.name])
    return value


class Kernel:
    """One kernel of a bundle; calling it launches it and waits."""

    def __init__(self, bundle: "Bundle", name: str):
        self.bundle = bundle
        self.name = name

    def info(self, device: str = "host") -> dict:
        """The kernel's threads, shared bytes, argument kinds ("view:bf16:2",
        "scalar:i32") and names, persistence and cluster, as `device`'s
        image says."""
        for name, threads, shared, args, names, persistent, cluster in (
            self.bundle._module(device, 0).kernels()
        ):
            if name == self.name:
                return {
                    "threads": threads,
                    "shared_bytes": shared,
                    "args": args,
                    "arg_names": names,
                    "persistent": persistent,
                    "cluster": cluster,
                }
        raise KeyError(f"no kernel '{self.name}' in the bundle")

    def __call__(
        self,
        *args,
        grid: Union[int, Sequence[int]] = 1,
        device: str = "host",
        races: bool = False,
        threads: int = 0,
        stream=None,
    ) -> None:
        """Launches the kernel over `grid` (1 to 3 sizes) on `device` ("host",
        "emu:<chip>", "cuda:<n>", "hip:<n>") and waits for it. `races`
        turns on the emulator's race detector; `threads` sets a host or
        emulator device's worker threads. Wrong dtypes raise TypeError,
        wrong ranks, extents or devices ValueError, a kernel fault
        KernelError.

        On CUDA and HIP the launch is queued on `stream` (a CUstream or
        hipStream_t as an int, or an object with `cuda_stream`, such as a
        torch.cuda.Stream, or `ptr`, such as a CuPy stream) and not waited
        for; without one, on PyTorch's current stream of the first CUDA
        tensor among the arguments; else it waits."""
        if isinstance(grid, int):
            grid = (grid,)
        grid = tuple(grid)
        if not 1 <= len(grid) <= 3:
            raise ValueError("the grid has 1 to 3 sizes")
        grid = grid + (1,) * (3 - len(grid))
        native = _native_stream(stream, args, _parse_device(device)[0])
        module = self.bundle._module(device, threads)
        module.launch(self.name, [_as_argument(a) for a in args], grid, races,
                      native)

    def __repr__(self) -> str:
        return f"<tessera.Kernel {self.name}>"


class Bundle:
    """A compiled bundle: kernels for every target it was compiled for."""

    def __init__(self, data: bytes, *, cached: bool = False, diagnostics: str = ""):
        self.data = bytes(data)
        self.cached = cached
        # Warnings of the compile (a missing ptxas, say).
        self.diagnostics = diagnostics
        self._modules: dict[tuple[str, int], "_tessera.Module"] = {}
        self._lock = threading.Lock()

    def _module(self, device: str, threads: int) -> "_tessera.Module":
        key = (device, threads)
        with self._lock:
            if key not in self._modules:
                self._modules[key] = _tessera.Module(
                    _open_device(device, threads), self.data
                )
            return self._modules[key]

    def kernels(self, device: str = "host") -> list[str]:
        """The names of the kernels in `device`'s image."""
        return [k[0] for k in self._module(device, 0).kernels()]

    def __getitem__(self, name: str) -> Kernel:
        return Kernel(self, name)

    def save(self, path: Source) -> None:
        with open(os.fspath(path), "wb") as f:
            f.write(self.data)

    def __bytes__(self) -> bytes:
        return self.data

    def __repr__(self) -> str:
        return f"<tessera.Bundle {len(self.data)} bytes>"


from . import ops  # noqa: E402  (ops builds on the helpers above)
