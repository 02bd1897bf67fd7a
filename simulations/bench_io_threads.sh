#!/usr/bin/env bash
# gate at 1 and at 2 io threads (docs/io-threads.md), side by side in interleaved rounds, as
# simulations/bench_rounds.sh measures: the load driver and simulations/fast_upstream on CPU 0,
# each gate on the last CPU, the one not measured stopped (SIGSTOP). Each run gives calls/s
# and the CPU seconds gate spent meanwhile (utime + stime of /proc/<pid>/stat), so the table
# compares calls per gate CPU-second: what a second io thread costs a call. A third path runs
# 2 io threads on both CPUs (unpinned, sharing CPU 0 with the driver): what a second core buys
# here, where the driver takes half of the machine.
#
#   simulations/bench_io_threads.sh [seconds-per-run] [rounds]   (default 3 and 5)
#   GATE_BENCH_SESSIONS="8 64" ...   session counts (default 64)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-3}"
rounds="${2:-5}"
sessions="${GATE_BENCH_SESSIONS:-64}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))
# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_fast_upstream taskset -c 0
write_bench_config open

declare -A url pid
paths=(threads-1 threads-2 threads-2-unpinned)
start() { # name threads cpu-list
  taskset -c "$3" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn \
    --io-threads "$2" 2>"$work/$1.err" &
  pid[$1]=$!
  pids+=($!)
  url[$1]="http://127.0.0.1:$(listening_port "${pid[$1]}")/mcp"
}
start threads-1 1 "$last_cpu"
start threads-2 2 "$last_cpu"
start threads-2-unpinned 2 "0-$last_cpu"
for p in "${paths[@]}"; do kill -STOP "${pid[$p]}"; done

cpu_ticks() { # pid: utime + stime, in clock ticks
  awk '{ print $14 + $15 }' "/proc/$1/stat"
}
drive() { # url sessions
  taskset -c 0 "$build/simulations/load_driver" "$1" "$2" "$seconds"
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

echo "### $rounds interleaved rounds of $seconds s: gate on CPU $last_cpu (unpinned: every CPU), load driver and upstream on CPU 0"
echo
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("| sessions | path | calls/s | gate CPU s per run | calls per gate CPU-second "
      "| ratio to 1 thread (median) | ratio (range) | errors |")
print("|---:|---|---:|---:|---:|---:|---|---:|")
for n in sorted({r["sessions"] for r in rows}):
    base = {r["round"]: r["perCpuSecond"] for r in rows if r["sessions"] == n and r["path"] == "threads-1"}
    for path in dict.fromkeys(r["path"] for r in rows):
        rs = [r for r in rows if r["sessions"] == n and r["path"] == path]
        ratios = [r["perCpuSecond"] / base[r["round"]] for r in rs if base.get(r["round"])]
        print(f"| {n} | {path} | {statistics.median(r['calls'] for r in rs):.0f} "
              f"| {statistics.median(r['cpu'] for r in rs):.2f} "
              f"| {statistics.median(r['perCpuSecond'] for r in rs):.0f} "
              f"| {statistics.median(ratios):.2f} | {min(ratios):.2f}-{max(ratios):.2f} "
              f"| {sum(r['errors'] for r in rs)} |")
PY
