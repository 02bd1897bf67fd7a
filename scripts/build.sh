#!/usr/bin/env bash
# Configures and builds gate in build/ (Release with debug info, clang-16, ccache, Ninja).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${GATE_BUILD_TYPE:-RelWithDebInfo}" \
    ${GATE_CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
