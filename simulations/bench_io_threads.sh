#!/usr/bin/env bash
# gate at several io thread counts (docs/io-threads.md), side by side in interleaved rounds, as
# simulations/bench_rounds.sh measures: the load driver and simulations/fast_upstream on their
# CPUs, gate on its own, the paths not measured stopped (SIGSTOP). Each run gives calls/s and
# the CPU seconds the proxy spent meanwhile (utime + stime of /proc/<pid>/stat), so the table
# compares calls per CPU-second: what more io threads cost a call. On 2 cores a further path
# runs 2 io threads on both CPUs (unpinned, sharing CPU 0 with the driver): what a second core
# buys here, where the driver takes half of the machine.
#
#   simulations/bench_io_threads.sh [seconds-per-run] [rounds]   (default 3 and 5)
#   GATE_BENCH_SESSIONS="8 64" ...     session counts (default 64)
#   GATE_BENCH_THREADS="1 2 4 8 12" ... io thread counts (default "1 2"; the first is the
#                                      ratios' base)
#   GATE_BENCH_GATE_CPUS=4-15 ...       where gate and haproxy run (default: the last CPU)
#   GATE_BENCH_DRIVER_CPUS=0-3 ...      where the driver and the upstream run (default: CPU 0)
# On a many-core machine, give gate the CPUs the driver does not take. With haproxy installed,
# each thread count is measured beside haproxy at as many threads (nbthread) on the same CPUs:
# the reference the scaling is held to.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-3}"
rounds="${2:-5}"
sessions="${GATE_BENCH_SESSIONS:-64}"
threads="${GATE_BENCH_THREADS:-1 2}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
gate_cpus="${GATE_BENCH_GATE_CPUS:-$(($(nproc) - 1))}"
driver_cpus="${GATE_BENCH_DRIVER_CPUS:-0}"
# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_fast_upstream taskset -c "$driver_cpus"
write_bench_config open

declare -A url pid
paths=()
start() { # name threads cpu-list
  taskset -c "$3" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn \
    --io-threads "$2" 2>"$work/$1.err" &
  pid[$1]=$!
  pids+=($!)
  url[$1]="http://127.0.0.1:$(listening_port "${pid[$1]}")/mcp"
  paths+=("$1")
}
base=""
for n in $threads; do
  start "threads-$n" "$n" "$gate_cpus"
  base="${base:-threads-$n}"
  if command -v haproxy >/dev/null; then
    HAPROXY_THREADS=$n start_bench_haproxy taskset -c "$gate_cpus"
    pid[haproxy-$n]=$haproxy_pid
    url[haproxy-$n]=$haproxy_url
    paths+=("haproxy-$n")
  fi
done
# On 2 cores: 2 io threads on every CPU, sharing the driver's (what a second core buys here).
if [ "$(nproc)" -eq 2 ] && [ -z "${GATE_BENCH_GATE_CPUS:-}" ]; then
  start threads-2-unpinned 2 "0-$(($(nproc) - 1))"
fi
for p in "${paths[@]}"; do kill -STOP "${pid[$p]}"; done

cpu_ticks() { # pid: utime + stime, in clock ticks
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}
drive() { # url sessions
  taskset -c "$driver_cpus" "$build/simulations/load_driver" "$1" "$2" "$seconds"
}

results="$work/threads.jsonl"
ticks_per_second="$(getconf CLK_TCK)"
for r in $(seq 1 "$rounds"); do
  for n in $sessions; do
    for p in "${paths[@]}"; do
      kill -CONT "${pid[$p]}"
      before="$(cpu_ticks "${pid[$p]}")"
      got="$(drive "${url[$p]}" "$n")"
      after="$(cpu_ticks "${pid[$p]}")"
      kill -STOP "${pid[$p]}"
      python3 - "$r" "$n" "$p" "$got" "$before" "$after" "$ticks_per_second" "$seconds" \
        >>"$results" <<'PY'
import json, sys
r, n, path, got, before, after, hz, secs = sys.argv[1:9]
got = json.loads(got)
cpu = (int(after) - int(before)) / int(hz)
print(json.dumps({"round": int(r), "sessions": int(n), "path": path,
                  "calls": got["callsPerSec"], "cpu": cpu,
                  "perCpuSecond": got["callsPerSec"] * float(secs) / cpu if cpu else 0,
                  "errors": got["errors"]}))
PY
    done
  done
done
for p in "${paths[@]}"; do kill -CONT "${pid[$p]}"; done

echo "### $rounds interleaved rounds of $seconds s: gate and haproxy on CPUs $gate_cpus (unpinned: every CPU), load driver and upstream on CPUs $driver_cpus"
echo
python3 - "$results" "$base" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| sessions | path | calls/s | CPU s per run | calls per CPU-second "
      f"| ratio to {sys.argv[2]} (median) | ratio (range) | errors |")
print("|---:|---|---:|---:|---:|---:|---|---:|")
for n in sorted({r["sessions"] for r in rows}):
    base = {r["round"]: r["perCpuSecond"] for r in rows if r["sessions"] == n and r["path"] == sys.argv[2]}
    for path in dict.fromkeys(r["path"] for r in rows):
        rs = [r for r in rows if r["sessions"] == n and r["path"] == path]
        ratios = [r["perCpuSecond"] / base[r["round"]] for r in rs if base.get(r["round"])]
        print(f"| {n} | {path} | {statistics.median(r['calls'] for r in rs):.0f} "
              f"| {statistics.median(r['cpu'] for r in rs):.2f} "
              f"| {statistics.median(r['perCpuSecond'] for r in rs):.0f} "
              f"| {statistics.median(ratios):.2f} | {min(ratios):.2f}-{max(ratios):.2f} "
              f"| {sum(r['errors'] for r in rs)} |")
PY
