#!/usr/bin/env bash
# Configures and builds gate in build/ (Release with debug info, clang-16, ccache, Ninja).
#   GATE_BUILD_DIR    build folder (default build/)
#   GATE_BUILD_TYPE   CMake build type (default RelWithDebInfo)
#   GATE_CMAKE_ARGS   extra CMake arguments (applied on every run when set)
#   GATE_UNITY_BUILD  ON: unity build (cmake/unity.cmake; .ci/run sets it), OFF: per file;
#                     applied on every run when set
#   GATE_DEBUG_INFO   full (-g, the default) or lines (line tables only; .ci/run sets it);
#                     applied on every run when set
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
args="${GATE_CMAKE_ARGS:-}"
if [ -n "${GATE_UNITY_BUILD:-}" ]; then args="$args -DGATE_UNITY_BUILD=$GATE_UNITY_BUILD"; fi
if [ -n "${GATE_DEBUG_INFO:-}" ]; then args="$args -DGATE_DEBUG_INFO=$GATE_DEBUG_INFO"; fi
if [ ! -f "$build/build.ninja" ] || [ -n "$args" ]; then
  # shellcheck disable=SC2086
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${GATE_BUILD_TYPE:-RelWithDebInfo}" \
    $args >/dev/null
fi
cmake --build "$build" -j "$(nproc)"
