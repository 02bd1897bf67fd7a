#!/usr/bin/env bash
# The pinned comparison of simulations/bench.sh (gate on the last CPU, the load driver and
# simulations/fast_upstream on CPU 0), measured in interleaved rounds. On a shared VM the
# speed of a vCPU changes within seconds (docs/benchmarks.md, "The machine moves under the
# benchmark"): a table whose direct row and gate row are a minute apart compares two
# machines. Here every path is measured in every round, right after the others, and a round's
# ratio is taken against the mean of the direct runs just before and just after it:
#   round r, sessions n: direct, gate (each mode), haproxy, direct
# Proxies not being measured are stopped (SIGSTOP), so an idle one takes nothing from the
# core. The table gives, per path, the median ratio over the rounds and its range.
#
#   simulations/bench_rounds.sh [seconds-per-run] [rounds]   (default 3 and 5)
#   GATE_BENCH_MODES="open guards" ...   gate configurations (simulations/bench_modes.sh);
#                                        auth, policy, conditions and hook need
#                                        setup-node.sh
#   GATE_BENCH_SESSIONS="8 64 256" ...   session counts
#   GATE_BENCH_GATE_ARGS="..." ...       extra arguments for gate (e.g. --io-spin-us 50)
#   GATE_BENCH_ALSO="/path/to/gate ..."   other gate builds, each measured open beside this one
#   GATE_BENCH_ANSWER_BYTES=N ...        answers N bytes longer (simulations/load_driver)
#   GATE_BENCH_KEEP=FILE ...             keep every run's numbers (JSON lines) in FILE
# haproxy, when installed, runs as the reference twice: a proxy that relays HTTP without
# reading the body (haproxy), and one that relays bytes without reading anything (tcp-relay,
# haproxy's mode tcp: what the hop itself costs, the floor of any proxy in this layout).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-3}"
rounds="${2:-5}"
modes="${GATE_BENCH_MODES:-open guards}"
sessions="${GATE_BENCH_SESSIONS:-8 64 256}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_bench_peers "$modes" taskset -c 0
start_fast_upstream taskset -c 0

# path name -> URL, and the PID to stop and continue.
declare -A url pid auth
paths=()
for mode in $modes; do
  write_bench_config "$mode"
  cp "$work/gate.json" "$work/gate-$mode.json"
  # shellcheck disable=SC2086 # extra arguments are words
  taskset -c "$last_cpu" "$build/gate" --config "$work/gate-$mode.json" --port 0 --log-level warn \
    ${GATE_BENCH_GATE_ARGS:-} 2>"$work/gate-$mode.err" &
  pid[gate-$mode]=$!
  pids+=($!)
  url[gate-$mode]="http://127.0.0.1:$(listening_port "${pid[gate-$mode]}")/mcp"
  auth[gate-$mode]="$(bench_authorization "$mode")"
  paths+=("gate-$mode")
done
also=0
for bin in ${GATE_BENCH_ALSO:-}; do
  also=$((also + 1))
  write_bench_config open
  cp "$work/gate.json" "$work/gate-also$also.json"
  # shellcheck disable=SC2086 # extra arguments are words
  taskset -c "$last_cpu" "$bin" --config "$work/gate-also$also.json" --port 0 --log-level warn \
    ${GATE_BENCH_GATE_ARGS:-} 2>"$work/gate-also$also.err" &
  name="also$also:$(basename "$(dirname "$bin")")/$(basename "$bin")"
  pid[$name]=$!
  pids+=($!)
  url[$name]="http://127.0.0.1:$(listening_port "${pid[$name]}")/mcp"
  auth[$name]=""
  paths+=("$name")
done
if command -v haproxy >/dev/null; then
  start_bench_haproxy taskset -c "$last_cpu"
  pid[haproxy]=$haproxy_pid
  url[haproxy]=$haproxy_url
  auth[haproxy]=""
  paths+=(haproxy)
  HAPROXY_MODE=tcp start_bench_haproxy taskset -c "$last_cpu"
  pid[tcp-relay]=$haproxy_pid
  url[tcp-relay]=$haproxy_url
  auth[tcp-relay]=""
  paths+=(tcp-relay)
fi
for p in "${paths[@]}"; do kill -STOP "${pid[$p]}"; done

drive() { # url sessions authorization
  GATE_BENCH_AUTHORIZATION="$3" taskset -c 0 "$build/simulations/load_driver" "$1" "$2" "$seconds"
}

results="$work/rounds.jsonl"
for r in $(seq 1 "$rounds"); do
  for n in $sessions; do
    before="$(drive "$upstream" "$n" "")"
    measured=()
    for p in "${paths[@]}"; do
      kill -CONT "${pid[$p]}"
      measured+=("$p=$(drive "${url[$p]}" "$n" "${auth[$p]}")")
      kill -STOP "${pid[$p]}"
    done
    after="$(drive "$upstream" "$n" "")"
    for m in "${measured[@]}"; do
      python3 - "$r" "$n" "${m%%=*}" "$before" "$after" "${m#*=}" >>"$results" <<'PY'
import json, sys
r, n, path = sys.argv[1:4]
before, after, got = (json.loads(a) for a in sys.argv[4:7])
print(json.dumps({"round": int(r), "sessions": int(n), "path": path,
                  "direct": (before["callsPerSec"] + after["callsPerSec"]) / 2,
                  "directP50": (before["p50Ms"] + after["p50Ms"]) / 2,
                  "calls": got["callsPerSec"], "p50": got["p50Ms"], "errors": got["errors"]}))
PY
    done
  done
done
for p in "${paths[@]}"; do kill -CONT "${pid[$p]}"; done
[ -n "${GATE_BENCH_KEEP:-}" ] && cp "$results" "$GATE_BENCH_KEEP"

echo "### $rounds interleaved rounds of $seconds s: gate on CPU $last_cpu, load driver and upstream on CPU 0"
echo
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| sessions | path | direct calls/s | calls/s | ratio (median) | ratio (range) "
      "| added p50 ms (median) | errors |")
print("|---:|---|---:|---:|---:|---|---:|---:|")
for n in sorted({r["sessions"] for r in rows}):
    for path in dict.fromkeys(r["path"] for r in rows):
        rs = [r for r in rows if r["sessions"] == n and r["path"] == path]
        ratios = [r["calls"] / r["direct"] for r in rs]
        print(f"| {n} | {path} | {statistics.median(r['direct'] for r in rs):.0f} "
              f"| {statistics.median(r['calls'] for r in rs):.0f} "
              f"| {statistics.median(ratios):.2f} | {min(ratios):.2f}-{max(ratios):.2f} "
              f"| {statistics.median(r['p50'] - r['directP50'] for r in rs):.3f} "
              f"| {sum(r['errors'] for r in rs)} |")
PY
