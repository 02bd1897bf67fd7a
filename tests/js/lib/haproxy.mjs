// A real HAProxy (Debian's haproxy) balancing HTTP requests round-robin over `servers`, on
// 127.0.0.1 and a port the kernel picked free (taken from a listener bound to 0 and released
// just before), in the foreground, stopped by its PID. Every request is balanced on its own
// (no stickiness), so consecutive requests of one MCP session land on alternating instances;
// long timeouts keep SSE streams open.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { freePort } from './free-port.mjs';
import { spawnTracked } from './procs.mjs';
import { eventually } from './shim.mjs';

/** servers: base URLs (http://127.0.0.1:port). Returns { base, url(path), proc, stop() }. */
export async function startHaproxy(servers, { mcpPath = '/mcp' } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-haproxy-'));
  const port = await freePort();
  const lines = [
    'global',
    '  maxconn 1000',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 1h',
    '  timeout server 1h',
    '  timeout tunnel 1h',
    '  option http-server-close',
    'frontend fleet',
    `  bind 127.0.0.1:${port}`,
    '  default_backend gates',
    'backend gates',
    '  balance roundrobin',
    ...servers.map((s, i) => `  server gate${i} ${new URL(s).host}`),
  ];
  const cfg = path.join(dir, 'haproxy.cfg');
  writeFileSync(cfg, `${lines.join('\n')}\n`);
  const proc = spawnTracked('/usr/sbin/haproxy', ['-db', '-f', cfg], { name: 'haproxy' });
  const base = `http://127.0.0.1:${port}`;
  // HAProxy says nothing when it is ready: it is once it answers.
  await eventually(async () => {
    if (proc.child.exitCode !== null) throw new Error(`haproxy exited: ${proc.stderr.text()}`);
    try {
      return (await fetch(`${base}/health`)).status > 0;
    } catch {
      return false;
    }
  }, { timeoutMs: 10_000, what: 'haproxy answering' });
  return {
    base,
    url: `${base}${mcpPath}`,
    proc,
    stop: async () => {
      await proc.stop({ signal: 'SIGTERM', graceMs: 5_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
