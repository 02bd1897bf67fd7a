#!/usr/bin/env bash
# Quick start 2: installs what is missing, builds gate and gate-stdio, and runs every test: the C++ unit and
# actor tests (ctest), then the end-to-end tests of the real binary against real MCP peers,
# including the conformance suite (tests/js). Each stage's duration is printed (docs/ci.md).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=scripts/stage.sh
source scripts/stage.sh

stage "deps" bash scripts/install-deps.sh
stage "release build" bash scripts/build.sh
stage "format check" bash scripts/check-format.sh
stage "size check" python3 scripts/check-sizes.py
stage "structure check" python3 scripts/check-structure.py  # cycles, big classes, namespaces against scripts/structure-baseline.json (issue 48)
stage "structure self-test" python3 scripts/check-structure.py --self-test
stage "monitoring check" python3 scripts/check-monitoring.py  # alerting rules, fixtures, dashboards (issue 36)
stage "release ctest" ctest --test-dir build --no-tests=error --output-on-failure -j 2
node22="$(bash scripts/setup-node.sh | tail -n 1)"
stage "release e2e" env GATE_BIN="$root/build/gate" GATE_STDIO_BIN="$root/build/shim/gate-stdio" \
  GATE_HOOKS_BIN="$root/build/gate-hooks" GATE_STDIO_TEST_SERVER="$root/build/tests/support/stdio_mcp_server" \
  NODE22="$node22" bash tests/js/run.sh
# Bounded: a process or machine that never stops must fail its stage, not hold CI to its limit.
stage "debian package" timeout --kill-after=30 600 bash tests/debian/package-test.sh  # the .debs in a Debian 12 root (issue 36)
stage "debian under systemd" env NODE22="$node22" timeout --kill-after=30 900 bash tests/debian/systemd-story.sh  # installed, started by systemd, its console live
