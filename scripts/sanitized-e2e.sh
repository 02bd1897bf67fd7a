#!/usr/bin/env bash
# The end-to-end tests (tests/js) against one sanitized build, with the sanitizer reports of
# the binaries they start (gate, gate-stdio, gate-hooks, replay, the embedded sample) written
# to files (log_path): the tests read those binaries' stderr as lines, and a report at exit,
# a leak above all, would otherwise pass unseen. Any report fails the run and is printed
# whole, as does a failing test; runtime warnings in the same files do not count. (The stdio
# test server runs under gate-stdio, which gives a child no variable it was not told to pass:
# its reports stay on its stderr, which gate-stdio logs.)
#
#   scripts/sanitized-e2e.sh asan|tsan <build dir> [test files...]
#
# NODE22: the Node to run the tests with (else scripts/setup-node.sh finds it).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kind=$1
build=$2
shift 2
reports="$(mktemp -d)"
case "$kind" in
asan)
  # Both runtimes write to the same files; the build has -fno-sanitize-recover, so the first
  # finding ends the process that made it (ASan halts on its own errors by default).
  export ASAN_OPTIONS="detect_leaks=1 log_path=$reports/report" \
    UBSAN_OPTIONS="print_stacktrace=1 log_path=$reports/report"
  found='ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer)'
  ;;
tsan)
  export TSAN_OPTIONS="suppressions=$root/tests/tsan.supp log_path=$reports/report"
  found='ThreadSanitizer:'
  ;;
*)
  echo "usage: $0 asan|tsan <build dir> [test files...]" >&2
  exit 2
  ;;
esac

status=0
# Tests that read gate's resident memory skip that bound under a sanitizer: shadow memory and
# ASan's quarantine of freed buffers are not gate's (tests/js/upstream-bounds.test.mjs).
export GATE_SANITIZED="$kind"
GATE_BIN="$build/gate" GATE_STDIO_BIN="$build/shim/gate-stdio" GATE_HOOKS_BIN="$build/gate-hooks" \
  GATE_STDIO_TEST_SERVER="$build/tests/support/stdio_mcp_server" \
  bash "$root/tests/js/run.sh" "$@" || status=$?

mapfile -t reported < <(grep -l -E "$found" "$reports"/report* 2>/dev/null || true)
if [ "${#reported[@]}" -gt 0 ]; then
  echo "sanitized-e2e: ${#reported[@]} process(es) reported findings ($kind):" >&2
  for f in "${reported[@]}"; do
    echo "== $f" >&2
    cat "$f" >&2
  done
  exit 1
fi
rm -rf "$reports"
[ "$status" -eq 0 ] || echo "sanitized-e2e: the tests failed (status $status); no sanitizer report" >&2
exit "$status"
