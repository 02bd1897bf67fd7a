// Where things are: the repo root, the gate binary, the npm packages of the harness.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const JS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const REPO_ROOT = path.resolve(JS_DIR, '..', '..');

const require = createRequire(path.join(JS_DIR, 'package.json'));

/** Absolute path of a file inside an installed package of tests/js. */
export function packageFile(pkg, rel) {
  return path.join(path.dirname(require.resolve(`${pkg}/package.json`)), rel);
}

/** The gate binary: $GATE_BIN (relative paths are taken from the repo root), else build/gate. */
export function gateBin() {
  const p = process.env.GATE_BIN || 'build/gate';
  return path.resolve(REPO_ROOT, p);
}

/** Throws a readable error when the gate binary is missing. */
export function requireGateBin() {
  const bin = gateBin();
  if (!existsSync(bin)) {
    throw new Error(`gate binary not found at ${bin} (build it, or set GATE_BIN)`);
  }
  return bin;
}

/** The replay simulation: $GATE_REPLAY_BIN, else simulations/replay beside the gate binary. */
export function requireReplayBin() {
  const bin = process.env.GATE_REPLAY_BIN
    ? path.resolve(REPO_ROOT, process.env.GATE_REPLAY_BIN)
    : path.join(path.dirname(gateBin()), 'simulations', 'replay');
  if (!existsSync(bin)) throw new Error(`replay binary not found at ${bin} (build it, or set GATE_REPLAY_BIN)`);
  return bin;
}

export const EVERYTHING_ENTRY = packageFile('@modelcontextprotocol/server-everything', 'dist/index.js');
export const CONFORMANCE_ENTRY = packageFile('@modelcontextprotocol/conformance', 'dist/index.js');
export const LOOPBACK_PRELOAD = path.join(JS_DIR, 'lib', 'loopback-listen.mjs');
