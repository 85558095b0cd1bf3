#!/usr/bin/env bash
# Configures build/ (once) with the LLVM/MLIR 22 toolchain from Debian.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}
# The Python package builds for the interpreter of .venv (install-deps.sh
# makes it), with nanobind, NumPy and pytest.
python=()
[ -x "$root/.venv/bin/python" ] && python=(-DPython_EXECUTABLE="$root/.venv/bin/python")
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" "${python[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
fi
