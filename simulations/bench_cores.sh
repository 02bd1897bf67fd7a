#!/usr/bin/env bash
# Where each core's time goes per call, in the pinned layout of simulations/bench.sh (the load
# driver and simulations/fast_upstream on CPU 0, the proxy on the last CPU): the direct path,
# gate, and haproxy relaying bytes without reading them (mode tcp: what the hop itself costs,
# the floor of any proxy in this layout), each run right after the others in every round.
# Per path and core: microseconds per call in user, system, softirq and idle time
# (/proc/stat), function-call and rescheduling interrupts per call (/proc/interrupts: the
# wake-ups that crossed cores) and context switches per call.
#
#   simulations/bench_cores.sh [seconds-per-run] [rounds] [sessions]   (default 3, 3, 8)
#   GATE_BENCH_GATE_ARGS="..." ...   extra arguments for gate (e.g. --io-spin-us 50)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-3}"
rounds="${2:-3}"
sessions="${3:-8}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))
# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_fast_upstream taskset -c 0

declare -A url pid
write_bench_config open
# shellcheck disable=SC2086 # extra arguments are words
taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn \
  ${GATE_BENCH_GATE_ARGS:-} 2>"$work/gate.err" &
pid[gate]=$!
pids+=($!)
url[gate]="http://127.0.0.1:$(listening_port "${pid[gate]}")/mcp"
paths=(gate)
if command -v haproxy >/dev/null; then
  HAPROXY_MODE=tcp start_bench_haproxy taskset -c "$last_cpu"
  pid[tcp-relay]=$haproxy_pid
  url[tcp-relay]=$haproxy_url
  paths+=(tcp-relay)
fi
for p in "${paths[@]}"; do kill -STOP "${pid[$p]}"; done

# The counters of CPU 0 and the last CPU, as JSON.
counters() {
  python3 - "$last_cpu" <<'PY'
import json, sys
cpus = {"cpu0": "0", f"cpu{sys.argv[1]}": sys.argv[1]}
out = {"stat": {}, "irq": {}}
for line in open("/proc/stat"):
    f = line.split()
    if f[0] in cpus:
        out["stat"][cpus[f[0]]] = [int(x) for x in f[1:8]]
    elif f[0] == "ctxt":
        out["ctxt"] = int(f[1])
cols = open("/proc/interrupts").readline().split()
for line in open("/proc/interrupts"):
    f = line.split()
    if f and f[0] in ("CAL:", "RES:"):
        out["irq"][f[0][:-1]] = {c[3:]: int(v) for c, v in zip(cols, f[1:]) if c[3:] in cpus.values()}
print(json.dumps(out))
PY
}

results="$work/cores.jsonl"
measure() { # path url
  local before after got
  before="$(counters)"
  got="$(taskset -c 0 "$build/simulations/load_driver" "$2" "$sessions" "$seconds")"
  after="$(counters)"
  python3 - "$1" "$before" "$after" "$got" "$(getconf CLK_TCK)" >>"$results" <<'PY'
import json, sys
path, before, after, got, tck = sys.argv[1], *(json.loads(a) for a in sys.argv[2:5]), int(sys.argv[5])
calls = max(got["calls"], 1)
row = {"path": path, "callsPerSec": got["callsPerSec"], "ctxt": (after["ctxt"] - before["ctxt"]) / calls}
for cpu, b in before["stat"].items():
    d = [y - x for x, y in zip(b, after["stat"][cpu])]  # user nice system idle iowait irq softirq
    us = lambda ticks: ticks * 1e6 / tck / calls
    row[cpu] = {"user": us(d[0] + d[1]), "sys": us(d[2]), "soft": us(d[5] + d[6]), "idle": us(d[3] + d[4]),
                "ipi": sum((after["irq"][k][cpu] - before["irq"][k][cpu]) for k in after["irq"]) / calls}
print(json.dumps(row))
PY
}

for _ in $(seq 1 "$rounds"); do
  measure direct "$upstream"
  for p in "${paths[@]}"; do
    kill -CONT "${pid[$p]}"
    measure "$p" "${url[$p]}"
    kill -STOP "${pid[$p]}"
  done
done
for p in "${paths[@]}"; do kill -CONT "${pid[$p]}"; done

echo "### $rounds rounds of $seconds s, $sessions sessions: the proxy on CPU $last_cpu, load driver and upstream on CPU 0"
echo "(microseconds per call, medians over the rounds; IPIs are function-call and rescheduling interrupts received)"
echo
python3 - "$results" "$last_cpu" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
last = sys.argv[2]
med = lambda xs: statistics.median(xs)
print("| path | calls/s (range) | CPU 0 user / sys / softirq / idle | CPU 0 IPIs | "
      f"CPU {last} user / sys / softirq / idle | CPU {last} IPIs | switches |")
print("|---|---|---|---:|---|---:|---:|")
for path in dict.fromkeys(r["path"] for r in rows):
    rs = [r for r in rows if r["path"] == path]
    def cpu(c):
        return " / ".join(f"{med(r[c][k] for r in rs):.1f}" for k in ("user", "sys", "soft", "idle"))
    calls = [r["callsPerSec"] for r in rs]
    print(f"| {path} | {med(calls):.0f} ({min(calls):.0f}-{max(calls):.0f}) | {cpu('0')} "
          f"| {med(r['0']['ipi'] for r in rs):.2f} | {cpu(last)} | {med(r[last]['ipi'] for r in rs):.2f} "
          f"| {med(r['ctxt'] for r in rs):.2f} |")
PY
