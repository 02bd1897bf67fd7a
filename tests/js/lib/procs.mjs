// Child processes of the tests: spawned, tracked by PID, their output collected as lines,
// and stopped by PID only (never by name). Every child still alive when the test process
// ends, or when the test runner kills the file on its timeout, is SIGKILLed by PID.
import { spawn } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { createInterface } from 'node:readline';

const live = new Map(); // pid -> ChildProcess

function killAllNow() {
  for (const [pid, child] of live) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  live.clear();
}

process.on('exit', killAllNow);
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(sig, async () => {
    // Kill by PID, then wait (briefly) for the exits so the children are reaped, not
    // left as zombies once this process is gone.
    const exits = [...live.values()].map((c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', r))));
    killAllNow();
    await Promise.race([Promise.all(exits), new Promise((r) => setTimeout(r, 2000))]);
    process.exit(128 + { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig]);
  });
}

/** Lines of one stream, kept in order, with a way to wait for a matching line. */
export class LineLog extends EventEmitter {
  constructor(name) {
    super();
    this.name = name;
    this.lines = [];
    this.closed = false;
  }

  push(line) {
    this.lines.push(line);
    this.emit('line', line);
  }

  close() {
    this.closed = true;
    this.emit('close');
  }

  /**
   * Resolves with the regex match of the first line (already seen or future) matching `re`.
   * Rejects after `timeoutMs`, or when the stream closes without a match.
   */
  waitFor(re, { timeoutMs = 10_000, from = 0 } = {}) {
    for (let i = from; i < this.lines.length; i++) {
      const m = re.exec(this.lines[i]);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const onLine = (line) => {
        const m = re.exec(line);
        if (m) {
          cleanup();
          resolve(m);
        }
      };
      const onClose = () => {
        cleanup();
        reject(new Error(`${this.name} closed before a line matched ${re}`));
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no ${this.name} line matched ${re} within ${timeoutMs} ms`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.off('line', onLine);
        this.off('close', onClose);
      };
      this.on('line', onLine);
      if (this.closed) onClose();
      else this.on('close', onClose);
    });
  }

  text() {
    return this.lines.join('\n');
  }
}

/**
 * Spawns `cmd args` (no shell), collects stdout/stderr as LineLogs; as user `uid`/`gid` when given.
 * Returns { child, pid, name, cmd, args, stdout, stderr, exited, stop(), kill(sig) }.
 *   exited: Promise<{code, signal}>
 *   stop({signal='SIGTERM', graceMs=5000}): signal by PID, SIGKILL by PID after graceMs.
 */
export function spawnTracked(cmd, args, { env, cwd, name = cmd, stdin = 'ignore', uid, gid } = {}) {
  const child = spawn(cmd, args, {
    cwd,
    env: env ?? process.env,
    stdio: [stdin, 'pipe', 'pipe'],
    ...(uid === undefined ? {} : { uid, gid }),
  });
  if (child.pid === undefined) {
    // spawn failed synchronously-ish (ENOENT etc.): surface it via `exited`.
  }
  const stdout = new LineLog(`${name} stdout`);
  const stderr = new LineLog(`${name} stderr`);
  const outDone = new Promise((r) => {
    const rl = createInterface({ input: child.stdout, crlfDelay: Infinity });
    rl.on('line', (l) => stdout.push(l));
    rl.on('close', r);
  }).then(() => stdout.close());
  const errDone = new Promise((r) => {
    const rl = createInterface({ input: child.stderr, crlfDelay: Infinity });
    rl.on('line', (l) => stderr.push(l));
    rl.on('close', r);
  }).then(() => stderr.close());

  const exited = new Promise((resolve) => {
    child.once('error', (err) => {
      stderr.push(`spawn error: ${err.message}`);
      resolve({ code: null, signal: null, error: err });
    });
    child.once('exit', (code, signal) => resolve({ code, signal }));
  }).then(async (r) => {
    live.delete(child.pid);
    await Promise.race([Promise.all([outDone, errDone]), new Promise((res) => setTimeout(res, 1000))]);
    return r;
  });
  if (child.pid !== undefined) live.set(child.pid, child);

  const isRunning = () => child.pid !== undefined && child.exitCode === null && child.signalCode === null;

  const kill = (signal = 'SIGTERM') => {
    if (!isRunning()) return false;
    try {
      process.kill(child.pid, signal);
      return true;
    } catch {
      return false;
    }
  };

  const stop = async ({ signal = 'SIGTERM', graceMs = 5000 } = {}) => {
    if (isRunning()) {
      kill(signal);
      const t = setTimeout(() => kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(t);
      }
    }
    return exited;
  };

  return { child, pid: child.pid, name, cmd, args, stdout, stderr, exited, isRunning, kill, stop };
}
