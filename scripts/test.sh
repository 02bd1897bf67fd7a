#!/usr/bin/env bash
# Quick start 2: installs what is missing, builds gate and gate-stdio, and runs every test: the C++ unit and
# actor tests (ctest), then the end-to-end tests of the real binary against real MCP peers,
# including the conformance suite (tests/js).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh
bash scripts/build.sh
bash scripts/check-format.sh
(cd build && ctest --no-tests=error --output-on-failure -j 2)
node22="$(bash scripts/setup-node.sh | tail -n 1)"
GATE_BIN="$root/build/gate" GATE_STDIO_BIN="$root/build/shim/gate-stdio" GATE_HOOKS_BIN="$root/build/gate-hooks" \
  GATE_STDIO_TEST_SERVER="$root/build/tests/support/stdio_mcp_server" \
  NODE22="$node22" bash tests/js/run.sh
