// A real PostgreSQL 15 for the tests (Debian's postgresql package): a fresh cluster in a
// temporary folder, on 127.0.0.1 and a port the kernel picked free (PostgreSQL cannot bind
// port 0 itself, so a free port is taken from a listener bound to 0 and released just
// before), stopped by its PID. As root it runs as the `postgres` user (initdb refuses root).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { freePort } from './free-port.mjs';
import { spawnTracked } from './procs.mjs';

const BIN = process.env.PG_BIN || '/usr/lib/postgresql/15/bin';

export function postgresAvailable() {
  return existsSync(path.join(BIN, 'initdb'));
}

export async function startPostgres({ settings = [] } = {}) {
  const root = process.getuid?.() === 0;
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-pg-'));
  const data = path.join(dir, 'data');
  // As root, initdb and postgres run as the `postgres` user by its uid and gid, not through
  // runuser: runuser does not pass SIGINT on, so a stop waited out its grace period, SIGKILLed
  // runuser alone and left postgres holding the test file's pipes (about 35 s per file).
  const user = root
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim()),
      }
    : {};
  if (root) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  execFileSync(path.join(BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    ...user,
  });
  const port = await freePort();
  const args = [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'shared_buffers=64MB',
    ...settings.flatMap((kv) => ['-c', kv]),
  ];
  const proc = spawnTracked(path.join(BIN, 'postgres'), args, { name: 'postgres', ...user });
  await Promise.race([
    proc.stderr.waitFor(/database system is ready to accept connections/, { timeoutMs: 30_000 }),
    proc.exited.then((r) => {
      throw new Error(`postgres exited (${JSON.stringify(r)}): ${proc.stderr.text()}`);
    }),
  ]);
  let n = 0;
  const psql = (sql, db = 'postgres') =>
    execFileSync(path.join(BIN, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', db, '-v', 'ON_ERROR_STOP=1', '-Atc', sql], { encoding: 'utf8' });
  return {
    port,
    proc,
    psql,
    /** A fresh, empty database and its URL. */
    createDatabase: (name = `hooks_${process.pid}_${++n}`) => {
      psql(`CREATE DATABASE ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    stop: async () => {
      await proc.stop({ signal: 'SIGINT', graceMs: 10_000 });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
