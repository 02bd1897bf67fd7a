#!/usr/bin/env bash
# What gate --record costs a request (issue 18: "nothing when off costs the hot path"). The
# pinned layout of simulations/bench.sh (gate on a core of its own; the load driver and
# simulations/fast_upstream on the other), side by side in one run: direct against gate
# without --record and against gate recording to a file (lines written by the recorder actor,
# which shares gate's core here). The events written and dropped are gate's own counts.
#   simulations/bench_record.sh [seconds-per-run]   (default 5; build first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

start_fast_upstream taskset -c 0
echo "{\"upstreams\": [{\"id\": \"bench\", \"url\": \"$upstream\"}]}" >"$work/gate.json"
metric() { # $1 port, $2 series (with labels): its value, or 0
  curl -s "http://127.0.0.1:$1/metrics" | awk -v s="$2" '$1 == s {print $2; f=1} END {if (!f) print 0}'
}

echo "| sessions | recording | direct calls/s | gate calls/s | ratio | direct p50 ms | gate p50 ms | added p50 ms | gate p99 ms | events written | dropped | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 8 64; do
  for mode in off on; do
    args=()
    [ "$mode" = on ] && args=(--record "$work/traffic-$n.jsonl")
    taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level error "${args[@]}" >/dev/null 2>>"$work/gate.err" &
    gate_pid=$!
    pids+=("$gate_pid")
    gate_port="$(listening_port "$gate_pid")"
    d="$(taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds")"
    g="$(taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" "$n" "$seconds")"
    written="$(metric "$gate_port" 'gate_recording_events_total{outcome="written"}')"
    dropped="$(metric "$gate_port" 'gate_recording_events_total{outcome="dropped"}')"
    python3 - "$mode" "$d" "$g" "$written" "$dropped" <<'PY'
import json, sys
label, d, g, written, dropped = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
print(f"| {d['sessions']} | {label} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {d['p50Ms']:.3f} | {g['p50Ms']:.3f} | "
      f"{g['p50Ms'] - d['p50Ms']:.3f} | {g.get('p99Ms', float('nan')):.3f} | {float(written):.0f} | {float(dropped):.0f} | {g['errors']} |")
PY
    kill "$gate_pid"
    wait "$gate_pid" 2>/dev/null || true
  done
done
