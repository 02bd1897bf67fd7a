#!/usr/bin/env bash
# Builds gate, gate-stdio and gate-hooks with AddressSanitizer + UndefinedBehaviorSanitizer and with ThreadSanitizer, and
# runs the C++ tests and the end-to-end tests against each instrumented binary. Any finding
# fails the run (-fno-sanitize-recover; the end-to-end binaries' reports, ASan, LSan, UBSan
# and TSan, are collected from log files by scripts/sanitized-e2e.sh). Each stage's duration
# is printed (docs/ci.md). The benchmark-only tools (simulations/) are not built here: no
# test uses them, and the release build of scripts/test.sh compiles them.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
# shellcheck source=scripts/stage.sh
source scripts/stage.sh
# shellcheck source=scripts/sanitizer-builds.sh
source scripts/sanitizer-builds.sh
stage "deps" bash scripts/install-deps.sh
NODE22="$(bash scripts/setup-node.sh | tail -n 1)"
export NODE22
# llvm-symbolizer (llvm-16) turns sanitizer reports into file:line stacks.
export PATH="/usr/lib/llvm-16/bin:$PATH"
fuzz_seconds="${GATE_FUZZ_SECONDS:-15}"

# One parser's libFuzzer run on its seed corpus; the log's tail is printed when it finds something.
fuzz_one() {
  local f=$1 corpus="$root/build-asan/fuzz-corpus/$1" log="$root/build-asan/fuzz-$1.log"
  mkdir -p "$corpus"
  if [ "$f" = config_parse ]; then cp config/examples/*.json "$corpus/"; fi
  if [ -d "tests/fuzz/corpus/$f" ]; then cp "tests/fuzz/corpus/$f"/* "$corpus/"; fi
  nice -n "${fuzz_nice:-0}" "$root/build-asan/tests/fuzz/${f}_fuzz" -max_total_time="$fuzz_seconds" \
    -max_len=65536 "$corpus" 2>"$log" ||
    { echo "== libFuzzer: $f failed" >&2; tail -n 50 "$log" >&2; return 1; }
}

# Every parser, one after the other, each to the end even after one has failed.
fuzz_all() {
  local f status=0
  for f in config_parse json_rpc sse cursor jws key_set redis_reply discovery_doc recording \
    token_request headers header_writer stdio_lines webhook_request lock_line oauth_documents; do
    fuzz_one "$f" || status=1
  done
  return "$status"
}

echo "== ASan + UBSan" >&2
# .ci/run may have built it already, beside the release tests: then this finds nothing to do.
stage "asan build" asan_build
# The TSan build runs beside the ASan tests, niced (scripts/sanitizer-builds.sh).
background_build tsan tsan_build
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
stage "asan ctest" ctest --test-dir build-asan --no-tests=error --output-on-failure -j 2
stage "asan e2e" bash scripts/sanitized-e2e.sh asan "$root/build-asan"

echo "== TSan build (the rest of it)" >&2
stage "tsan build (waited)" finish_build tsan

echo "== TSan" >&2
export TSAN_OPTIONS="halt_on_error=1 suppressions=$root/tests/tsan.supp"
stage "tsan ctest" ctest --test-dir build-tsan --no-tests=error --output-on-failure -j 2
# The TSan end-to-end pass runs two files at a time: one leaves about a core idle (it waits on
# peers and timers, docs/ci.md), and nothing else needs the cores by then. libFuzzer runs
# beside it, one parser at a time at the lowest priority, in what the pass leaves.
echo "== libFuzzer ($fuzz_seconds s per parser, one at a time, beside the TSan e2e pass)" >&2
fuzz_nice=19 fuzz_all >"$root/build-asan/fuzz.log" 2>&1 &
fuzz_pid=$!
unset ASAN_OPTIONS UBSAN_OPTIONS
tsan_status=0
GATE_TEST_CONCURRENCY="${GATE_TEST_CONCURRENCY:-2}" stage "tsan e2e" \
  bash scripts/sanitized-e2e.sh tsan "$root/build-tsan" || tsan_status=$?
fuzz_status=0
stage "fuzz (waited)" wait "$fuzz_pid" || fuzz_status=$?
if [ "$fuzz_status" -ne 0 ]; then
  echo "== libFuzzer found something:" >&2
  cat "$root/build-asan/fuzz.log" >&2
fi
[ "$tsan_status" -eq 0 ] && [ "$fuzz_status" -eq 0 ] || exit 1
echo "sanitizers: clean" >&2
