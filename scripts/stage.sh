# shellcheck shell=bash
# Sourced by .ci/run, scripts/test.sh and scripts/sanitize.sh: `stage NAME COMMAND...` runs
# COMMAND and prints how long it took, so a CI log shows where the time went (docs/ci.md).
# With GATE_STAGE_LOG set (.ci/run sets it), each stage's line is also appended to that file,
# and .ci/run prints them all as a table at the end.
stage() {
  local name=$1 started=$SECONDS status=0 line
  shift
  "$@" || status=$?
  line=$(printf '%-22s %5d s' "$name" $((SECONDS - started)))
  [ "$status" -eq 0 ] || line="$line (failed, status $status)"
  echo "stage: $line" >&2
  if [ -n "${GATE_STAGE_LOG:-}" ]; then echo "$line" >>"$GATE_STAGE_LOG"; fi
  return "$status"
}
