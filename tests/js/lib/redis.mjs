// A real Redis 7 for the tests (Debian's redis-tools): redis-server on 127.0.0.1 and a port
// the kernel picked free (Redis cannot report a port 0 it bound, so a free port is taken from
// a listener bound to 0 and released just before), no persistence, stopped by its PID.
// Debian ships the server as redis-check-rdb, which acts as redis-server when so named.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { freePort } from './free-port.mjs';
import { spawnTracked } from './procs.mjs';

export async function startRedis({ port } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-redis-'));
  const bin = path.join(dir, 'redis-server');
  symlinkSync('/usr/bin/redis-check-rdb', bin);
  const chosen = port ?? (await freePort());
  const proc = spawnTracked(bin, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { name: 'redis' });
  await Promise.race([
    proc.stdout.waitFor(/Ready to accept connections/, { timeoutMs: 15_000 }),
    proc.exited.then((r) => {
      throw new Error(`redis-server exited (${JSON.stringify(r)}): ${proc.stdout.text()}`);
    }),
  ]);
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    proc,
    /** Freezes the server (SIGSTOP): connections stay open and nothing answers. */
    pause: () => proc.kill('SIGSTOP'),
    resume: () => proc.kill('SIGCONT'),
    /** Stops it for good; a new one may be started on the same port. */
    stop: async () => {
      proc.kill('SIGCONT');
      await proc.stop({ signal: 'SIGTERM', graceMs: 5_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
