#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds and tests with, skipping
# those already present (no apt-get update when nothing is missing), and
# the Python package's build and test tools from PyPI (nanobind, NumPy,
# pytest) into .venv, since Debian's Python is externally managed.
# TESSERA_WITH_TORCH=1 also installs PyPI's torch there (a download of
# several GB), which the Python tests then compare against.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  cmake ninja-build ccache python3 python3-dev python3-venv
  clang-22 lld-22 llvm-22-dev llvm-22-tools libclang-rt-22-dev
  libmlir-22-dev mlir-22-tools
  libz3-dev libgtest-dev libopenblas-dev libboost-context-dev libssl-dev
  rocm-device-libs
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  echo "install-deps: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi

venv="$root/.venv"
python_packages=(nanobind==2.9.2 numpy==2.4.6 pytest==9.2.0)
[ -x "$venv/bin/python" ] || /usr/bin/python3 -m venv "$venv"
if ! "$venv/bin/python" -c "import nanobind, numpy, pytest" 2>/dev/null; then
  echo "install-deps: installing ${python_packages[*]} into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    "${python_packages[@]}"
fi
if [ "${TESSERA_WITH_TORCH:-0}" = 1 ] &&
  ! "$venv/bin/python" -c "import torch" 2>/dev/null; then
  echo "install-deps: installing torch into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check torch
fi
