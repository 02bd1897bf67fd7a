#!/usr/bin/env bash
# Installs the Debian 12 packages gate builds and tests with. Idempotent: does nothing when
# everything is present. Needs root (or sudo) only when something is missing.
set -euo pipefail

packages=(
  clang-16 libclang-rt-16-dev llvm-16 cmake ninja-build pkg-config ccache clang-format-16
  libcaf-dev libboost1.81-dev libboost-json1.81-dev libboost-url1.81-dev
  libspdlog-dev libfmt-dev prometheus-cpp-dev libssl-dev libjemalloc-dev
  libgtest-dev libgmock-dev
  libsqlite3-dev libpq-dev  # gate-hooks' stores: SQLite (default), PostgreSQL
  libre2-dev  # policy argument patterns, matched in linear time (policy/argument_match)
  libhiredis-dev  # RESP formatting and parsing for gate's shared state (transport/redis/redis_wire)
  redis-tools  # a real Redis 7 for the tests: its server binary, started by the tests (no service)
  systemd  # systemd-analyze, which the tests run on the units in config/systemd
  libsystemd-dev  # sd_notify: readiness for systemd's Type=notify units (config/systemd)
  haproxy  # the round-robin load balancer in front of two gate instances in the fleet tests
  postgresql  # a real PostgreSQL 15 for the gate-hooks tests (started by the tests, not as a service)
  prometheus  # promtool: the /metrics exposition, the alerting rules and their fixtures (config/prometheus)
  chromium    # the gate-hooks console page is driven headless in tests (playwright-core)
  dpkg-dev lintian mmdebstrap  # the Debian packages built, checked and installed into a Debian 12 root (tests/debian)
  systemd-container iproute2  # that root booted under its own systemd (systemd-nspawn) on a network namespace of its own
  ca-certificates curl procps openssl git
  python3  # the checks of scripts/ (sizes, structure, client-bound producers, monitoring)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
