"""The CUDA path from Python on test/fakecuda's stand-in driver (device
memory is host memory there): DLPack tensors of a CUDA device, launches on
a stream of the caller's, and what a CUDA device refuses."""

import os
import subprocess
import sys

import pytest

from conftest import ROOT

FAKE_CUDA = os.environ.get("TESSERA_FAKE_CUDA_DIR")

SCRIPT = r'''
import ctypes, sys
import numpy as np
import tessera

bundle = tessera.compile(sys.argv[1], targets=["host", "sm_80"], cache=False)
cuda = ctypes.CDLL("libcuda.so.1")


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8),
                ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice),
                ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor),
                            ("manager_ctx", ctypes.c_void_p),
                            ("deleter", DELETER)]
capsule = ctypes.pythonapi.PyCapsule_New
capsule.restype = ctypes.py_object
capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class CudaArray:
    """A float32 NumPy array's memory presented as CUDA device 0's."""

    def __init__(self, array):
        self.array = array
        self.shape = (ctypes.c_int64 * array.ndim)(*array.shape)
        self.deleter = DELETER(lambda managed: None)
        self.managed = DLManagedTensor()
        t = self.managed.dl_tensor
        t.data = array.ctypes.data
        t.device = DLDevice(2, 0)
        t.ndim = array.ndim
        t.dtype = DLDataType(2, 32, 1)
        t.shape = self.shape
        self.managed.deleter = self.deleter

    def __dlpack__(self, stream=None, **kwargs):
        return capsule(ctypes.addressof(self.managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (2, 0)


scale = bundle["scale"]
x = np.arange(100, dtype=np.float32)
y = np.full(100, np.nan, dtype=np.float32)
stream = ctypes.c_void_p()
assert cuda.cuStreamCreate(ctypes.byref(stream), 0) == 0
scale(CudaArray(x), CudaArray(y), 3.0, grid=2, device="cuda", stream=stream.value)
assert cuda.cuStreamSynchronize(stream) == 0
assert (y == 3 * x).all(), y
# Objects with cuda_stream (torch.cuda.Stream) name their handle.
class TorchLikeStream:
    cuda_stream = stream.value
scale(CudaArray(x), CudaArray(y), 5.0, grid=2, device="cuda",
      stream=TorchLikeStream())
assert cuda.cuStreamSynchronize(stream) == 0
assert (y == 5 * x).all(), y
# Without a stream the launch waits.
scale(CudaArray(x), CudaArray(y), -1.0, grid=2, device="cuda")
assert (y == -x).all(), y
# Host memory on a CUDA device, and streams on the host, are refused.
for call, error, text in [
        (lambda: scale(x, y, 1.0, grid=2, device="cuda"), ValueError,
         "DLPack device 1:0, not on the launch's device"),
        (lambda: scale(x, y, 1.0, grid=2, device="host", stream=1), ValueError,
         "a host device has no driver streams"),
        (lambda: scale(x, y, 1.0, grid=2, device="cuda:0", stream="s"),
         TypeError, "stream takes")]:
    try:
        call()
    except error as e:
        assert text in str(e), str(e)
    else:
        raise AssertionError("no error: " + text)
print("ok")
'''


@pytest.mark.skipif(not FAKE_CUDA, reason="needs TESSERA_FAKE_CUDA_DIR, the "
                    "directory of test/fakecuda's libcuda.so.1 (ctest sets it)")
def test_cuda_launches_on_the_callers_stream(tmp_path):
    script = tmp_path / "fake_cuda.py"
    script.write_text(SCRIPT)
    env = dict(os.environ)
    env["LD_LIBRARY_PATH"] = FAKE_CUDA + ":" + env.get("LD_LIBRARY_PATH", "")
    result = subprocess.run(
        [sys.executable, str(script), str(ROOT / "test/unit/Inputs/scale.mlir")],
        env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
