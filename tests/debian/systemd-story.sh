#!/usr/bin/env bash
# The operator's story of issue 36, whole: the packages installed with `dpkg -i` on a fresh
# Debian 12 root booted under its own systemd (systemd-nspawn --boot), the example's two
# upstreams run as gate-stdio@ instances, gate started by its packaged unit with the shipped
# example configuration untouched, gate-hooks by its unit with the example configuration
# installed root's alone (a credential systemd hands it), and gate's console opened in
# headless Chromium showing the traffic of calls made through it. Then a reload and a stop through systemctl, the journal,
# and a clean power-off.
#
# The machine has a network namespace of its own, made here: the units' fixed ports (8090,
# and 3001 and 3002 that the example names) are the machine's, never the host's, and the
# client and browser run in that namespace (ip netns exec) as a person on that machine would.
#
#   tests/debian/systemd-story.sh      GATE_BUILD_DIR (default build), NODE22
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
# nspawn, nsenter and network namespaces need root.
if [ "$(id -u)" -ne 0 ]; then
  exec sudo GATE_BUILD_DIR="$build" NODE22="${NODE22:-}" bash "$0" "$@"
fi
node="${NODE22:-$(bash "$root/scripts/setup-node.sh" | tail -n 1)}"
# shellcheck source=tests/debian/debian-root.sh
source "$root/tests/debian/debian-root.sh"

work="$(mktemp -d)"
rootfs="$build/deb-root/booted"
netns="gate-story-$$"
shots="$build/test-artifacts/debian-story"
nspawn_pid=""
cleanup() {
  if [ -n "$nspawn_pid" ] && kill -0 "$nspawn_pid" 2>/dev/null; then
    kill -KILL "$nspawn_pid" 2>/dev/null || true
    wait "$nspawn_pid" 2>/dev/null || true
  fi
  ip netns del "$netns" 2>/dev/null || true
  rm -rf "$work" "$rootfs"
}
trap cleanup EXIT

# shellcheck source=tests/debian/check.sh
source "$root/tests/debian/check.sh"

within() { # SECONDS COMMAND...: until the command succeeds, at most that long
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.1 # polling what another process writes
  done
}

mapfile -t packages < <(GATE_BUILD_DIR="$build" GATE_DEB_DIR="$build/deb" bash "$root/scripts/package-deb.sh")
[ "${#packages[@]}" -eq 3 ] || {
  echo "systemd-story: scripts/package-deb.sh made ${#packages[@]} packages, not 3" >&2
  exit 1
}
debian_root "$build/deb-root" "$rootfs" "${packages[@]}"
mkdir -p "$rootfs/var/tmp/debs"
cp "${packages[@]}" "$rootfs/var/tmp/debs/"
# The example's upstreams: the tests' stdio MCP server, one gate-stdio@ instance each.
install -m 0755 "$build/tests/support/stdio_mcp_server" "$rootfs/usr/local/bin/"

# --- boot ----------------------------------------------------------------------------------
ip netns add "$netns"
ip -n "$netns" link set lo up
# --register=no --keep-unit: the host needs no systemd or D-Bus of its own.
systemd-nspawn --quiet --directory="$rootfs" --boot --register=no --keep-unit \
  --network-namespace-path="/run/netns/$netns" --machine="$netns" --console=passive \
  >"$work/nspawn.log" 2>&1 &
nspawn_pid=$!
# The machine's leader is nspawn's child that is PID 1 in a PID namespace of its own. nspawn
# first forks a helper that sets the machine up and exits once the leader runs: taking
# nspawn's first child could take that helper, whose PID is gone a moment later (every
# nsenter then fails, and the power-off below would wait on a machine never told to stop).
machine_leader() {
  local child
  for child in $(pgrep -P "$nspawn_pid"); do
    if awk '/^NSpid:/ { found = (NF > 2 && $NF == 1) } END { exit !found }' \
      "/proc/$child/status" 2>/dev/null; then
      echo "$child"
      return 0
    fi
  done
  return 1
}
leader=""
for _ in $(seq 300); do
  leader="$(machine_leader || true)"
  [ -n "$leader" ] && break
  kill -0 "$nspawn_pid" 2>/dev/null || break
  sleep 0.1 # waiting for another process to appear; nothing to be told of it
done
[ -n "$leader" ] || {
  echo "systemd-nspawn did not start the machine:" >&2
  cat "$work/nspawn.log" >&2
  exit 1
}
on_machine() { nsenter --target "$leader" --all -- "$@"; }
# Booted: every unit of the default target started (or failed, which the next check tells).
booted() {
  local state
  within 60 on_machine test -S /run/systemd/private || return 1 # systemd listens
  state="$(timeout 60 nsenter --target "$leader" --all -- systemctl is-system-running --wait)" || true
  echo "$state"
  [ "$state" = running ]
}
check "the Debian 12 root boots under its own systemd, no unit failed" booted
if [ "$failed" -ne 0 ]; then # every later step runs on the machine: nothing more to learn
  echo "systemd-nspawn's log:" >&2
  cat "$work/nspawn.log" >&2
  echo "systemd-story: $passed passed, $failed failed (the machine did not boot)"
  exit 1
fi

# --- what the operator does, as docs/operations.md says it --------------------------------
check "dpkg -i installs the three packages on the running machine" \
  on_machine sh -c 'dpkg -i /var/tmp/debs/*.deb'
rm -rf "$rootfs/var/tmp/debs"
not_started_at_install() {
  on_machine systemctl is-enabled gate gate-hooks || true
  [ "$(on_machine systemctl is-active gate)" = inactive ]
}
check "installing enables and starts nothing" not_started_at_install
mkdir -p "$rootfs/etc/gate-stdio"
printf 'SERVER=/usr/local/bin/stdio_mcp_server\nPORT=3001\n' >"$rootfs/etc/gate-stdio/github.env"
printf 'SERVER=/usr/local/bin/stdio_mcp_server\nPORT=3002\n' >"$rootfs/etc/gate-stdio/search.env"
check "systemctl enable --now gate-stdio@github gate-stdio@search" \
  on_machine systemctl enable --now gate-stdio@github gate-stdio@search
check "systemctl enable --now gate (the shipped /etc/gate/gate.json)" on_machine systemctl enable --now gate
active_as_gate() { # unit: active, its main process run by the user gate
  local pid uid
  [ "$(on_machine systemctl is-active "$1")" = active ] || return 1
  pid="$(on_machine systemctl show --property=MainPID --value "$1")"
  uid="$(on_machine id -u gate)"
  on_machine grep -E "^Uid:[[:space:]]+${uid}[[:space:]]+${uid}[[:space:]]" "/proc/$pid/status"
}
check "gate is active (Type=notify: it said READY), run by the user gate" active_as_gate gate
check "gate-stdio@github is active, run by the user gate" active_as_gate gate-stdio@github
health() {
  local body
  body="$(ip netns exec "$netns" curl -sf http://127.0.0.1:8090/health)" || return 1
  echo "$body"
  grep -q '"id":"github","status":"up"' <<<"$body" && grep -q '"id":"search","status":"up"' <<<"$body"
}
check "gate answers /health on the machine: both example upstreams up" health
# gate-hooks as docs/operations.md installs it: its configuration root's alone (0600), handed
# to the service by systemd as a credential only its user can read (LoadCredential=).
check "hooks.json installed as docs/operations.md says (install -m 0600)" on_machine \
  install -m 0600 /usr/share/doc/gate-hooks/examples/hooks.json /etc/gate-hooks/hooks.json
check "systemctl enable --now gate-hooks" on_machine systemctl enable --now gate-hooks
check "gate-hooks is active (it said READY), run by the user gate" active_as_gate gate-hooks
hooks_health() { ip netns exec "$netns" curl -sf http://127.0.0.1:8092/health; }
check "gate-hooks answers /health on the machine" hooks_health

# --- the console, live --------------------------------------------------------------------
mkdir -p "$shots"
check "calls through gate show as live traffic in the console (Chromium)" \
  ip netns exec "$netns" "$node" "$root/tests/js/debian/installed-console.mjs" \
  http://127.0.0.1:8090 "$shots"

# --- reload, journal, stop, power-off -----------------------------------------------------
journal_has() { on_machine journalctl --unit=gate --no-pager --output=cat | grep -q -- "$1"; }
reloads() { # ExecReload sends SIGHUP and returns: the reload is seen in the journal
  on_machine systemctl reload gate
  within 10 journal_has '"reload applied: 2 upstreams' &&
    [ "$(on_machine systemctl is-active gate)" = active ]
}
check "systemctl reload gate: reloaded, still active" reloads
check "the journal holds gate's log" journal_has 'listening on http://127.0.0.1:8090/mcp (2 upstreams'
stops() {
  on_machine systemctl stop gate
  [ "$(on_machine systemctl show --property=Result --value gate)" = success ] &&
    [ "$(on_machine systemctl show --property=ExecMainStatus --value gate)" = 0 ]
}
check "systemctl stop gate: stopped cleanly, status 0" stops
powers_off() { # bounded: a machine that does not stop fails here, and cleanup kills it
  on_machine systemctl poweroff || true
  timeout 60 tail --pid="$nspawn_pid" -f /dev/null || {
    echo "systemd-nspawn still runs 60 s after systemctl poweroff" >&2
    return 1
  }
  wait "$nspawn_pid"
  nspawn_pid="" # waited for: nothing left for cleanup to stop
}
check "the machine powers off cleanly" powers_off

echo "systemd-story: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
