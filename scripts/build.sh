#!/usr/bin/env bash
# Configures and builds gate in build/ (Release with debug info, clang-16, ccache, Ninja).
#   GATE_BUILD_DIR    build folder (default build/)
#   GATE_BUILD_TYPE   CMake build type (default RelWithDebInfo)
#   GATE_CMAKE_ARGS   extra CMake arguments (applied on every run when set)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
if [ ! -f "$build/build.ninja" ] || [ -n "${GATE_CMAKE_ARGS:-}" ]; then
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${GATE_BUILD_TYPE:-RelWithDebInfo}" \
    ${GATE_CMAKE_ARGS:-} >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
