#!/usr/bin/env bash
# What the audit webhook sink costs a request (issue 17: "adds no request latency"). The
# pinned layout of simulations/bench.sh (gate on a core of its own; the load driver,
# simulations/fast_upstream and the receiver on the other), side by side in one run: direct
# against gate with no audit section, with a webhook sink whose receiver takes every batch
# (a small Python HTTP server answering 200), and with a webhook sink whose receiver is down
# (connections refused: retries with backoff, the buffer fills, events are dropped and counted).
#   simulations/bench_audit.sh [seconds-per-run]   (default 5; build first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

start_fast_upstream taskset -c 0

receiver_port="$(free_port)"
taskset -c 0 python3 - "$receiver_port" >"$work/receiver.out" 2>&1 <<'PY' &
import http.server, json, sys
events = 0
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_POST(self):
        global events
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        events += body.count(b"{\"time\":")  # cheap: the receiver shares the driver's core
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
print("listening", flush=True)
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
pids+=($!)
for _ in $(seq 1 100); do grep -q listening "$work/receiver.out" && break; sleep 0.05; done
down_port="$(free_port)" # nothing listens there

write_config() { # $1: none | webhook | down
  python3 - "$1" "$upstream" "$receiver_port" "$down_port" >"$work/gate.json" <<'PY'
import json, sys
mode, upstream, up_port, down_port = sys.argv[1:]
doc = {"upstreams": [{"id": "bench", "url": upstream}]}
if mode != "none":
    port = up_port if mode == "webhook" else down_port
    doc["audit"] = {"sinks": [{"type": "webhook", "url": f"http://127.0.0.1:{port}/audit",
                               "headers": {"Authorization": "Bearer bench"}}]}
print(json.dumps(doc))
PY
}
metric() { # $1 port, $2 series (with labels): its value, or 0
  curl -s "http://127.0.0.1:$1/metrics" | awk -v s="$2" '$1 == s {print $2; f=1} END {if (!f) print 0}'
}

echo "| sessions | audit | direct calls/s | gate calls/s | ratio | direct p50 ms | gate p50 ms | added p50 ms | gate p99 ms | events delivered | dropped | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for n in 8 64; do
  for mode in none webhook down; do
    write_config "$mode"
    taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level error >>"$work/gate.out" 2>>"$work/gate.err" &
    gate_pid=$!
    pids+=("$gate_pid")
    gate_port="$(listening_port "$gate_pid")"
    d="$(taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds")"
    g="$(taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" "$n" "$seconds")"
    sleep 1 # the last batch's linger, so the delivered count is complete
    delivered="$(metric "$gate_port" 'gate_audit_webhook_events_total{outcome="delivered"}')"
    dropped="$(metric "$gate_port" gate_audit_events_dropped_total)"
    python3 - "$mode" "$d" "$g" "$delivered" "$dropped" <<'PY'
import json, sys
label, d, g, delivered, dropped = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3]), sys.argv[4], sys.argv[5]
print(f"| {d['sessions']} | {label} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {d['p50Ms']:.3f} | {g['p50Ms']:.3f} | "
      f"{g['p50Ms'] - d['p50Ms']:.3f} | {g.get('p99Ms', float('nan')):.3f} | {float(delivered):.0f} | {float(dropped):.0f} | {g['errors']} |")
PY
    kill "$gate_pid"
    wait "$gate_pid" 2>/dev/null || true
  done
done
