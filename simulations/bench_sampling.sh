#!/usr/bin/env bash
# The sampling round trip with C++ peers (simulations/fast_upstream's `sample` tool and
# simulations/sampling_driver), directly and through gate, alternating in one run. Three times:
# all processes sharing every core, then gate on a core of its own (taskset) with the
# driver and upstream on the other, and once more with --io-spin-us 50 on that core. Prints a
# Markdown table (docs/benchmarks.md).
#
#   simulations/bench_sampling.sh [rounds]   (default 2000)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
rounds="${1:-2000}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"

# Waits for "listening <port>" from a process writing to $1; prints the port.
port_of() {
  for _ in $(seq 1 200); do
    if grep -q '^listening ' "$1" 2>/dev/null; then awk '/^listening /{print $2; exit}' "$1"; return; fi
    sleep 0.05
  done
  echo "no port in $1" >&2
  exit 1
}

run() { # $1: label, $2: gate cpu prefix, $3: peer cpu prefix, $4: more gate options
  local gate_cpus=($2) peer_cpus=($3) gate_opts=(${4:-})
  "${peer_cpus[@]}" "$build/simulations/fast_upstream" >"$work/up.out" &
  pids+=($!)
  local up_port
  up_port="$(port_of "$work/up.out")"
  printf '{"upstreams": [{"id": "fast", "url": "http://127.0.0.1:%s/mcp"}]}\n' "$up_port" >"$work/gate.json"
  "${gate_cpus[@]}" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn --io-threads 1 "${gate_opts[@]}" >"$work/gate.out" 2>&1 &
  local gate_pid=$!
  pids+=($gate_pid)
  local gate_port=""
  for _ in $(seq 1 200); do
    gate_port="$(ss -ltnp 2>/dev/null | awk -v pid="pid=$gate_pid," '$0 ~ pid {split($4, a, ":"); print a[length(a)]}' | head -n 1)"
    [ -n "$gate_port" ] && break
    sleep 0.05
  done
  local r
  r="$("${peer_cpus[@]}" "$build/simulations/sampling_driver" "http://127.0.0.1:$up_port/mcp" "http://127.0.0.1:$gate_port/mcp" "$rounds")"
  python3 - "$1" "$r" <<'PY'
import json, sys
r = json.loads(sys.argv[2])
print(f"| {sys.argv[1]} | {r['rounds']} | {r['directP50Ms']:.3f} | {r['gateP50Ms']:.3f} | "
      f"**{r['addedP50Ms']:.3f}** | {r['directP99Ms']:.3f} | {r['gateP99Ms']:.3f} |")
PY
  stop_started
}

echo "| cores | rounds | direct p50 ms | gate p50 ms | added p50 ms | direct p99 ms | gate p99 ms |"
echo "|---|---:|---:|---:|---:|---:|---:|"
run "shared" "" ""
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
  run "gate on its own core" "taskset -c 0" "taskset -c 1"
  # The same core given to gate, told to poll for 50 us before it sleeps: every hop of the
  # round trip finds gate's io thread awake (docs/operations.md, --io-spin-us).
  run "gate on its own core, --io-spin-us 50" "taskset -c 0" "taskset -c 1" "--io-spin-us 50"
fi
