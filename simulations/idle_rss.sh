#!/usr/bin/env bash
# gate's resident memory idle: two upstreams (two fast_upstream instances), gate started on
# them, a first tools/list and a call through each so every lazily made part is made, then
# RSS read once the process has settled. Prints one line per gate binary given, then the
# floor: simulations/idle_floor, which links the same libraries and starts what gate starts
# before anything of its own (CAF's scheduler, an io_context listening, OpenSSL with a client
# TLS context, a logger, a metrics registry). Each line splits RSS into anonymous memory (heaps,
# stacks, the allocator's arenas) and pages of mapped files (code and read-only data, clean,
# shared with every process that maps them), and names the program's own mapped part.
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
# RSS, anonymous and file-backed, and the pages of the program's own file, in KiB.
rss_split() {
  local own
  own="$(awk -v exe="$(readlink "/proc/$1/exe")" '
    /^[0-9a-f]+-[0-9a-f]+ / {mine = ($NF == exe)}
    mine && /^Rss:/ {sum += $2}
    END {print sum + 0}' "/proc/$1/smaps")"
  awk -v own="$own" '/^VmRSS:/ {t = $2} /^RssAnon:/ {a = $2} /^RssFile:/ {f = $2}
    END {printf "idle RSS %d KiB: anonymous %d, files %d (its own file %d)", t, a, f, own}' \
    "/proc/$1/status"
}
# One JSON-RPC POST to gate; prints the answer's headers and body.
post() {
  curl -s -D - -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
    ${session:+-H "Mcp-Session-Id: $session"} -d "$1" "http://127.0.0.1:$port/mcp"
}
for bin in "$@"; do
  "$bin" --config "$work/gate.json" --port 0 --log-level warn --io-threads 1 2>"$work/gate.err" &
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
  gate_rss="$(rss_kib "$gate_pid")"
  echo "$bin: $(rss_split "$gate_pid") (two upstreams, one session)"
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
done

floor="${GATE_IDLE_FLOOR:-$build/simulations/idle_floor}"
if [ -x "$floor" ]; then
  "$floor" >"$work/floor.out" 2>"$work/floor.err" &
  floor_pid=$!
  pids+=("$floor_pid")
  for _ in $(seq 100); do [ -s "$work/floor.out" ] && break; sleep 0.05; done
  sleep 2 # settling, as gate had
  floor_rss="$(rss_kib "$floor_pid")"
  echo "floor ($floor): $(rss_split "$floor_pid")"
  echo "the last gate above the floor: $((gate_rss - floor_rss)) KiB"
  kill "$floor_pid"
  wait "$floor_pid" 2>/dev/null || true
fi
