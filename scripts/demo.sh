#!/usr/bin/env bash
# Quick start 1: installs what is missing, builds gate, starts a demo federation of two real
# MCP servers (@modelcontextprotocol/server-everything, streamable HTTP, on loopback) behind
# gate, and gate-hooks (webhook notifications, SQLite) beside it, and prints how to connect a
# client. Ctrl-C stops everything it started.
#
#   GATE_PORT         gate's port (default 8090)
#   GATE_HOOKS_PORT   gate-hooks' port (default 8091)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh
bash scripts/build.sh
node22="$(bash scripts/setup-node.sh | tail -n 1)"
port="${GATE_PORT:-8090}"
hooks_port="${GATE_HOOKS_PORT:-8091}"
# shellcheck source=scripts/scratch.sh
source scripts/scratch.sh
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
    {"id": "alpha", "url": "${urls[0]}", "namespace": "alpha",
     "circuitBreaker": {"failureThreshold": 5, "halfOpenAfterMs": 10000},
     "rateLimit": {"requestsPerMinute": 600}},
    {"id": "beta", "url": "${urls[1]}", "namespace": "beta"}
  ],
  "server": {"rateLimit": {"requestsPerMinute": 6000}},
  "audit": {"sinks": [{"type": "stdout"}]}
}
JSON

# gate-hooks with one organization; its token is made fresh for this run.
hooks_token="demo-$(openssl rand -hex 16)"
install -m 0600 /dev/stdin "$work/hooks.json" <<JSON # gate-hooks refuses a file others can read
{"port": $hooks_port, "database": "$work/hooks.db",
 "tokens": [{"organization": "demo_org", "token": "$hooks_token"}]}
JSON
"$root/build/gate-hooks" --config "$work/hooks.json" 2>"$work/hooks.log" &
pids+=($!)

inspector="$root/tests/js/node_modules/.bin/mcp-inspector"
cat <<TXT

gate is starting on http://127.0.0.1:$port/mcp with two namespaced upstreams (alpha, beta).
Connect a client from another terminal, for example:

  $node22 $inspector --cli http://127.0.0.1:$port/mcp --transport http --method tools/list
  $node22 $inspector --cli http://127.0.0.1:$port/mcp --transport http --method tools/call --tool-name alpha__echo --tool-arg message=hello

Health: curl http://127.0.0.1:$port/health    Metrics: curl http://127.0.0.1:$port/metrics

gate-hooks (webhook notifications) is on http://127.0.0.1:$hooks_port/ (its console page; the
token of organization demo_org is $hooks_token). Register a webhook, then post an event:

  curl -H 'Authorization: Bearer $hooks_token' -H 'Content-Type: application/json' \\
    -d '{"event":"deploy.success","url":"https://your-receiver.example/hooks","secret":"at-least-16-chars"}' \\
    http://127.0.0.1:$hooks_port/webhooks
  HOOKS_TOKEN=$hooks_token $root/build/gate-hooks emit --api http://127.0.0.1:$hooks_port \\
    --token-env HOOKS_TOKEN --type deploy.success --data '{"function":"resize"}'

Audit events are printed below as JSON lines (gate-hooks logs to $work/hooks.log).
Ctrl-C stops gate, gate-hooks and both upstreams.

TXT
"$root/build/gate" --config "$work/gate.json" --port "$port" &
pids+=($!)
wait "${pids[-1]}"
