#!/usr/bin/env bash
# Where gate's core goes, counted rather than timed: the instructions gate executes per proxied
# call (all its threads: the io thread and the actor workers), under valgrind's callgrind, with
# 8 sessions of simulations/load_driver calling simulations/fast_upstream through gate in
# passthrough mode. Counts do not depend on the machine's speed or on its neighbours, so two
# builds compare exactly where timed runs on this VM spread by 10%. Each binary given is run in
# turn (default: build/gate); the counting starts once gate has answered a first call and
# stops before it exits.
# Needs valgrind (Debian's valgrind; debug info is stripped from a copy first: valgrind 3.19
# cannot read clang-16's DWARF 5).
#
#   simulations/bench_instructions.sh [gate-binary ...]
#   GATE_BENCH_PROFILE=1 ...   also print the 25 functions with the most instructions (self)
#   GATE_BENCH_SECONDS=N ...   load for N seconds (default 5; fixed costs per second weigh less)
#   GATE_BENCH_SESSIONS=N ...  sessions of the load (default 8); their handshakes are counted
#                              too (each opens a bridged session upstream), so with many
#                              sessions compare two durations: the difference is per call
#   GATE_BENCH_REDIS=1 ...     with mode vaulted: the vault in a real Redis (the fleet's store),
#                              and the Redis commands gate sent during the count, per call
#   GATE_BENCH_MODE=guards|auth|policy|conditions|hook|static|vaulted ...   gate configured as
#                              simulations/bench_modes.sh says (default open; all but guards
#                              need setup-node.sh; hook starts simulations/bench_decider)
#   GATE_BENCH_KEEP=FILE ...   keep the callgrind dump (for callgrind_annotate --inclusive=yes)
#   GATE_BENCH_PRELOAD=LIB ... run gate with LD_PRELOAD=LIB (another allocator, say)
#   GATE_BENCH_HEAP=1 ...      count the heap instead, under valgrind's DHAT (the whole run,
#                              startup too): what a call allocates, site by site, and what of
#                              it the call holds while it waits on its upstream
#                              (simulations/heap_per_call.py; GATE_BENCH_KEEP keeps the profile)
#   GATE_BENCH_CACHE=1 ...     also simulate a 32 KiB L1 and a 1 MiB last-level cache and print
#                              their data misses per call (what a working set larger than
#                              the core's cache costs; with GATE_BENCH_SESSIONS=256, difference
#                              two durations as above, and expect +-10% from run to run)
#   GATE_BENCH_LL=BYTES ...    the simulated last level's size (1048576, this core's L2, unless
#                              set; 2097152 and 4194304 size a working set between them)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
# shellcheck source=scripts/scratch.sh
source "$root/scripts/scratch.sh"
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 1; }
[ "$#" -gt 0 ] || set -- "$build/gate"

# shellcheck source=simulations/bench_modes.sh
source "$root/simulations/bench_modes.sh"
mode="${GATE_BENCH_MODE:-open}"
start_bench_peers "$mode"
start_fast_upstream
write_bench_config "$mode"
for bin in "$@"; do
  strip --strip-debug -o "$work/gate.nodebug" "$bin"
  tool=(--tool=callgrind ${GATE_BENCH_CACHE:+--cache-sim=yes --D1=32768,8,64 --LL=${GATE_BENCH_LL:-1048576},16,64} --callgrind-out-file="$work/cg.out")
  # jemalloc is gate's malloc: DHAT replaces it only when told it is the one.
  [ -n "${GATE_BENCH_HEAP:-}" ] && tool=(--tool=dhat "--soname-synonyms=somalloc=libjemalloc*" --dhat-out-file="$work/dhat.out")
  ${GATE_BENCH_PRELOAD:+env LD_PRELOAD=$GATE_BENCH_PRELOAD} valgrind "${tool[@]}" "$work/gate.nodebug" \
    --config "$work/gate.json" --port 0 --log-level warn --io-threads 1 2>"$work/valgrind.err" &
  gate_pid=$!
  port=""
  for _ in $(seq 1 300); do
    port="$(listening_port "$gate_pid")"
    [ -n "$port" ] && break
  done
  # Mode vaulted: the user's login, before anything is counted.
  [ "$mode" = vaulted ] && bench_login "$port"
  # Not counted: the rest of gate's start, the upstream's handshake, the first token's check
  # (and the key set's fetch): one session calling for a second, answered, before the count.
  GATE_BENCH_AUTHORIZATION="$(bench_authorization "$mode")" \
    "$build/simulations/load_driver" "http://127.0.0.1:$port/mcp" 1 1 "$(bench_tool "$mode")" >/dev/null
  [ -n "${GATE_BENCH_HEAP:-}" ] || callgrind_control -z "$gate_pid" >/dev/null
  [ -n "${bench_redis_port:-}" ] && bench_redis_commands >/dev/null
  calls="$(GATE_BENCH_AUTHORIZATION="$(bench_authorization "$mode")" "$build/simulations/load_driver" "http://127.0.0.1:$port/mcp" "${GATE_BENCH_SESSIONS:-8}" "${GATE_BENCH_SECONDS:-5}" "$(bench_tool "$mode")" |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["calls"])')"
  [ -n "${GATE_BENCH_HEAP:-}" ] || callgrind_control -d "$gate_pid" >/dev/null
  if [ -n "${bench_redis_port:-}" ]; then
    echo "$bin ($mode, shared store): Redis commands during the count, per call:"
    bench_redis_commands | awk -v c="$calls" '{printf "  %s %d (%.4f per call)\n", $1, $2, $2 / c}'
  fi
  kill -INT "$gate_pid"
  wait "$gate_pid" 2>/dev/null || true
  if [ -n "${GATE_BENCH_HEAP:-}" ]; then
    echo "$bin ($mode): $calls calls"
    python3 "$root/simulations/heap_per_call.py" "$work/dhat.out" "$calls" "${GATE_BENCH_SESSIONS:-8}"
    [ -n "${GATE_BENCH_KEEP:-}" ] && cp "$work/dhat.out" "$GATE_BENCH_KEEP"
    rm -f "$work/dhat.out"
    continue
  fi
  dump="$(ls -t "$work"/cg.out.* | head -n 1)"
  total="$(awk '/^summary:/ {print $2}' "$dump")"
  echo "$bin ($mode): $calls calls, $((total / calls)) instructions per call ($total in all)"
  if [ -n "${GATE_BENCH_CACHE:-}" ]; then
    # summary: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw
    awk -v c="$calls" '/^summary:/ {printf "  data misses per call: L1 %.0f read %.0f write, last level %.0f read %.0f write (%d %d %d %d in all)\n", $6/c, $7/c, $9/c, $10/c, $6, $7, $9, $10}' "$dump"
  fi
  if [ -n "${GATE_BENCH_PROFILE:-}" ]; then
    callgrind_annotate --threshold=100 --inclusive=no "$dump" 2>/dev/null |
      awk '/^-+$/ {n++} n >= 3 && /\(/ && !/below main|libc_start|run_gate|run_io|io_context::run|start_thread|clone|_M_run|^ *$/' |
      head -n 25 | cut -c1-160 || true # head closes the pipe early
  fi
  [ -n "${GATE_BENCH_KEEP:-}" ] && cp "$dump" "$GATE_BENCH_KEEP"
  rm -f "$work"/cg.out*
done
