// The real gate-stdio binary, started on 127.0.0.1 with `--port 0`, and the processes it
// leaves (or must not leave) behind, read from /proc.
//
// Contract with the shim (what these helpers rely on):
//   - `gate-stdio --port 0 ... -- <command>` writes, on stderr, a line containing
//         listening on http://<host>:<port>/mcp
//   - every session's child is a direct child of the shim and leads its own process group.
import { readdirSync, readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';

import { stopChecked } from './checked-stop.mjs';
import { REPO_ROOT } from './paths.mjs';
import { spawnTracked } from './procs.mjs';

export const SHIM_BIN = path.resolve(REPO_ROOT, process.env.GATE_STDIO_BIN || 'build/shim/gate-stdio');
export const STDIO_TEST_SERVER = path.resolve(
  REPO_ROOT,
  process.env.GATE_STDIO_TEST_SERVER || 'build/tests/support/stdio_mcp_server',
);
const LISTENING = /listening on http:\/\/([^\/\s]+):(\d+)\/mcp/;

/**
 * Starts gate-stdio with `args` (options) and `command` (the server argv, after `--`).
 * Returns { url, base, port, pid, proc, stop(), kill(signal) }. stop() is SIGTERM and expects
 * exit code 0 (see checked-stop.mjs for opting out).
 */
export async function startShim({ args = [], command, env = process.env, timeoutMs = 20_000 }) {
  const argv = ['--port', '0', ...args, '--', ...command];
  const proc = spawnTracked(SHIM_BIN, argv, { env, name: 'gate-stdio' });
  let m;
  try {
    m = await Promise.race([
      proc.stderr.waitFor(LISTENING, { timeoutMs }),
      proc.exited.then((r) => {
        throw new Error(`gate-stdio exited (${JSON.stringify(r)}) before listening:\n${proc.stderr.text()}`);
      }),
    ]);
  } catch (err) {
    await proc.stop({ signal: 'SIGKILL' });
    throw err;
  }
  const port = Number(m[2]);
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/mcp`,
    base,
    port,
    pid: proc.pid,
    proc,
    stop: (opts) => stopChecked(proc, { graceMs: 10_000, ...opts }),
    kill: (signal) => proc.kill(signal),
  };
}

/** Runs gate-stdio to completion; resolves { code, signal, stdout, stderr }. */
export function runShim(args, { env = process.env, timeoutMs = 30_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(SHIM_BIN, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // gone
      }
      reject(new Error(`gate-stdio ${args.join(' ')} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: out, stderr: err });
    });
  });
}

/** Every process in /proc: [{ pid, ppid, pgrp, state }]. */
export function processTable() {
  const rows = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    rows.push({ pid: Number(name), state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]) });
  }
  return rows;
}

/** Running (not zombie) processes in the process group `pgid`. */
export function liveInGroup(pgid) {
  return processTable().filter((p) => p.pgrp === pgid && p.state !== 'Z').length;
}

/** Running (not zombie) direct children of `pid`. */
export function liveChildrenOf(pid) {
  return processTable().filter((p) => p.ppid === pid && p.state !== 'Z');
}

/**
 * Waits until `pred()` holds, re-checking whenever `emitter` emits `event` or every
 * `everyMs` (a process exit has no event a test can subscribe to). Rejects after timeoutMs.
 */
export async function eventually(pred, { timeoutMs = 10_000, everyMs = 25, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pred()) return; // a predicate may be async (a poll over the wire)
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
