#!/usr/bin/env bash
# README command 1: installs what is missing, builds, and runs the main job on
# the embedded default: every shipped kernel is parsed, verified and printed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/configure.sh"
cmake --build "$build"

for kernel in "$root"/runtime/kernels/*/*.mlir; do
  echo "== ${kernel#$root/}"
  "$build/bin/tessera-opt" "$kernel"
done
echo "setup: all shipped kernels verify"
