# Sourced by the demo and the benchmarks: a scratch directory ($work) and the PIDs of the
# processes the script starts ($pids), stopped by PID (never by name) and removed on exit.
work="$(mktemp -d)"
pids=()
# Stops what was started so far.
stop_started() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  pids=()
}
cleanup() {
  stop_started
  rm -rf "$work"
}
trap cleanup EXIT
