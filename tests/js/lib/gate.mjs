// The real gate binary, started on 127.0.0.1 with `--port 0`.
//
// Contract with the gateway (what these helpers rely on):
//   - `gate --port 0 --config <file>` (or GATE_CONFIG=<path or inline JSON>) binds an
//     ephemeral port and writes, on stderr, a line containing
//         listening on http://<host>:<port>
//     (text or JSON log format: the regex below only needs that substring).
//   - the audit `stdout` sink writes one JSON object per line on stdout; operational logs
//     go to stderr only.
//   - SIGHUP reloads the configuration file; SIGTERM shuts down (drain <= 10 s).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { stopChecked } from './checked-stop.mjs';
import { requireGateBin } from './paths.mjs';
import { spawnTracked } from './procs.mjs';

export const LISTENING_RE = /listening on http:\/\/([^\/\s]+):(\d+)/;
// How a reload ends, on stderr: 'reload applied: N upstreams ...' or, one line per reason,
// 'reload rejected (SIGHUP): ...' (gateway/entry/gateway.cpp, gateway/program/app.cpp).
export const RELOAD_OUTCOME_RE = /reload (applied|rejected)\b/;

/**
 * Starts gate with `config` (an object, or a JSON string).
 *   configVia: 'file' (default: --config <tmpfile>) | 'env' (GATE_CONFIG=<inline JSON>)
 *   args:      extra command-line arguments
 *   env:       extra environment variables
 * Returns { url, base, port, pid, stdoutLines, stderrLines, configPath, proc,
 *           stop(), kill(sig), auditEvents(), waitForAudit(pred), writeConfig(cfg), reload(cfg),
 *           reloaded(cfg, opts) }.
 * stop() is SIGTERM and expects exit code 0 (the drain is up to 10 s plus the 3 s flush
 * bound: SIGKILL after 15 s, as systemd's TimeoutStopSec); see checked-stop.mjs for opting out.
 */
export async function startGate({ config, args = [], env = {}, configVia = 'file', timeoutMs = 20_000, threads: ownThreads } = {}) {
  const bin = requireGateBin();
  const text = typeof config === 'string' ? config : JSON.stringify(config, null, 2);
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-test-'));
  const configPath = path.join(dir, 'gate.config.json');
  writeFileSync(configPath, text);

  const argv = ['--port', '0'];
  const childEnv = { ...process.env, ...env };
  delete childEnv.GATE_CONFIG;
  if (configVia === 'env') childEnv.GATE_CONFIG = text;
  else argv.push('--config', configPath);
  argv.push(...args);
  // Every gate of a suite runs one io thread, or GATE_TEST_IO_THREADS of them ('default': gate's
  // own, one per core; docs/io-threads.md), unless a test names its own count (--io-threads in
  // `args`) or asks for gate's default (`threads: 'default'`).
  const threads = ownThreads ?? process.env.GATE_TEST_IO_THREADS ?? '1';
  if (threads !== 'default' && !args.includes('--io-threads')) argv.push('--io-threads', threads);

  const proc = spawnTracked(bin, argv, { env: childEnv, name: 'gate' });
  const cleanupDir = () => rmSync(dir, { recursive: true, force: true });
  proc.exited.then(cleanupDir, cleanupDir);

  let m;
  try {
    m = await Promise.race([
      proc.stderr.waitFor(LISTENING_RE, { timeoutMs }),
      proc.exited.then((r) => {
        throw new Error(`gate exited (${JSON.stringify(r)}) before listening; stderr:\n${proc.stderr.text()}`);
      }),
    ]);
  } catch (err) {
    await proc.stop({ signal: 'SIGKILL' });
    err.message += `\n(gate ${argv.join(' ')}; stderr so far:\n${proc.stderr.text()})`;
    throw err;
  }
  const port = Number(m[2]);
  const base = `http://127.0.0.1:${port}`;
  const cfgObj = typeof config === 'string' ? JSON.parse(config) : config;
  const mcpPath = cfgObj?.server?.mcpPath ?? '/mcp';

  const auditEvents = () =>
    proc.stdout.lines
      .filter((l) => l.trim() !== '')
      .map((l) => {
        try {
          return JSON.parse(l);
        } catch {
          return { __unparsable: l };
        }
      });

  /** Resolves with the audit events once `pred(events)` is true; rejects after timeoutMs. */
  const waitForAudit = (pred, { timeoutMs: t = 5000 } = {}) =>
    new Promise((resolve, reject) => {
      const check = () => {
        const ev = auditEvents();
        if (pred(ev)) {
          done();
          resolve(ev);
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`audit condition not met within ${t} ms; stdout:\n${proc.stdout.text()}`));
      }, t);
      const done = () => {
        clearTimeout(timer);
        proc.stdout.off('line', check);
      };
      if (!check()) proc.stdout.on('line', check);
    });

  const writeConfig = (cfg) => writeFileSync(configPath, typeof cfg === 'string' ? cfg : JSON.stringify(cfg, null, 2));

  /**
   * Rewrites the config file (when `cfg` is given), sends SIGHUP and resolves with the line
   * that says how this reload ended. Only lines logged after the signal count: an earlier
   * reload's line is still in stderr, and waiting from line 0 finds it at once (the race
   * tool-limits.test once lost). Rejects when the outcome is not `expect` ('applied' or
   * 'rejected'), with the lines logged since the signal; resolves with the first rejected line
   * under expect: 'rejected' (a document with several errors logs one line each).
   */
  const reloaded = async (cfg, { expect = 'applied', timeoutMs = 10_000 } = {}) => {
    if (expect !== 'applied' && expect !== 'rejected') throw new Error(`reloaded: expect is 'applied' or 'rejected', not ${expect}`);
    if (cfg !== undefined) writeConfig(cfg);
    const from = proc.stderr.lines.length;
    if (!proc.kill('SIGHUP')) throw new Error(`gate is not running: no SIGHUP sent; stderr:\n${proc.stderr.text()}`);
    const m = await proc.stderr.waitFor(RELOAD_OUTCOME_RE, { timeoutMs, from });
    if (m[1] !== expect) {
      const since = proc.stderr.lines.slice(from).join('\n');
      throw new Error(`reload ${m[1]}, expected ${expect}; stderr since the SIGHUP:\n${since}`);
    }
    return m.input;
  };

  return {
    url: `${base}${mcpPath}`,
    base,
    port,
    pid: proc.pid,
    proc,
    configPath,
    stdoutLines: proc.stdout.lines,
    stderrLines: proc.stderr.lines,
    auditEvents,
    waitForAudit,
    writeConfig,
    /** Rewrites the config file and sends SIGHUP (by PID); does not wait: see reloaded(). */
    reload(cfg) {
      if (cfg !== undefined) writeConfig(cfg);
      return proc.kill('SIGHUP');
    },
    reloaded,
    stop: (opts) => stopChecked(proc, { graceMs: 15_000, ...opts }),
    kill: (signal) => proc.kill(signal),
  };
}

/**
 * Runs gate to completion (for --schema, --validate). Resolves
 * { code, signal, stdout (Buffer), stderr (string) }.
 */
export function runGate(args, { env = {}, timeoutMs = 20_000 } = {}) {
  const bin = requireGateBin();
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, ...env };
    if (!('GATE_CONFIG' in env)) delete childEnv.GATE_CONFIG;
    const child = spawn(bin, args, { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    child.stdout.on('data', (d) => out.push(d));
    child.stderr.on('data', (d) => err.push(d));
    const timer = setTimeout(() => {
      try {
        process.kill(child.pid, 'SIGKILL');
      } catch {
        // gone
      }
      reject(new Error(`gate ${args.join(' ')} did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') });
    });
  });
}
