#!/usr/bin/env bash
# Where gate's core goes at the real rate: perf samples gate's CPU time (the cpu-clock event,
# which a VM without hardware counters still has) while simulations/load_driver calls
# simulations/fast_upstream through gate, in the pinned layout of simulations/bench_rounds.sh
# (gate on the last CPU, the driver and the upstream on CPU 0). Counted instructions
# (simulations/bench_instructions.sh) are the stable measure of a change; this one shows what
# callgrind cannot: the time a call spends in the kernel, and what a working set larger than
# the core's cache costs at the real rate (compare 8 sessions with 256).
#
#   simulations/bench_profile.sh [sessions] [seconds]   (default 256 and 8)
#   GATE_BENCH_SYSCALLS=1 ...   count gate's system calls per call instead (perf's syscall
#                               tracepoints; a recv answered EAGAIN counted apart)
#   GATE_BENCH_KEEP=FILE ...    keep perf.data (for perf report --children, or a second run
#                               to set beside this one)
# Prints the calls, gate's CPU microseconds per call (kernel and user), and the 30 functions
# with the most of it. Needs perf (Debian's linux-perf) and root or perf_event_paranoid <= 1.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
sessions="${1:-256}"
seconds="${2:-8}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
command -v perf >/dev/null || { echo "needs perf (apt-get install linux-perf)" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(($(nproc) - 1))
frequency=4000 # samples per CPU-second: each stands for 250 us

# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_fast_upstream taskset -c 0
write_bench_config open
taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn \
  2>"$work/gate.err" &
gate_pid=$!
pids+=("$gate_pid")
url="http://127.0.0.1:$(listening_port "$gate_pid")/mcp"
taskset -c 0 "$build/simulations/load_driver" "$url" "$sessions" 2 >/dev/null # sessions open

data="${GATE_BENCH_KEEP:-$work/perf.data}"
if [ -n "${GATE_BENCH_SYSCALLS:-}" ]; then
  events=()
  for call in recvfrom sendto getpeername epoll_wait epoll_ctl futex; do
    events+=(-e "syscalls:sys_enter_$call")
  done
  perf stat "${events[@]}" -e syscalls:sys_exit_recvfrom --filter 'ret == -11' -x, \
    -o "$work/stat.csv" -p "$gate_pid" -- sleep "$seconds" &
else
  perf record -q -e cpu-clock -F "$frequency" -p "$gate_pid" -o "$data" -- sleep "$seconds" \
    2>/dev/null &
fi
recorder=$!
load="$(taskset -c 0 "$build/simulations/load_driver" "$url" "$sessions" "$seconds")"
wait "$recorder" || true
calls="$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["calls"])' "$load")"
echo "load: $load"

if [ -n "${GATE_BENCH_SYSCALLS:-}" ]; then
  # The EAGAIN filter's line comes last and names the same tracepoint as its exit.
  awk -F, -v calls="$calls" 'NF > 3 && $1 ~ /^[0-9]+$/ {
      name = $3; sub(/^syscalls:/, "", name)
      if (name == "sys_exit_recvfrom") name = "recvfrom answered EAGAIN"
      printf "%-28s %8.3f per call\n", name, $1 / calls }' "$work/stat.csv"
  exit 0
fi
# The kernel's share from every sample (the functions below are only those over 0.3%).
kernel_share="$(perf report -i "$data" --no-children --sort dso 2>/dev/null |
  awk '/\[kernel\./ {sub(/%/, "", $1); s += $1} END {print s / 100}')"
perf report -i "$data" --no-children --sort dso,sym --percent-limit 0.3 2>/dev/null |
  python3 -c '
import re, sys
calls, frequency, kernel = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
text = sys.stdin.read()
m = re.search(r"Samples: ([\d.]+)([KM]?) of", text)
samples = float(m.group(1)) * {"": 1, "K": 1e3, "M": 1e6}[m.group(2)]
us = lambda share: share * samples / calls * 1e6 / frequency
rows = re.findall(r"^\s+([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(.*)$", text, re.M)
print(f"gate CPU per call: {us(1):.2f} us (kernel {us(kernel):.2f}, the rest "
      f"{us(1 - kernel):.2f}; {samples:.0f} samples)")
for p, dso, k, sym in rows[:30]:
    print(f"{us(float(p) / 100):7.3f} us  {dso[:16]:16} {sym[:110]}")
' "$calls" "$frequency" "$kernel_share"
