// Stopping one of the project's binaries (gate, gate-stdio, gate-hooks) checks how it ended.
// Each documents exit status 0 at SIGTERM (docs/operations.md, docs/shim.md, docs/webhooks.md),
// so a crash or a sanitizer's leak report during teardown, or a hang past the grace period,
// fails the test file that stopped it instead of passing unseen.
//
// A wrong end is printed at once and fails the file when its process exits; it is not thrown.
// Stops run in `after` hooks and `finally` blocks: a throw there would skip the rest of the
// cleanup (a server left running holds the file until its timeout), hide the test's own
// failure, and, from a describe's `after` hook, not fail the run at all (Node 22 reports
// the suite "not ok" and still exits 0).
//
// A test that kills or crashes a binary on purpose says so when it stops it:
//   stop({ signal: 'SIGKILL' })       not a graceful stop: any end is accepted
//   stop({ expectExit: 'any' })       it was killed or crashed earlier in the test
//   stop({ expectExit: { code: 3 } }) another documented status
// Either holds for every later stop of the same process.

const STDERR_TAIL_LINES = 40;

const wrongEnds = new Map(); // pid -> what was wrong, once per process
const accepted = new WeakSet(); // processes whose end a test said not to check

process.on('exit', () => {
  if (wrongEnds.size === 0) return;
  process.stderr.write(`\n${wrongEnds.size} binary(ies) did not end as documented when stopped:\n${[...wrongEnds.values()].join('\n\n')}\n`);
  process.exitCode = 1;
});

/** What a process ended with, for a person: "exit code 1", "signal SIGABRT". */
export function describeExit({ code, signal, error }) {
  if (error) return `failed to run (${error.message})`;
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

/**
 * Stops `proc` (from spawnTracked) with `signal`, SIGKILL after `graceMs`, and checks the end
 * against `expectExit`. Resolves with { code, signal } either way; a wrong end (named with the
 * binary, its arguments, how it ended and the tail of its stderr) fails the file.
 */
export async function stopChecked(proc, { signal = 'SIGTERM', graceMs = 5_000, expectExit = { code: 0 } } = {}) {
  if (signal === 'SIGKILL' || expectExit === 'any') accepted.add(proc);
  const ended = await proc.stop({ signal, graceMs });
  if (accepted.has(proc) || wrongEnds.has(proc.pid)) return ended;
  if (ended.signal === null && !ended.error && ended.code === expectExit.code) return ended;
  const how =
    ended.signal === 'SIGKILL'
      ? `ended with signal SIGKILL, sent when it had not exited ${graceMs} ms after ${signal} (or by the test)`
      : `ended with ${describeExit(ended)}`;
  const tail = proc.stderr.lines.slice(-STDERR_TAIL_LINES).join('\n');
  const wrong =
    `${proc.name}: ${proc.cmd} ${proc.args.join(' ')}\n` +
    `  stopped with ${signal}, it ${how}; expected exit code ${expectExit.code}\n` +
    `  last ${STDERR_TAIL_LINES} lines of its stderr:\n${tail}`;
  wrongEnds.set(proc.pid, wrong);
  process.stderr.write(`${wrong}\n`);
  return ended;
}
