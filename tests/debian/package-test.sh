#!/usr/bin/env bash
# The Debian packages (scripts/package-deb.sh) as an operator meets them (issue 36): built
# from the release build with no dpkg-shlibdeps warning, lintian clean (errors, warnings and
# info tags fail: hardening above all, lintian_info_explained below), each man page naming
# every option of its binary's --help, then installed with `dpkg -i` into a fresh Debian 12
# root (mmdebstrap, minbase, with the packages' Depends) and checked there: the files and
# conffiles, the system user gate, each unit's systemd-analyze verify, `gate --validate` on
# the shipped example, each binary started by its unit's ExecStart as the unit's user (gate)
# and answering /health (gate in front of the installed gate-stdio, gate-hooks with the
# shipped example configuration), and `dpkg --purge` leaving the root as it was before the
# install (files, users and groups).
#
# Needs root (chroot, dpkg in the root) and, for the first run, Debian's mirror: the root
# is cached as build/deb-root/<key>.tar, keyed by the Depends, so a rerun only unpacks it.
#
#   tests/debian/package-test.sh      GATE_BUILD_DIR (default build)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
debs="$build/deb"
cache="$build/deb-root"
# chroot and dpkg inside the Debian root need root.
if [ "$(id -u)" -ne 0 ]; then
  exec sudo GATE_BUILD_DIR="$build" bash "$0" "$@"
fi

work="$(mktemp -d)"
rootfs="$cache/rootfs"
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# shellcheck source=tests/debian/check.sh
source "$root/tests/debian/check.sh"
in_root() { chroot "$rootfs" "$@"; }
as_gate() { chroot "$rootfs" setpriv --reuid=gate --regid=gate --init-groups -- "$@"; }
not_grep() { # pattern, file: no line matches; those that do are printed
  ! grep -- "$1" "$2"
}

# Every info tag lintian shows fails, but one kind: spelling-error-in-binary for a word that
# is not in the binary's string constants (.rodata). lintian reads the machine code as text
# too, and a constant the compiler copies in 8-byte immediates comes out cut ("need mor" of
# Beast's "need more", a "defaul" run into the next instruction's byte as "defaulH"). Fixed
# tags stay fixed; a deliberate one goes in config/debian/lintian-overrides.in with its reason
# (an override lintian no longer uses is itself an info tag).
machine_code_only() { # package, binary's path, word: not in the binary's string constants
  local dir="$work/unpacked/$1"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir" && dpkg-deb -x "$work/lintian/$1_"*.deb "$dir" || return 1
  fi
  objcopy -O binary --only-section=.rodata "$dir/$2" "$work/rodata" &&
    strings -n 3 "$work/rodata" >"$work/rodata.txt" || return 1
  ! grep -q -i -w -F -- "$3" "$work/rodata.txt"
}
lintian_info_explained() {
  local line package tag word path bad=0
  while IFS= read -r line; do
    read -r _ package tag word _ <<<"$line"
    package=${package%:}
    path=${line##*\[}
    path=${path%]}
    if [ "$tag" = spelling-error-in-binary ] && machine_code_only "$package" "$path" "$word"; then
      echo "let through (machine code, not a string constant): $line"
      continue
    fi
    echo "$line"
    bad=1
  done < <(grep '^I: ' "$work/lintian.out")
  return "$bad"
}

# --- the packages, lintian, man pages -------------------------------------------------
# package-deb.sh fails on any warning of dpkg-shlibdeps (a library linked and never called).
# Built as on a machine with no C compiler (a minbase Debian 12 has none; gate builds with
# clang): dpkg-dev asks $CC, else gcc, for the architecture unless the script says it.
packages_built() {
  CC=/nonexistent/cc GATE_BUILD_DIR="$build" GATE_DEB_DIR="$debs" \
    bash "$root/scripts/package-deb.sh" >"$work/packages"
}
check "three packages built with no C compiler, dpkg-shlibdeps without a warning" packages_built
mapfile -t packages <"$work/packages"
if [ "${#packages[@]}" -ne 3 ]; then
  echo "package-test: $passed passed, $failed failed; no packages to check further"
  exit 1
fi
# lintian runs as nobody (as root it says it should not), on copies nobody can read
# wherever the tree is; its info tags too (hardening among them), read by the checks below.
mkdir -m 0755 "$work/lintian"
cp "${packages[@]}" "$work/lintian/"
chmod 0755 "$work"
lintian_run() {
  local status=0
  setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/nonexistent \
    lintian --display-info --fail-on error,warning "$work/lintian/"*.deb >"$work/lintian.out" 2>&1 ||
    status=$?
  cat "$work/lintian.out"
  return "$status"
}
check "lintian: no error or warning" lintian_run
check "lintian: no hardening tag (fortify, stack protector, PIE, relro, bind now)" \
  not_grep '^I: [^ ]*: hardening-' "$work/lintian.out"
check "lintian: every info tag fixed or overridden with its reason" lintian_info_explained
# --as-needed (cmake/hardening.cmake) keeps a library only for the symbols a binary takes from
# it: jemalloc must still be gate's and gate-stdio's malloc (docs/benchmarks.md).
keeps_jemalloc() {
  local p
  for p in "${packages[@]}"; do
    case "$(dpkg-deb -f "$p" Package)" in
    gate | gate-stdio)
      dpkg-deb -f "$p" Depends | grep -q 'libjemalloc2' || {
        echo "$p does not depend on libjemalloc2"
        return 1
      }
      ;;
    esac
  done
}
check "gate and gate-stdio keep jemalloc" keeps_jemalloc

man_names_every_option() { # binary, man page source: each --option of --help in the page
  local help page missing=""
  help="$("$1" --help 2>&1 || true)"
  page="$(sed 's/\\-/-/g' "$2")"
  for option in $(grep -o -E -- '--[a-z][a-z-]+' <<<"$help" | sort -u); do
    grep -q -- "$option" <<<"$page" || missing="$missing $option"
  done
  [ -z "$missing" ] || {
    echo "$2 lacks:$missing"
    return 1
  }
}
check "gate(1) names every option" man_names_every_option "$build/gate" "$root/config/debian/man/gate.1"
check "gate-stdio(1) names every option" man_names_every_option "$build/shim/gate-stdio" \
  "$root/config/debian/man/gate-stdio.1"
check "gate-hooks(1) names every option" man_names_every_option "$build/gate-hooks" \
  "$root/config/debian/man/gate-hooks.1"

# --- a fresh Debian 12 root with the packages' Depends (and systemd: its targets, for
# systemd-analyze verify in the root) -------------------------------------------------------
# shellcheck source=tests/debian/debian-root.sh
source "$root/tests/debian/debian-root.sh"
debian_root "$cache" "$rootfs" "${packages[@]}"

# What the root holds, to compare after the purge: every path outside dpkg's and apt's own
# records, logs and caches, and the user and group databases whole. Left out: the backups
# the shadow tools write beside those databases (/etc/shadow- ...) and adduser's lock in
# /run, which any change of users leaves, whoever asks for it.
snapshot() {
  (cd "$rootfs" && find . -xdev \( -path ./var/lib/dpkg -o -path ./var/log -o -path ./var/cache \
    -o -path ./tmp -o -path ./proc -o -path ./run -o -path './etc/*-' \) -prune -o -print | sort)
  (cd "$rootfs/etc" && sha256sum passwd group shadow gshadow)
}
snapshot >"$work/before"

# --- install --------------------------------------------------------------------------
mkdir -p "$rootfs/tmp/debs"
cp "${packages[@]}" "$rootfs/tmp/debs/"
check "dpkg -i installs the three packages" in_root sh -c 'dpkg -i /tmp/debs/*.deb'
rm -rf "$rootfs/tmp/debs"

version="$(sed -n 's/^project(gate VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
files_in_place() {
  local f
  for f in /usr/bin/gate /usr/bin/gate-stdio /usr/bin/gate-hooks \
    /lib/systemd/system/gate.service /lib/systemd/system/gate-stdio@.service \
    /lib/systemd/system/gate-hooks.service /etc/gate/gate.json \
    /usr/share/man/man1/gate.1.gz /usr/share/man/man1/gate-stdio.1.gz \
    /usr/share/man/man1/gate-hooks.1.gz /usr/share/doc/gate/copyright \
    /usr/share/doc/gate-stdio/changelog.Debian.gz /usr/share/doc/gate-hooks/examples/hooks.json; do
    [ -e "$rootfs$f" ] || {
      echo "missing: $f"
      return 1
    }
  done
  # shellcheck disable=SC2016 # dpkg-query's own ${field}
  in_root dpkg-query -W -f='${Conffiles}\n' gate | grep -q '^ /etc/gate/gate.json ' || return 1
  [ "$(in_root gate --version)" = "gate v$version" ] || return 1
  [ "$(in_root gate-stdio --version)" = "gate-stdio v$version" ] || return 1
  [ "$(in_root gate-hooks --version)" = "gate-hooks v$version" ]
}
check "binaries, units, conffile, man pages and docs in place" files_in_place

system_user() { # gate: a system uid and gid, no login, its home owned by it
  local entry uid gid home shell first last
  entry="$(in_root getent passwd gate)" || return 1
  IFS=: read -r _ _ uid gid _ home shell <<<"$entry"
  first="$(sed -n 's/^FIRST_SYSTEM_UID=//p' "$rootfs/etc/adduser.conf")"
  last="$(sed -n 's/^LAST_SYSTEM_UID=//p' "$rootfs/etc/adduser.conf")"
  echo "$entry (system uids ${first:-100}-${last:-999})"
  [ "$uid" -ge "${first:-100}" ] && [ "$uid" -le "${last:-999}" ] || return 1
  [ "$(in_root getent group gate | cut -d: -f3)" = "$gid" ] || return 1
  [ "$home" = /var/lib/gate ] && [ "$shell" = /usr/sbin/nologin ] || return 1
  [ "$(stat -c %u:%g "$rootfs/var/lib/gate")" = "$uid:$gid" ]
}
check "the system user gate" system_user

# systemd-analyze verify inside the root: ExecStart's binary, User=, every directive known.
verify_units() { # the template as an instance, as systemd would load it
  local units="$rootfs/lib/systemd/system" said
  cp "$units/gate-stdio@.service" "$units/gate-stdio@check.service"
  said="$(systemd-analyze verify --man=no --root="$rootfs" /lib/systemd/system/gate.service \
    /lib/systemd/system/gate-hooks.service /lib/systemd/system/gate-stdio@check.service 2>&1)"
  rm -f "$units/gate-stdio@check.service"
  echo "$said"
  [ -z "$said" ] || return 1
  grep -q '^User=gate$' "$units/gate.service"
}
check "the installed units verify, run as gate" verify_units
check "gate --validate on the shipped example (as gate)" as_gate /usr/bin/gate --validate \
  --config /etc/gate/gate.json

# --- each binary started by its unit's command line, as the unit's user --------------------
# The unit's ExecStart with the port made 0 (the kernel picks one; the log names it), the
# variables the unit's environment file would set filled in, the folders systemd makes for
# it (StateDirectory) made here, run as the unit's User=. Sets pid and port.
exec_start() { # unit: its ExecStart command line
  sed -n 's/^ExecStart=//p' "$rootfs/lib/systemd/system/$1"
}
start_unit() { # name, unit, command line (split on spaces as systemd splits it; ours has no quotes)
  local name=$1 user line fd words
  user="$(sed -n 's/^User=//p' "$rootfs/lib/systemd/system/$2")"
  read -r -a words <<<"$3"
  mkfifo "$work/$name.fifo"
  # chroot directly, not a function: a function run in the background is a subshell, and $!
  # must be the server itself (chroot and setpriv exec it).
  chroot "$rootfs" setpriv --reuid="${user:-root}" --regid="${user:-root}" --init-groups -- \
    "${words[@]}" 2>"$work/$name.fifo" >"$work/$name.out" &
  pid=$!
  pids+=("$pid")
  port=""
  exec {fd}<"$work/$name.fifo"
  while IFS= read -r -t 20 line <&"$fd"; do
    echo "$line" >>"$work/$name.log"
    if [[ $line =~ listening\ on\ http://127\.0\.0\.1:([0-9]+)/ ]]; then
      port=${BASH_REMATCH[1]}
      break
    fi
  done
  cat <&"$fd" >>"$work/$name.log" &
  exec {fd}<&-
  [ -n "$port" ] || {
    echo "$name did not say where it listens:" >&2
    cat "$work/$name.log" >&2
  }
}
runs_as_gate() { # pid: its real and effective uid are gate's
  local uid
  uid="$(in_root id -u gate)"
  grep -E "^Uid:[[:space:]]+${uid}[[:space:]]+${uid}[[:space:]]" "/proc/$1/status"
}
health() { # port, the status expected, a text the answer holds
  local code
  code="$(curl -s -o "$work/health.json" -w '%{http_code}' "http://127.0.0.1:$1/health")"
  cat "$work/health.json"
  echo " ($code)"
  [ "$code" = "$2" ] && grep -q -- "$3" "$work/health.json"
}
stops_cleanly() { # pid: SIGTERM, exit status 0
  kill -TERM "$1"
  wait "$1"
}

# gate-stdio@test: its environment file names the server and the port; the server is the
# tests' stdio MCP server, copied into the root.
install -m 0755 "$build/tests/support/stdio_mcp_server" "$rootfs/usr/local/bin/"
mkdir -p "$rootfs/etc/gate-stdio"
printf 'SERVER=/usr/local/bin/stdio_mcp_server\nPORT=0\n' >"$rootfs/etc/gate-stdio/test.env"
install -d -o "$(in_root id -u gate)" -g "$(in_root id -g gate)" "$rootfs/var/lib/gate-stdio/test"
# shellcheck disable=SC2016 # the unit's own ${PORT} and $SERVER
stdio_line="$(exec_start gate-stdio@.service | sed -e 's/\${PORT}/0/' -e 's/%i/test/g' \
  -e 's,\$SERVER,/usr/local/bin/stdio_mcp_server,')"
start_unit gate-stdio gate-stdio@.service "$stdio_line"
stdio_pid=$pid stdio_port=$port
check "gate-stdio@ (unit's ExecStart) runs as gate" runs_as_gate "$stdio_pid"
check "gate-stdio answers /health through its server" health "$stdio_port" 200 '"status":"ok"'

# gate: the operator points the example at a real upstream (the gate-stdio above) and adds
# a secrets file beside it, as docs/operations.md says.
sed -i "s,http://127.0.0.1:3001/mcp,http://127.0.0.1:$stdio_port/mcp," "$rootfs/etc/gate/gate.json"
install -m 0600 /dev/null "$rootfs/etc/gate/gate.env"
start_unit gate gate.service "$(exec_start gate.service | sed 's/--port [0-9]*/--port 0/')"
gate_pid=$pid gate_port=$port
check "gate (unit's ExecStart) runs as gate" runs_as_gate "$gate_pid"
check "gate answers /health as gate: the gate-stdio upstream up" health "$gate_port" 200 \
  '"id":"github","status":"up"'
check "gate stops on SIGTERM, status 0" stops_cleanly "$gate_pid"
check "gate-stdio stops on SIGTERM, status 0" stops_cleanly "$stdio_pid"

# gate-hooks with the shipped example configuration, its store in its state folder. The
# configuration installed as docs/operations.md says (root's alone, in the folder the package
# made root's and gate's only); the unit's LoadCredential= done as systemd does it: a copy
# only the unit's user can read, in the credentials folder its ExecStart names.
config_folder_private() { # ids, not names: the host's own names may differ
  stat -c '%a %u:%g' "$rootfs/etc/gate-hooks"
  [ "$(stat -c '%a %u:%g' "$rootfs/etc/gate-hooks")" = "750 0:$(in_root id -g gate)" ]
}
check "the gate-hooks package makes /etc/gate-hooks root's and gate's only (0750)" config_folder_private
# A folder an older unit left open (ConfigurationDirectory= made it 0755 root:root) is closed
# when the package is configured again.
chmod 0755 "$rootfs/etc/gate-hooks"
chgrp 0 "$rootfs/etc/gate-hooks"
in_root /var/lib/dpkg/info/gate-hooks.postinst configure 0.0 >/dev/null
check "configuring gate-hooks again closes a /etc/gate-hooks left 0755" config_folder_private
install -m 0600 "$rootfs/usr/share/doc/gate-hooks/examples/hooks.json" "$rootfs/etc/gate-hooks/hooks.json"
credentials=/run/credentials/gate-hooks.service
check "the packaged gate-hooks.service reads hooks.json as a credential" grep -q \
  "^LoadCredential=hooks.json:/etc/gate-hooks/hooks.json$" "$rootfs/lib/systemd/system/gate-hooks.service"
install -D -m 0400 -o "$(in_root id -u gate)" "$rootfs/etc/gate-hooks/hooks.json" "$rootfs$credentials/hooks.json"
install -d -o "$(in_root id -u gate)" -g "$(in_root id -g gate)" "$rootfs/var/lib/gate-hooks"
# shellcheck disable=SC2016 # the unit's own ${CREDENTIALS_DIRECTORY}
start_unit gate-hooks gate-hooks.service "$(exec_start gate-hooks.service |
  sed -e 's/--port [0-9]*/--port 0/' -e "s,\${CREDENTIALS_DIRECTORY},$credentials,")"
hooks_pid=$pid hooks_port=$port
check "gate-hooks (unit's ExecStart) runs as gate" runs_as_gate "$hooks_pid"
check "gate-hooks answers /health" health "$hooks_port" 200 '"status"'
check "gate-hooks keeps its store in its state folder" test -s "$rootfs/var/lib/gate-hooks/hooks.db"
check "gate-hooks stops on SIGTERM, status 0" stops_cleanly "$hooks_pid"
pids=()
rm -rf "${rootfs:?}/run/credentials"
# The operator's copy left as umask 022 makes it: gate-hooks says so and does not start.
chmod 0644 "$rootfs/etc/gate-hooks/hooks.json"
refuses_readable_config() {
  local status=0
  timeout 10 chroot "$rootfs" setpriv --reuid=gate --regid=gate --init-groups -- \
    /usr/bin/gate-hooks --config /etc/gate-hooks/hooks.json --port 0 2>"$work/refused.log" ||
    status=$?
  cat "$work/refused.log"
  [ "$status" -eq 2 ] && grep -q 'holds every organization.s token and other users may read it (mode 0644)' "$work/refused.log"
}
check "gate-hooks refuses a hooks.json others can read, saying so" refuses_readable_config

# --- purge ------------------------------------------------------------------------------
rm -f "$rootfs/usr/local/bin/stdio_mcp_server"
check "dpkg --purge removes the three packages" in_root dpkg --purge gate gate-stdio gate-hooks
snapshot >"$work/after"
check "the root is as it was before the install" diff -u "$work/before" "$work/after"

echo "package-test: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
