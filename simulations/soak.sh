#!/usr/bin/env bash
# A long run (not in CI; docs/benchmarks.md, "Soak"): mixed traffic through two gate instances
# sharing a real Redis, two upstreams (simulations/fast_upstream), faults on a schedule:
#   - every 10 minutes, at minute 2: upstream `a` is killed and comes back 30 s later on the
#     same port (its sessions forgotten: gate opens new ones);
#   - every 10 minutes, at minute 6: Redis is frozen (SIGSTOP) for 3 s, past the fleet's
#     500 ms bound (gate falls back to each instance's own state).
# Traffic, in rounds of 20 s: on each instance, load_driver sessions calling a tool of one
# upstream back to back (the upstreams alternate between instances and rounds) and a client
# that opens a session, lists tools, prompts and resources, calls both upstreams and ends its
# session, each second. Every 30 s each gate's RSS and open descriptors are sampled.
#
# Reports the samples ($out/soak.csv), the RSS and descriptors at the end of the first round and
# at the end, and the errors of rounds with and without a fault in force. Fails when a round
# without a fault had an error, when RSS grew more than 20% after the first tenth of the run,
# or when descriptors grew by more than 16.
#   simulations/soak.sh [minutes] [out-dir]   (default 60, a new directory; build first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
minutes="${1:-60}"
out="${2:-$(mktemp -d /tmp/gate-soak-XXXXXX)}"
mkdir -p "$out"
# The fault schedule (minutes within each cycle); shorter cycles try the script out quickly.
cycle="${SOAK_CYCLE_MINUTES:-10}"
a_minute="${SOAK_UPSTREAM_FAULT_MINUTE:-2}"
redis_minute="${SOAK_STORE_FAULT_MINUTE:-6}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"

ln -s /usr/bin/redis-check-rdb "$work/redis-server"
redis_port="$(free_port)"
"$work/redis-server" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" >"$work/redis.out" &
redis_pid=$!
pids+=($redis_pid)
for _ in $(seq 1 100); do grep -q 'Ready to accept' "$work/redis.out" && break; sleep 0.05; done

# Upstream `a` restarts on the same port; `b` stays up.
a_port="$(free_port)"
start_a() {
  "$build/simulations/fast_upstream" "$a_port" >"$work/a.out" &
  a_pid=$!
  pids+=($a_pid)
}
start_a
start_fast_upstream
b_url="$upstream"

cat >"$work/gate.json" <<JSON
{"upstreams": [
  {"id": "a", "url": "http://127.0.0.1:$a_port/mcp", "namespace": "a",
   "timeouts": {"connectMs": 1000, "requestMs": 2000},
   "circuitBreaker": {"failureThreshold": 5, "halfOpenAfterMs": 2000},
   "rateLimit": {"requestsPerMinute": 100000000}},
  {"id": "b", "url": "$b_url", "namespace": "b"}],
 "server": {"redisUrl": "redis://127.0.0.1:$redis_port/1",
            "rateLimit": {"requestsPerMinute": 100000000},
            "budget": {"period": "day", "upstreamCalls": 1000000000}},
 "audit": {"sinks": [{"type": "stdout"}]}}
JSON
gates=()
ports=()
"$build/gate" --validate --config "$work/gate.json" >&2
for n in 1 2; do
  "$build/gate" --config "$work/gate.json" --port 0 --io-threads 1 >/dev/null 2>"$out/gate$n.err" &
  gates+=($!)
  pids+=($!)
  ports+=("$(listening_port "$!")")
  [ -n "${ports[-1]}" ] || { echo "soak: gate $n did not start:" >&2; cat "$out/gate$n.err" >&2; exit 1; }
done
echo "soak: ${minutes} min, gates ${gates[*]} on ports ${ports[*]}, redis $redis_port; out $out" >&2

# One client's round trip through everything but the call loop: a session opened, the three
# lists, a call to each upstream, the session ended. Prints how many steps failed.
browse() {
  python3 - "$1" <<'PY'
import json, sys, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/mcp"
hdr = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
failed = 0
def post(body, session=None):
    h = dict(hdr)
    if session: h["Mcp-Session-Id"] = session
    req = urllib.request.Request(url, json.dumps(body).encode(), h)
    with urllib.request.urlopen(req, timeout=10) as r:
        return r.headers.get("Mcp-Session-Id"), r.read().decode()
try:
    sid, _ = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}})
    post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
    for i, m in enumerate(["tools/list", "prompts/list", "resources/list"]):
        _, text = post({"jsonrpc": "2.0", "id": 10 + i, "method": m}, sid)
        failed += '"error"' in text
    for i, tool in enumerate(["a__echo", "b__echo"]):
        _, text = post({"jsonrpc": "2.0", "id": 20 + i, "method": "tools/call", "params": {"name": tool, "arguments": {"message": "soak"}}}, sid)
        failed += "Echo: soak" not in text
    urllib.request.urlopen(urllib.request.Request(url, None, {"Mcp-Session-Id": sid}, method="DELETE"), timeout=10).read()
except Exception:
    failed += 1
print(failed)
PY
}

sample() { # elapsed-seconds
  for n in 0 1; do
    local pid="${gates[$n]}"
    local rss fds
    rss="$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")"
    fds="$(ls "/proc/$pid/fd" | wc -l)"
    echo "$1,gate$((n + 1)),$rss,$fds" >>"$out/soak.csv"
  done
}
echo "seconds,instance,rss_kib,fds" >"$out/soak.csv"
: >"$out/rounds.csv"

start=$SECONDS
fault_until=0
round=0
next_sample=0
while [ $((SECONDS - start)) -lt $((minutes * 60)) ]; do
  elapsed=$((SECONDS - start))
  minute_of_ten=$(((elapsed / 60) % cycle))
  # The faults, each once per ten minutes.
  if [ "$minute_of_ten" -eq "$a_minute" ] && [ "$fault_until" -lt "$SECONDS" ] && kill -0 "$a_pid" 2>/dev/null; then
    kill -KILL "$a_pid"; wait "$a_pid" 2>/dev/null || true
    echo "$elapsed: upstream a killed for 30 s" >>"$out/faults.log"
    fault_until=$((SECONDS + 60))
    (sleep 30; echo restart >"$work/restart-a") &
  fi
  if [ -f "$work/restart-a" ]; then
    rm -f "$work/restart-a"; start_a
    echo "$((SECONDS - start)): upstream a back" >>"$out/faults.log"
  fi
  if [ "$minute_of_ten" -eq "$redis_minute" ] && [ "$fault_until" -lt "$SECONDS" ]; then
    kill -STOP "$redis_pid"
    echo "$elapsed: redis frozen for 3 s" >>"$out/faults.log"
    fault_until=$((SECONDS + 60))
    (sleep 3; kill -CONT "$redis_pid") &
  fi
  faulted=$([ "$fault_until" -ge "$SECONDS" ] && echo 1 || echo 0)
  round=$((round + 1))
  tool1=$([ $((round % 2)) -eq 0 ] && echo a__echo || echo b__echo)
  tool2=$([ "$tool1" = a__echo ] && echo b__echo || echo a__echo)
  "$build/simulations/load_driver" "http://127.0.0.1:${ports[0]}/mcp" 2 20 "$tool1" >"$work/l1.json" 2>/dev/null &
  l1=$!
  "$build/simulations/load_driver" "http://127.0.0.1:${ports[1]}/mcp" 2 20 "$tool2" >"$work/l2.json" 2>/dev/null &
  l2=$!
  browse_failed=0
  for i in $(seq 1 18); do
    browse_failed=$((browse_failed + $(browse "${ports[$((i % 2))]}")))
    sleep 1
  done
  wait "$l1" || true
  wait "$l2" || true
  calls=$(python3 -c 'import json,sys; print(sum(json.load(open(f))["calls"] for f in sys.argv[1:]))' "$work/l1.json" "$work/l2.json" 2>/dev/null || echo 0)
  errors=$(python3 -c 'import json,sys; print(sum(json.load(open(f))["errors"] for f in sys.argv[1:]))' "$work/l1.json" "$work/l2.json" 2>/dev/null || echo 1)
  echo "$((SECONDS - start)),$faulted,$calls,$errors,$browse_failed" >>"$out/rounds.csv"
  if [ $((SECONDS - start)) -ge "$next_sample" ]; then
    sample $((SECONDS - start))
    next_sample=$((next_sample + 30))
  fi
done
sample $((SECONDS - start))
for g in "${gates[@]}"; do kill -0 "$g" || { echo "soak: gate $g died" >&2; exit 1; }; done

python3 - "$out" "$minutes" <<'PY'
import csv, sys
out, minutes = sys.argv[1], int(sys.argv[2])
samples = list(csv.reader(open(f"{out}/soak.csv")))[1:]
rounds = [list(map(int, r)) for r in csv.reader(open(f"{out}/rounds.csv"))]
tenth = minutes * 6
ok = True
lines = []
for inst in ("gate1", "gate2"):
    s = [(int(a), int(b), int(c)) for a, i, b, c in samples if i == inst]
    early = next((x for x in s if x[0] >= tenth), s[0])
    last = s[-1]
    growth = (last[1] - early[1]) / early[1] * 100
    lines.append(f"{inst}: RSS {early[1]} KiB at {early[0]} s, {last[1]} KiB at {last[0]} s "
                 f"({growth:+.1f}%), max {max(x[1] for x in s)} KiB; descriptors {early[2]} -> {last[2]} "
                 f"(max {max(x[2] for x in s)})")
    ok &= growth <= 20 and last[2] - early[2] <= 16
calm = [r for r in rounds if r[1] == 0]
stormy = [r for r in rounds if r[1] == 1]
calls = sum(r[2] for r in rounds)
calm_errors = sum(r[3] + r[4] for r in calm)
stormy_errors = sum(r[3] + r[4] for r in stormy)
lines.append(f"{len(rounds)} rounds, {calls} calls by the load drivers; errors: {calm_errors} in "
             f"{len(calm)} rounds without a fault, {stormy_errors} in {len(stormy)} rounds with one")
ok &= calm_errors == 0
print("\n".join(lines))
sys.exit(0 if ok else 1)
PY
