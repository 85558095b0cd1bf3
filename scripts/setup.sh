#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and runs the main job on
# the embedded default: every shipped kernel is proved with the tag checker,
# and the shipped GEMM is compiled for the host and checked against a float64
# reference.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/configure.sh"
cmake --build "$build"

for kernel in "$root"/runtime/kernels/*/*.mlir; do
  "$build/bin/tessera-opt" --tag-check=print-stats "$kernel" -o /dev/null
done
echo "setup: every shipped kernel verifies and passes tag-check"

bundle="$build/gemm_bf16.bundle"
"$build/bin/tessera-compile" "$root/runtime/kernels/gemm/gemm_bf16.mlir" \
  --target=host -o "$bundle"
"$build/bin/tessera-run" "$bundle" --check --m=512 --n=384 --k=320
