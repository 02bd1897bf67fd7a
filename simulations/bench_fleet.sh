#!/usr/bin/env bash
# What a fleet's shared state costs on the hot path (issue 16). The pinned layout of
# simulations/bench.sh (gate on a core of its own; the load driver, simulations/fast_upstream,
# redis-server and haproxy on the other), side by side in one run:
#   1. direct against gate with governance kept in memory (a global and an upstream rate
#      limit and a server and an upstream budget, all high enough never to refuse) and against
#      the same with that governance shared over a real Redis (server.redisUrl);
#   2. haproxy in front of one gate instance against haproxy in front of two sharing Redis
#      (round-robin per request: every session's calls alternate between the instances).
#   simulations/bench_fleet.sh [seconds-per-run]   (default 5; build first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

# Redis as the tests run it: Debian's server binary under its own name, no persistence.
ln -s /usr/bin/redis-check-rdb "$work/redis-server"
redis_port="$(free_port)"
taskset -c 0 "$work/redis-server" --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" >"$work/redis.out" &
pids+=($!)
for _ in $(seq 1 100); do grep -q 'Ready to accept' "$work/redis.out" && break; sleep 0.05; done

start_fast_upstream taskset -c 0

db=0
write_config() { # $1: memory | redis
  db=$((db + 1))
  python3 - "$1" "$upstream" "redis://127.0.0.1:$redis_port/$db" >"$work/gate.json" <<'PY'
import json, sys
mode, upstream, redis = sys.argv[1:]
many = 1_000_000_000
doc = {"upstreams": [{"id": "bench", "url": upstream, "rateLimit": {"requestsPerMinute": many},
                      "budget": {"period": "day", "upstreamCalls": many}}],
       "server": {"rateLimit": {"requestsPerMinute": many},
                  "budget": {"period": "day", "upstreamCalls": many}}}
if mode == "redis":
    doc["server"]["redisUrl"] = redis
print(json.dumps(doc))
PY
}
start_gate() { # prints the PID; the port via listening_port
  taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn >>"$work/gate.out" 2>>"$work/gate.err" &
  echo $!
}
row() { # $1 label, $2 direct json, $3 gate json
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
label, d, g = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
print(f"| {d['sessions']} | {label} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {d['p50Ms']:.3f} | {g['p50Ms']:.3f} | "
      f"{g['p50Ms'] - d['p50Ms']:.3f} | {g['errors']} |")
PY
}

echo "| sessions | governance | direct calls/s | gate calls/s | ratio | direct p50 ms | gate p50 ms | added p50 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for n in 8 64; do
  for mode in memory redis; do
    write_config "$mode"
    gate_pid="$(start_gate)"
    pids+=("$gate_pid")
    gate_port="$(listening_port "$gate_pid")"
    d="$(taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds")"
    g="$(taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" "$n" "$seconds")"
    row "$mode" "$d" "$g"
    kill "$gate_pid"
    wait "$gate_pid" 2>/dev/null || true
  done
done

# 2. haproxy in front of one instance, then two sharing Redis.
haproxy_run() { # $@: gate ports; prints the driver's JSON through haproxy
  local lb_port
  lb_port="$(free_port)"
  {
    echo "global"; echo "  maxconn 4000"
    echo "defaults"; echo "  mode http"; echo "  timeout connect 5s"; echo "  timeout client 1h"; echo "  timeout server 1h"
    echo "frontend fleet"; echo "  bind 127.0.0.1:$lb_port"; echo "  default_backend gates"
    echo "backend gates"; echo "  balance roundrobin"
    local i=0
    for p in "$@"; do echo "  server gate$i 127.0.0.1:$p"; i=$((i + 1)); done
  } >"$work/haproxy.cfg"
  taskset -c 0 /usr/sbin/haproxy -db -f "$work/haproxy.cfg" >/dev/null 2>&1 &
  local lb_pid=$!
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$lb_port/health" && break; sleep 0.05; done
  taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$lb_port/mcp" "$n" "$seconds"
  kill "$lb_pid"
  wait "$lb_pid" 2>/dev/null || true
}
echo
echo "| sessions | behind haproxy | one-instance calls/s | fleet calls/s | ratio | one p50 ms | fleet p50 ms | added p50 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for n in 8 64; do
  write_config redis
  a="$(start_gate)"; pids+=("$a"); pa="$(listening_port "$a")"
  b="$(start_gate)"; pids+=("$b"); pb="$(listening_port "$b")"
  one="$(haproxy_run "$pa")"
  two="$(haproxy_run "$pa" "$pb")"
  row "one vs two instances" "$one" "$two"
  kill "$a" "$b"
  wait "$a" "$b" 2>/dev/null || true
done
