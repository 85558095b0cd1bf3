# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Tessera"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.substitutions.append(("llvm-objdump", os.path.join(config.llvm_tools_dir, "llvm-objdump")))
config.substitutions.append(("llvm-offload-binary", os.path.join(config.llvm_tools_dir, "llvm-offload-binary")))
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tessera_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%kernels", os.path.join(config.tessera_src_root, "runtime", "kernels")))
config.substitutions.append(("%examples", os.path.join(config.tessera_src_root, "examples", "kernels")))
config.substitutions.append(("%srcroot", config.tessera_src_root))
# The C++ compiler Tessera was built with: projects the tests configure use
# it too (a machine may have no default `c++`).
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%objroot", config.tessera_obj_root))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tools = ["tessera-opt", "tessera-compile", "tessera-run"]
if config.tessera_has_fuzzer:
    tools.append("tessera-fuzz")
    tools.append("tessera-bundle-fuzz")
    config.available_features.add("fuzzer")
llvm_config.add_tool_substitutions(tools, [config.tessera_tools_dir])
# Tests that assemble cubins need the CUDA toolkit's ptxas; without it they
# are reported as UNSUPPORTED ("ptxas" missing), not failed.
# Planted-bug tests need the test-only passes of test/lib.
if config.tessera_include_tests:
    config.available_features.add("test-passes")
if config.tessera_has_ptxas:
    config.available_features.add("ptxas")
# Math on GPU tiles links the vendors' libraries: CUDA's libdevice and
# ROCm's device libraries (Debian's rocm-device-libs).
if config.tessera_has_libdevice:
    config.available_features.add("libdevice")
if config.tessera_has_rocm_device_libs:
    config.available_features.add("rocm-device-libs")
# The stand-in libcuda.so.1 of test/fakecuda: its directory, to put first in
# LD_LIBRARY_PATH.
config.substitutions.append(
    ("%fakecuda", os.path.join(config.tessera_obj_root, "test", "fakecuda")))
# The stand-in libamdhip64.so of test/fakehip, likewise.
config.substitutions.append(
    ("%fakehip", os.path.join(config.tessera_obj_root, "test", "fakehip")))
# The Python running lit, for tests that stand in for a user's program.
config.substitutions.append(("%python", sys.executable))
# A FileCheck prefix for output that differs with and without ptxas.
config.substitutions.append(
    ("%ptxas-prefix", "PTXAS" if config.tessera_has_ptxas else "NOPTXAS"))
config.substitutions.append(
    ("%cubin-prefix", "CUBIN" if config.tessera_has_ptxas else "NOCUBIN"))
# GPU driver libraries: the runtime reaches them with dlopen; tests of the
# errors without one are UNSUPPORTED where one is installed.
import ctypes
for feature, libraries in [("cuda-driver", ["libcuda.so.1"]),
                           ("hip-driver", ["libamdhip64.so", "libamdhip64.so.7",
                                           "libamdhip64.so.6", "libamdhip64.so.5"])]:
    for library in libraries:
        try:
            ctypes.CDLL(library)
            config.available_features.add(feature)
            break
        except OSError:
            pass
