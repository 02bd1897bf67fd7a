#!/usr/bin/env bash
# gate's resident memory idle: two upstreams (two fast_upstream instances), gate started on
# them, a first tools/list and a call through each so every lazily made part is made, then
# RSS read once the process has settled. Prints one line per gate binary given.
#
#   simulations/idle_rss.sh [GATE_BIN...]     (default build/gate; GATE_BUILD_DIR for the rest)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$#" -gt 0 ] || set -- "$build/gate"

start_fast_upstream
first="$upstream"
start_fast_upstream
second="$upstream"
cat >"$work/gate.json" <<EOF
{"upstreams": [{"id": "one", "namespace": "one", "url": "$first"},
               {"id": "two", "namespace": "two", "url": "$second"}]}
EOF

rss_kib() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
# One JSON-RPC POST to gate; prints the answer's headers and body.
post() {
  curl -s -D - -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    ${session:+-H "Mcp-Session-Id: $session"} -d "$1" "http://127.0.0.1:$port/mcp"
}
for bin in "$@"; do
  "$bin" --config "$work/gate.json" --port 0 --log-level warn 2>"$work/gate.err" &
  gate_pid=$!
  pids+=("$gate_pid")
  port="$(listening_port "$gate_pid")"
  session=""
  session="$(post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"idle-rss","version":"1"}}}' |
    tr -d '\r' | awk -F': ' 'tolower($1) == "mcp-session-id" {print $2}')"
  post '{"jsonrpc":"2.0","method":"notifications/initialized"}' >/dev/null
  post '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' >/dev/null
  for id in one two; do
    post "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"${id}__echo\",\"arguments\":{}}}" >/dev/null
  done
  sleep 2 # settling: what the calls left freed back (nothing to be told of it)
  echo "$bin: idle RSS $(rss_kib "$gate_pid") KiB (two upstreams, one session)"
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
done
