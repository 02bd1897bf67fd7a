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
# A port the kernel picked free on 127.0.0.1, for servers that cannot bind port 0 and report it.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# The TCP port process $1 listens on (waits up to 5 s for it to listen).
listening_port() {
  local port=""
  for _ in $(seq 1 100); do
    port="$(ss -ltnp 2>/dev/null | awk -v pid="pid=$1," '$0 ~ pid {split($4, a, ":"); print a[length(a)]}' | head -n 1)"
    [ -n "$port" ] && break
    sleep 0.05
  done
  echo "$port"
}
# Starts simulations/fast_upstream (under the command prefix given, e.g. taskset -c 0) and
# sets $upstream to its MCP URL.
start_fast_upstream() {
  "$@" "$build/simulations/fast_upstream" 0 >"$work/upstream.out" &
  pids+=($!)
  local port=""
  for _ in $(seq 1 100); do
    port="$(awk '/^listening/ {print $2}' "$work/upstream.out")"
    [ -n "$port" ] && break
    sleep 0.05
  done
  upstream="http://127.0.0.1:$port/mcp"
}
