#!/usr/bin/env bash
# Quick start 1: installs what is missing, builds gate, starts a demo federation of two real
# MCP servers (@modelcontextprotocol/server-everything, streamable HTTP, on loopback) behind
# gate, and prints how to connect a client. Ctrl-C stops everything it started.
#
#   GATE_PORT   gate's port (default 8090)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh
bash scripts/build.sh
node22="$(bash scripts/setup-node.sh | tail -n 1)"
port="${GATE_PORT:-8090}"
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

everything="$root/tests/js/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
preload="$root/tests/js/lib/loopback-listen.mjs"
urls=()
for name in alpha beta; do
  PORT=0 "$node22" --import "$preload" "$everything" streamableHttp 2>"$work/$name.log" >/dev/null &
  pids+=($!)
  for _ in $(seq 1 200); do
    addr="$(sed -n 's/^GATE_TEST_LISTENING \(.*\)$/\1/p' "$work/$name.log" | head -n 1)"
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { echo "server-everything ($name) did not start:"; cat "$work/$name.log"; exit 1; }
  urls+=("http://$addr/mcp")
  echo "upstream $name: server-everything on http://$addr/mcp"
done

cat >"$work/gate.json" <<JSON
{
  "upstreams": [
    {"id": "alpha", "url": "${urls[0]}", "namespace": "alpha"},
    {"id": "beta", "url": "${urls[1]}", "namespace": "beta"}
  ],
  "audit": {"sinks": [{"type": "stdout"}]}
}
JSON

inspector="$root/tests/js/node_modules/.bin/mcp-inspector"
cat <<TXT

gate is starting on http://127.0.0.1:$port/mcp with two namespaced upstreams (alpha, beta).
Connect a client from another terminal, for example:

  $node22 $inspector --cli http://127.0.0.1:$port/mcp --transport http --method tools/list
  $node22 $inspector --cli http://127.0.0.1:$port/mcp --transport http --method tools/call --tool-name alpha__echo --tool-arg message=hello

Health: curl http://127.0.0.1:$port/health    Metrics: curl http://127.0.0.1:$port/metrics
Audit events are printed below as JSON lines. Ctrl-C stops gate and both upstreams.

TXT
"$root/build/gate" --config "$work/gate.json" --port "$port" &
pids+=($!)
wait "${pids[-1]}"
