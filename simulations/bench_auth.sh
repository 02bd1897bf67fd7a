#!/usr/bin/env bash
# What authentication, a policy and a decision hook cost on the hot path: the same pinned
# benchmark as simulations/bench.sh (gate on its own core, load driver and
# simulations/fast_upstream on the other), direct against gate, mode by mode in one run
# (simulations/bench_modes.sh says what each is):
#   open:       no auth, no policy;
#   auth:       auth.mode required, an ES256 token from a local issuer (its key set cached after
#               the first call), sent on every request;
#   policy:     the same with a 100-rule deny-by-default policy whose last rule, matched by
#               group, grants the benchmark's tool by a glob;
#   conditions: the same with a 100-rule policy on arguments and annotations, deny rules tried
#               on every call;
#   hook:       policy, plus a decision hook (simulations/bench_decider on loopback, on the
#               load driver's core) asked before every call.
# After the table, the hook's: what it added over policy, what gate timed its exchanges at
# (gate_decision_hook_duration_seconds), the hook's own round trip asked directly from gate's
# core with gate stopped (on one connection, on as many as the sessions, and on one beside a
# direct load of that many sessions), and the connections and questions gate brought it.
#   simulations/bench_auth.sh [seconds-per-run]   (default 5; build and setup-node.sh first)
#   GATE_BUILD_DIR=DIR ...     gate and simulations/ from DIR (a copy that rebuilds leave alone)
#   GATE_BENCH_MODES="..."     the modes to run (default: open auth policy conditions hook)
#   GATE_BENCH_SESSIONS="..."  the session counts (default: 8 64; 1 shows latency without a queue)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
seconds="${1:-5}"
modes="${GATE_BENCH_MODES:-open auth policy conditions hook}"
sessions="${GATE_BENCH_SESSIONS:-8 64}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
[ "$(nproc)" -ge 2 ] || { echo "needs 2 cores" >&2; exit 1; }
last_cpu=$(( $(nproc) - 1 ))

# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
start_bench_peers "$modes" taskset -c 0
start_fast_upstream taskset -c 0

# The sum and count of gate's hook exchanges so far, from its /metrics on port $1.
hook_exchanges() {
  curl -s "http://127.0.0.1:$1/metrics" |
    awk '/^gate_decision_hook_duration_seconds_sum\{stage="call"\}/ {s = $2}
         /^gate_decision_hook_duration_seconds_count\{stage="call"\}/ {c = $2}
         END {print s + 0, c + 0}'
}

# The connections the decision service accepted and the questions it answered so far.
hook_counts() {
  [ -n "${bench_hook_pid:-}" ] || { echo "0 0"; return; }
  local seen
  seen="$(grep -c '^connections' "$work/decider.out" || true)"
  kill -USR1 "$bench_hook_pid"
  until [ "$(grep -c '^connections' "$work/decider.out" || true)" -gt "$seen" ]; do sleep 0.01; done
  grep '^connections' "$work/decider.out" | tail -n 1 | awk '{print $2, $4}'
}

echo "| sessions | mode | direct calls/s | gate calls/s | ratio | direct p50 ms | gate p50 ms | added p50 ms | errors |"
echo "|---:|---|---:|---:|---:|---:|---:|---:|---:|"
for mode in $modes; do
  write_bench_config "$mode"
  taskset -c "$last_cpu" "$build/gate" --config "$work/gate.json" --port 0 --log-level warn 2>"$work/gate.err" &
  gate_pid=$!
  pids+=($gate_pid)
  gate_port="$(listening_port "$gate_pid")"
  auth="$(bench_authorization "$mode")"
  for n in $sessions; do
    d="$(taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds")"
    before="$(hook_exchanges "$gate_port") $(hook_counts)"
    g="$(GATE_BENCH_AUTHORIZATION="$auth" taskset -c 0 "$build/simulations/load_driver" "http://127.0.0.1:$gate_port/mcp" "$n" "$seconds")"
    after="$(hook_exchanges "$gate_port") $(hook_counts)"
    python3 - "$d" "$g" "$mode" "$before" "$after" "$work/results" <<'PY'
import json, sys
d, g, mode, before, after, results = json.loads(sys.argv[1]), json.loads(sys.argv[2]), *sys.argv[3:]
added = g['p50Ms'] - d['p50Ms']
print(f"| {d['sessions']} | {mode} | {d['callsPerSec']:.0f} | {g['callsPerSec']:.0f} | "
      f"{g['callsPerSec'] / d['callsPerSec']:.2f} | {d['p50Ms']:.3f} | {g['p50Ms']:.3f} | "
      f"{added:.3f} | {g['errors']} |")
(s0, c0, k0, q0), (s1, c1, k1, q1) = map(float, before.split()), map(float, after.split())
with open(results, "a") as out:
    out.write(json.dumps({"mode": mode, "sessions": d["sessions"], "added": added,
                          "exchangeMs": (s1 - s0) / (c1 - c0) * 1000 if c1 > c0 else None,
                          "connections": k1 - k0, "questions": q1 - q0}) + "\n")
PY
  done
  kill "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
done

case " $modes " in *" hook "*) ;; *) exit 0 ;; esac
# The hook's own round trip, asked from gate's core with gate stopped, with the question gate
# asked: on one connection, on as many as the sessions, and on one while that many sessions
# load the upstream directly (the service's core as busy as in gate's run).
sed -n 's/^first //p' "$work/decider.out" >"$work/question.json"
ask_hook() {
  taskset -c "$last_cpu" "$build/simulations/bench_decider" ask "$bench_hook_port" "$1" "$seconds" "$work/question.json" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["p50Ms"])'
}
echo
echo "| sessions | policy added p50 ms | hook added p50 ms | hook's cost p50 ms | gate's mean exchange ms | hook's round trip p50 ms: 1 connection / n / 1 beside n direct sessions | gate's connections, questions |"
echo "|---:|---:|---:|---:|---:|---|---|"
for n in $sessions; do
  one="$(ask_hook 1)"
  many="$(ask_hook "$n")"
  taskset -c 0 "$build/simulations/load_driver" "$upstream" "$n" "$seconds" >/dev/null &
  loaded_pid=$!
  busy="$(ask_hook 1)"
  wait "$loaded_pid"
  python3 - "$work/results" "$n" "$one" "$many" "$busy" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
n, rtt = int(sys.argv[2]), [float(v) for v in sys.argv[3:6]]
at = {r["mode"]: r for r in rows if r["sessions"] == n}
policy, hook = at.get("policy", {}).get("added"), at["hook"]
ms = lambda v: "-" if v is None else f"{v:.3f}"
print(f"| {n} | {ms(policy)} | {ms(hook['added'])} | "
      f"{ms(None if policy is None else hook['added'] - policy)} | {ms(hook['exchangeMs'])} | "
      f"{' / '.join(ms(v) for v in rtt)} | {hook['connections']:.0f}, {hook['questions']:.0f} |")
PY
done
