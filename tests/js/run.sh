#!/usr/bin/env bash
# Runs the JavaScript end-to-end tests (tests/js/*.test.mjs) with the pinned Node 22,
# one file at a time. Every file has an overall time limit (node --test kills a file's
# process when it runs past --test-timeout); each test has its own, shorter limit.
#
#   tests/js/run.sh                       all files
#   tests/js/run.sh tests/js/audit.test.mjs   some files
#
# Environment: GATE_BIN (default build/gate), GATE_TEST_FILE_TIMEOUT_MS (default 600000),
# NODE22 (use this node instead of running scripts/setup-node.sh), GATE_TEST_CONCURRENCY (files
# run at once, default 1; every file binds port 0 and keeps its own scratch, so two can share
# a machine: the sanitizers' slowest pass runs two, docs/ci.md).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

# NODE22 (a Node >= 22 binary) skips the setup step; otherwise setup-node.sh installs or
# finds the pinned one (fast when already installed).
NODE=${NODE22:-$("$ROOT/scripts/setup-node.sh" | tail -n 1)}
export GATE_BIN=${GATE_BIN:-$ROOT/build/gate}
FILE_TIMEOUT_MS=${GATE_TEST_FILE_TIMEOUT_MS:-600000}
CONCURRENCY=${GATE_TEST_CONCURRENCY:-1}

cd "$ROOT"
if [ "$#" -gt 0 ]; then
  files=("$@")
else
  files=(tests/js/*.test.mjs)
fi

# Backstop for the whole run: every file at its limit, plus a minute.
total_s=$(( (FILE_TIMEOUT_MS / 1000) * ${#files[@]} + 60 ))
echo "node $("$NODE" --version), GATE_BIN=$GATE_BIN, ${#files[@]} file(s), ${FILE_TIMEOUT_MS} ms per file" >&2
exec timeout --kill-after=30s "$total_s" \
  "$NODE" --test --test-concurrency="$CONCURRENCY" --test-timeout="$FILE_TIMEOUT_MS" "${files[@]}"
