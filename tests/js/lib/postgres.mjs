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
  const asPostgres = (cmd, args) => (root ? ['/usr/sbin/runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const [initCmd, initArgs] = asPostgres(path.join(BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8']);
  execFileSync(initCmd, initArgs, { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await freePort();
  const [cmd, args] = asPostgres(path.join(BIN, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'max_connections=200', '-c', 'shared_buffers=64MB',
    ...settings.flatMap((kv) => ['-c', kv]),
  ]);
  const proc = spawnTracked(cmd, args, { name: 'postgres' });
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
