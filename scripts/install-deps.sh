#!/usr/bin/env bash
# Installs the Debian 12 packages Tessera builds and tests with, skipping
# those already present (no apt-get update when nothing is missing).
set -euo pipefail

packages=(
  cmake ninja-build ccache python3
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
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -q
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
