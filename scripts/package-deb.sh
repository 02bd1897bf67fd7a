#!/usr/bin/env bash
# Builds the Debian packages gate, gate-stdio and gate-hooks from the release build
# (build/gate, build/shim/gate-stdio, build/gate-hooks) into build/deb/, with dpkg-deb and a
# control file per package written from config/debian/ (docs/operations.md, "Installing the
# Debian packages"). Each holds its binary (stripped), its systemd unit from config/systemd/
# run as the system user gate from /usr/bin, its man page, copyright and changelog; gate
# also /etc/gate/gate.json (a conffile, config/examples/federation.json) and the other
# examples. Depends come from dpkg-shlibdeps over the binary, plus adduser.
#
#   scripts/package-deb.sh            GATE_BUILD_DIR (default build), GATE_DEB_DIR (default
#                                     <build>/deb)
#
# Tested by tests/debian/package-test.sh (lintian, then installed into a Debian 12 root).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${GATE_BUILD_DIR:-$root/build}"
out="${GATE_DEB_DIR:-$build/deb}"
src="$root/config/debian"

upstream_version="$(sed -n 's/^project(gate VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")"
version="$upstream_version-1"
arch="$(dpkg --print-architecture)"
# The packages are for this machine's architecture. Said outright to dpkg-shlibdeps, which
# otherwise asks `gcc -dumpmachine` for it: on a machine without gcc (a minbase Debian 12;
# gate builds with clang) it warns "cannot determine CC system type", and a warning fails
# the packaging (build_package). Tested by tests/debian/package-test.sh with no compiler.
export DEB_HOST_ARCH="$arch"
# The changelog's latest entry is the package's version: a new project version needs an
# entry of its own before it can be packaged.
changelog_version="$(sed -n '1s/^gate (\([^)]*\)).*/\1/p' "$src/changelog")"
if [ "$changelog_version" != "$version" ]; then
  echo "package-deb: config/debian/changelog is at $changelog_version, the project at $version:" \
    "add an entry" >&2
  exit 1
fi
# Files keep the time of the last commit, so two builds of one tree make the same packages.
SOURCE_DATE_EPOCH="$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)"
export SOURCE_DATE_EPOCH

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
umask 022
mkdir -p "$out"
rm -f "$out"/*.deb

# The unit as shipped in config/systemd, made the package's: the binary from /usr/bin, the
# system user gate instead of a dynamic one (the state and configuration folders keep their
# names) and the man page the package installs as its documentation (`systemctl help`; a
# unit installed from the tree has no man page to name). Fails when the unit no longer reads
# as expected, rather than ship it half-changed.
packaged_unit() {
  local unit=$1 to=$2 name=$3
  if ! grep -q '^ExecStart=/usr/local/bin/' "$unit" || ! grep -q '^DynamicUser=yes$' "$unit" ||
    ! grep -q '^Description=' "$unit"; then
    echo "package-deb: $unit has no ExecStart=/usr/local/bin/..., DynamicUser=yes or Description=" >&2
    exit 1
  fi
  sed -e 's,/usr/local/bin/,/usr/bin/,g' -e 's,^DynamicUser=yes$,User=gate\nGroup=gate,' \
    -e "/^Description=/a Documentation=man:$name(1)" "$unit" >"$to"
}

# Writes a maintainer script from its template: the package's name, the units it stops, the
# folders and enablement links its purge removes.
maintainer_script() {
  local name=$1 package=$2 stop_units=$3 purge_dirs=$4 wants_links=$5 to=$6
  sed -e "s|@PACKAGE@|$package|g" -e "s|@STOP_UNITS@|$stop_units|g" \
    -e "s|@PURGE_DIRS@|$purge_dirs|g" -e "s|@WANTS_LINKS@|$wants_links|g" \
    "$src/$name.in" >"$to"
  chmod 0755 "$to"
}

# Stages one package under $work/debian/<package> (the layout dpkg-shlibdeps expects) and
# builds it. Arguments: package, binary in the build, unit file, units its prerm stops,
# folders its purge removes; the caller adds what else it ships.
stage_package() {
  local package=$1 binary=$2 unit=$3 stop_units=$4 purge_dirs=$5
  local dir="$work/debian/$package" name
  name="$(basename "$binary")"
  install -d "$dir/DEBIAN" "$dir/usr/bin" "$dir/lib/systemd/system" "$dir/usr/share/man/man1" \
    "$dir/usr/share/doc/$package"
  install -m 0755 "$binary" "$dir/usr/bin/$name"
  # As dh_strip does: no debug information, no comment or note sections in the package.
  strip --strip-unneeded --remove-section=.comment --remove-section=.note "$dir/usr/bin/$name"
  packaged_unit "$root/config/systemd/$unit" "$dir/lib/systemd/system/$unit" "$name"
  chmod 0644 "$dir/lib/systemd/system/$unit"
  sed -e "s/^\(\.TH .*\)\"gate [0-9.]*\"/\1\"gate $upstream_version\"/" "$src/man/$name.1" |
    gzip -9n >"$dir/usr/share/man/man1/$name.1.gz"
  install -m 0644 "$src/copyright" "$dir/usr/share/doc/$package/copyright"
  gzip -9n <"$src/changelog" >"$dir/usr/share/doc/$package/changelog.Debian.gz"
  install -d "$dir/usr/share/lintian/overrides"
  # Lines naming @SERVICE@ are about a plain unit: lintian passes over template units (and
  # reports an override it finds no use for).
  local service_lines="s|@SERVICE@|$unit|g"
  case "$unit" in *@.service) service_lines="/@SERVICE@/d" ;; esac
  sed -e "s|@PACKAGE@|$package|g" -e "$service_lines" "$src/lintian-overrides.in" \
    >"$dir/usr/share/lintian/overrides/$package"
  local wants=""
  case "$unit" in
  *@.service) wants="/etc/systemd/system/multi-user.target.wants/${unit%.service}*.service" ;;
  *) wants="/etc/systemd/system/multi-user.target.wants/$unit" ;;
  esac
  maintainer_script postinst "$package" "$stop_units" "$purge_dirs" "$wants" "$dir/DEBIAN/postinst"
  maintainer_script prerm "$package" "$stop_units" "$purge_dirs" "$wants" "$dir/DEBIAN/prerm"
  maintainer_script postrm "$package" "$stop_units" "$purge_dirs" "$wants" "$dir/DEBIAN/postrm"
}

# Finishes a staged package: control (Depends from the binary's libraries), md5sums, the .deb.
# Any warning of dpkg-shlibdeps fails it: one names a library the binary is linked against
# and never calls (a needless dependency of the package; cmake/hardening.cmake, --as-needed)
# or a symbol no library provides. All three kinds are asked for (--warnings=7).
build_package() {
  local package=$1 extra=$2 dir="$work/debian/$1" shlibs size
  printf 'Source: gate\n\nPackage: %s\nArchitecture: any\n' "$package" >"$work/debian/control"
  if ! shlibs="$(cd "$work" && dpkg-shlibdeps --warnings=7 -O "debian/$package/usr/bin/"* \
    2>"$work/shlibdeps.err" | sed -n 's/^shlibs:Depends=//p')" || [ -s "$work/shlibdeps.err" ]; then
    cat "$work/shlibdeps.err" >&2
    echo "package-deb: dpkg-shlibdeps failed or warned for $package: link it only against what" \
      "it uses" >&2
    exit 1
  fi
  size="$(du -sk --exclude=DEBIAN "$dir" | cut -f1)"
  {
    sed -e "s|@PACKAGE@|$package|" -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" \
      -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|adduser, $extra$shlibs|" "$src/control.in"
    cat "$src/$package.description"
  } >"$dir/DEBIAN/control"
  if [ -d "$dir/etc" ]; then
    (cd "$dir" && find etc -type f -printf '/%p\n' | sort) >"$dir/DEBIAN/conffiles"
  fi
  (cd "$dir" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
    xargs -0 md5sum) >"$dir/DEBIAN/md5sums"
  find "$dir" -exec touch --no-dereference --date="@$SOURCE_DATE_EPOCH" {} +
  dpkg-deb --root-owner-group -Zxz --build "$dir" "$out/${package}_${version}_${arch}.deb" >/dev/null
  echo "$out/${package}_${version}_${arch}.deb"
}

for binary in "$build/gate" "$build/shim/gate-stdio" "$build/gate-hooks"; do
  [ -x "$binary" ] || {
    echo "package-deb: $binary is missing: build first (scripts/build.sh)" >&2
    exit 1
  }
done

stage_package gate "$build/gate" gate.service gate.service "/etc/gate"
install -d "$work/debian/gate/etc/gate" "$work/debian/gate/usr/share/doc/gate/examples"
install -m 0644 "$root/config/examples/federation.json" "$work/debian/gate/etc/gate/gate.json"
install -m 0644 "$root/config/examples/"*.json "$work/debian/gate/usr/share/doc/gate/examples/"
# gate.service reloads with /bin/kill (procps).
build_package gate "procps, "

stage_package gate-stdio "$build/shim/gate-stdio" gate-stdio@.service "gate-stdio@*.service" \
  "/etc/gate-stdio /var/lib/gate-stdio"
install -d "$work/debian/gate-stdio/usr/share/doc/gate-stdio/examples"
install -m 0644 "$src/examples/everything.env" "$work/debian/gate-stdio/usr/share/doc/gate-stdio/examples/"
build_package gate-stdio ""

stage_package gate-hooks "$build/gate-hooks" gate-hooks.service gate-hooks.service \
  "/etc/gate-hooks /var/lib/gate-hooks"
install -d "$work/debian/gate-hooks/usr/share/doc/gate-hooks/examples"
install -m 0644 "$src/examples/hooks.json" "$work/debian/gate-hooks/usr/share/doc/gate-hooks/examples/"
build_package gate-hooks ""
