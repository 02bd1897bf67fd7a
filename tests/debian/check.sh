# shellcheck shell=bash
# Sourced by the Debian package tests: one line per check, TAP-like, and the counts. A check's
# output is shown only when it fails. Needs $work, a folder of the test's own.

passed=0
failed=0
check() { # check NAME COMMAND...
  local name=$1
  shift
  if "$@" >"${work:?}/check.out" 2>&1; then
    passed=$((passed + 1))
    echo "ok - $name"
  else
    failed=$((failed + 1))
    echo "not ok - $name"
    sed 's/^/    /' "$work/check.out"
  fi
}
