#!/usr/bin/env bash
# README command 2: builds (configuring if needed) and runs every suite, the
# lit suites and the GoogleTest cases, through ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TESSERA_BUILD_DIR:-$root/build}

"$root/scripts/configure.sh"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure
