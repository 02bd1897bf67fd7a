// @modelcontextprotocol/server-everything in streamable HTTP mode on 127.0.0.1 and a
// kernel-chosen port.
//
// How the package picks its port (dist/transports/streamableHttp.js):
//     const PORT = process.env.PORT || 3001;  app.listen(PORT, ...)
// i.e. env PORT, no host (all interfaces), and it logs the port it was given, not the one
// it got. We start it with PORT=0 and preload lib/loopback-listen.mjs, which binds it to
// 127.0.0.1 and prints `GATE_TEST_LISTENING 127.0.0.1:<port>` with the real port. No port
// is guessed, so there is nothing to retry. Its MCP endpoint is /mcp.
import { EVERYTHING_ENTRY, LOOPBACK_PRELOAD } from './paths.mjs';
import { closeRawSession, openRawSession } from './http.mjs';
import { spawnTracked } from './procs.mjs';

const LISTENING = /^GATE_TEST_LISTENING (\S+):(\d+)$/;

/**
 * Starts one server-everything. Resolves once an MCP initialize round trip has succeeded.
 * Returns { url, base, port, pid, stdoutLines, stderrLines, proc, stop(), kill(signal) }.
 */
export async function startEverything({ timeoutMs = 20_000, env = {} } = {}) {
  const proc = spawnTracked(
    process.execPath,
    ['--import', LOOPBACK_PRELOAD, EVERYTHING_ENTRY, 'streamableHttp'],
    { env: { ...process.env, PORT: '0', ...env }, name: 'server-everything' },
  );
  try {
    const m = await Promise.race([
      proc.stderr.waitFor(LISTENING, { timeoutMs }),
      proc.exited.then((r) => {
        throw new Error(`server-everything exited (${JSON.stringify(r)}) before listening:\n${proc.stderr.text()}`);
      }),
    ]);
    const port = Number(m[2]);
    const base = `http://127.0.0.1:${port}`;
    const url = `${base}/mcp`;
    // Ready = it answers an MCP initialize. Close that session again.
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const s = await openRawSession(url);
        await closeRawSession(url, s);
        break;
      } catch (err) {
        if (Date.now() > deadline || !proc.isRunning()) throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return {
      url,
      base,
      port,
      pid: proc.pid,
      proc,
      stdoutLines: proc.stdout.lines,
      stderrLines: proc.stderr.lines,
      stop: (opts) => proc.stop(opts),
      kill: (signal) => proc.kill(signal),
    };
  } catch (err) {
    await proc.stop({ signal: 'SIGKILL' });
    throw err;
  }
}
