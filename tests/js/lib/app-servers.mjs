// The MCP Apps servers of @modelcontextprotocol (ext-apps 2.0.x examples) over streamable HTTP
// on 127.0.0.1 and a kernel-chosen port:
//   basic-vanillajs   get-time (its view ui://get-time/mcp-app.html calls get-time again)
//   system-monitor    get-system-info (view ui://system-monitor/mcp-app.html), and the
//                     app-only poll-system-stats its view calls every 2 s
// Both read PORT (and listen on all interfaces); lib/loopback-listen.mjs binds them to
// 127.0.0.1 and prints the real port. Stateless: any POST is a fresh server.
import path from 'node:path';

import { JS_DIR, LOOPBACK_PRELOAD } from './paths.mjs';
import { spawnTracked } from './procs.mjs';

const LISTENING = /^GATE_TEST_LISTENING (\S+):(\d+)$/;
const ENTRY = {
  'basic-vanillajs': 'server-basic-vanillajs',
  'system-monitor': 'server-system-monitor',
};

/** Starts one App server. Returns { url, pid, stop() }. */
export async function startAppServer(kind, { timeoutMs = 20_000 } = {}) {
  const entry = path.join(JS_DIR, 'node_modules', '@modelcontextprotocol', ENTRY[kind], 'dist', 'index.js');
  const proc = spawnTracked(process.execPath, ['--import', LOOPBACK_PRELOAD, entry], {
    env: { ...process.env, PORT: '0' },
    name: kind,
  });
  try {
    const m = await Promise.race([
      proc.stderr.waitFor(LISTENING, { timeoutMs }),
      proc.exited.then((r) => {
        throw new Error(`${kind} exited (${JSON.stringify(r)}) before listening:\n${proc.stderr.text()}`);
      }),
    ]);
    return { url: `http://127.0.0.1:${Number(m[2])}/mcp`, pid: proc.pid, stop: (opts) => proc.stop(opts) };
  } catch (err) {
    await proc.stop({ signal: 'SIGKILL' });
    throw err;
  }
}
