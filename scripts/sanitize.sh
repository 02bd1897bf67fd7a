#!/usr/bin/env bash
# Builds gate, gate-stdio and gate-hooks with AddressSanitizer + UndefinedBehaviorSanitizer and with ThreadSanitizer, and
# runs the C++ tests and the end-to-end tests against each instrumented binary. Any finding
# fails the run (-fno-sanitize-recover; the end-to-end binaries' reports, ASan, LSan, UBSan
# and TSan, are collected from log files by scripts/sanitized-e2e.sh).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh
NODE22="$(bash scripts/setup-node.sh | tail -n 1)"
export NODE22
# llvm-symbolizer (llvm-16) turns sanitizer reports into file:line stacks.
export PATH="/usr/lib/llvm-16/bin:$PATH"

echo "== ASan + UBSan" >&2
GATE_BUILD_DIR="$root/build-asan" GATE_BUILD_TYPE=Debug \
  GATE_CMAKE_ARGS="-DGATE_SANITIZE=address,undefined -DGATE_FUZZ=ON" bash scripts/build.sh
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
(cd build-asan && ctest --no-tests=error --output-on-failure -j 2)
bash scripts/sanitized-e2e.sh asan "$root/build-asan"

echo "== libFuzzer (${GATE_FUZZ_SECONDS:-15} s per parser)" >&2
for f in config_parse json_rpc sse cursor jws key_set redis_reply discovery_doc recording token_request \
  headers header_writer stdio_lines webhook_request; do
  corpus="$root/build-asan/fuzz-corpus/$f"
  mkdir -p "$corpus"
  [ "$f" = config_parse ] && cp config/examples/*.json "$corpus/"
  [ -d "tests/fuzz/corpus/$f" ] && cp "tests/fuzz/corpus/$f"/* "$corpus/"
  "$root/build-asan/tests/fuzz/${f}_fuzz" -max_total_time="${GATE_FUZZ_SECONDS:-15}" \
    -max_len=65536 "$corpus" 2>"$root/build-asan/fuzz-$f.log" ||
    { tail -n 50 "$root/build-asan/fuzz-$f.log" >&2; exit 1; }
done
unset ASAN_OPTIONS UBSAN_OPTIONS

echo "== TSan" >&2
GATE_BUILD_DIR="$root/build-tsan" GATE_CMAKE_ARGS="-DGATE_SANITIZE=thread" bash scripts/build.sh
export TSAN_OPTIONS="halt_on_error=1 suppressions=$root/tests/tsan.supp"
(cd build-tsan && ctest --no-tests=error --output-on-failure -j 2)
bash scripts/sanitized-e2e.sh tsan "$root/build-tsan"
echo "sanitizers: clean" >&2
