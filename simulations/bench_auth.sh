#!/usr/bin/env bash
# What authentication and a policy cost on the hot path: the same pinned benchmark as
# simulations/bench.sh (gate on its own core, load driver and simulations/fast_upstream on
# the other), direct against gate, three ways side by side in one run:
#   open:    no auth, no policy;
#   auth:    auth.mode required, an ES256 token from a local issuer (its key set cached after
#            the first call), sent on every request;
#   policy:  the same with a 100-rule deny-by-default policy whose last rule, matched by
#            group, grants the benchmark's tool by a glob.
#   simulations/bench_auth.sh [seconds-per-run]   (default 5; build and setup-node.sh first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_bench_idp
start_fast_upstream taskset -c 0

echo "| sessions | mode | direct calls/s | gate calls/s | ratio | added p50 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for mode in open auth policy; do
  write_bench_config "$mode"
  taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn 2>"$work/gate.err" &
  gate_pid=$!
  pids+=($gate_pid)
  gate_port="$(listening_port "$gate_pid")"
  auth="$(bench_authorization "$mode")"
  for n in 8 64; do
    d="$(taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds")"
    g="$(GATE_BENCH_AUTHORIZATION="$auth" taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" "$n" "$seconds")"
    python3 - "$d" "$g" "$mode" <<'PY'
import json, sys
d, g, mode = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
print(f"| {d['sessions']} | {mode} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {g['p50Ms'] - d['p50Ms']:.3f} | {g['errors']} |")
PY
  done
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
done
