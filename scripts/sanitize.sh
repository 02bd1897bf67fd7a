#!/usr/bin/env bash
# Builds gate, gate-stdio and gate-hooks with AddressSanitizer + UndefinedBehaviorSanitizer and with ThreadSanitizer, and
# runs the C++ tests and the end-to-end tests against each instrumented binary. Any finding
# fails the run (-fno-sanitize-recover; TSan reports are collected from log files).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/install-deps.sh
node22="$(bash scripts/setup-node.sh | tail -n 1)"
# llvm-symbolizer (llvm-16) turns sanitizer reports into file:line stacks.
export PATH="/usr/lib/llvm-16/bin:$PATH"

echo "== ASan + UBSan" >&2
GATE_BUILD_DIR="$root/build-asan" GATE_BUILD_TYPE=Debug \
  GATE_CMAKE_ARGS="-DGATE_SANITIZE=address,undefined -DGATE_FUZZ=ON" bash scripts/build.sh
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1
(cd build-asan && ctest --no-tests=error --output-on-failure -j 2)
GATE_BIN="$root/build-asan/gate" GATE_STDIO_BIN="$root/build-asan/shim/gate-stdio" GATE_HOOKS_BIN="$root/build-asan/gate-hooks" \
  GATE_STDIO_TEST_SERVER="$root/build-asan/tests/support/stdio_mcp_server" \
  NODE22="$node22" bash tests/js/run.sh

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
reports="$(mktemp -d)"
export TSAN_OPTIONS="halt_on_error=1 suppressions=$root/tests/tsan.supp"
(cd build-tsan && ctest --no-tests=error --output-on-failure -j 2)
TSAN_OPTIONS="suppressions=$root/tests/tsan.supp log_path=$reports/gate" \
  GATE_BIN="$root/build-tsan/gate" GATE_STDIO_BIN="$root/build-tsan/shim/gate-stdio" GATE_HOOKS_BIN="$root/build-tsan/gate-hooks" \
  GATE_STDIO_TEST_SERVER="$root/build-tsan/tests/support/stdio_mcp_server" \
  NODE22="$node22" bash tests/js/run.sh
# The log files may also hold runtime warnings; only reports count.
if grep -l "ThreadSanitizer:" "$reports"/gate* >/dev/null 2>&1; then
  echo "ThreadSanitizer reports from gate / gate-stdio:" >&2
  cat "$reports"/gate* >&2
  exit 1
fi
echo "sanitizers: clean" >&2
