// The real gate-hooks binary and real HTTPS receivers for it.
//
//   makeTestCa()            a CA and a server certificate for 127.0.0.1/localhost, made with
//                           the openssl command line in a temporary folder
//   startReceiver(ca)       a node https server on 127.0.0.1:0 that records every request and
//                           answers what `receiver.respond` says (default 200 "ok")
//   startHooks({config})    gate-hooks --port 0 with a SQLite file in a temporary folder;
//                           api(method, path, {token, body}) calls its API, stats(token) and
//                           metrics() read its numbers
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { stopChecked } from './checked-stop.mjs';
import { REPO_ROOT } from './paths.mjs';
import { spawnTracked } from './procs.mjs';

export const HOOKS_LISTENING_RE = /listening on http:\/\/([^\/\s]+):(\d+)/;

export function hooksBin() {
  return path.resolve(REPO_ROOT, process.env.GATE_HOOKS_BIN || 'build/gate-hooks');
}

/** A throwaway CA and a server certificate it signed (SAN: IP 127.0.0.1, DNS localhost). */
export function makeTestCa() {
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-hooks-ca-'));
  const f = (n) => path.join(dir, n);
  const ssl = (...args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  ssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj', '/CN=gate-hooks test CA');
  ssl('req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  ssl('x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f('server.pem'), '-days', '2', '-extfile', f('san.ext'));
  return {
    dir,
    caFile: f('ca.pem'),
    key: readFileSync(f('server.key')),
    cert: readFileSync(f('server.pem')),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Recomputes a delivery's signature the way a receiver would, independently of gate-hooks. */
export function signatureValid(secret, body, header) {
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const got = Buffer.from(header.slice('sha256='.length));
  return got.length === expected.length && timingSafeEqual(got, expected);
}

export async function startReceiver(ca, { keepAliveTimeoutMs } = {}) {
  const received = [];
  const receiver = {
    received,
    connections: 0, // TLS connections accepted: how often gate-hooks paid for a handshake
    closedByPeer: 0, // connections gate-hooks ended (the receiver's own timeouts not counted)
    respond: () => ({ status: 200, body: 'ok' }),
  };
  const server = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const entry = { at: Date.now(), method: req.method, url: req.url, headers: req.headers, body, json: JSON.parse(body || 'null') };
      received.push(entry);
      const { status = 200, body: answer = '', headers = {}, hang = false } = receiver.respond(entry) ?? {};
      if (hang) {
        receiver.onHang?.(res); // answers when the test says, or never: the sender's timeout decides
        return;
      }
      res.writeHead(status, headers);
      res.end(answer);
    });
  });
  if (keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = keepAliveTimeoutMs;
  server.on('secureConnection', (socket) => {
    receiver.connections += 1;
    // The client's FIN arrives as 'end' before this side has ended the socket.
    socket.on('end', () => {
      receiver.closedByPeer += 1;
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  receiver.port = server.address().port;
  receiver.url = (p = '/hook') => `https://127.0.0.1:${receiver.port}${p}`;
  receiver.stop = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(r);
    });
  return receiver;
}

export const TOKENS = {
  org_a: 'token-org-a-0123456789',
  org_b: 'token-org-b-0123456789',
};

/**
 * gate-hooks on 127.0.0.1:0; `config` is merged over a test default (fast retries). Its file is
 * written with `configMode` (gate-hooks refuses one other users may read: it holds the tokens).
 */
export async function startHooks({ config = {}, dbPath, timeoutMs = 15_000, configMode = 0o600 } = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'gate-hooks-test-'));
  const database = dbPath ?? path.join(dir, 'hooks.db');
  const full = {
    database,
    tokens: Object.entries(TOKENS).map(([organization, token]) => ({ organization, token })),
    ...config,
    delivery: { initialDelayMs: 100, maxDelayMs: 2000, maxAttempts: 4, pollMs: 50, timeoutMs: 2000, leaseMs: 3000, ...(config.delivery ?? {}) },
  };
  const configPath = path.join(dir, 'hooks.json');
  writeFileSync(configPath, JSON.stringify(full, null, 2), { mode: configMode });
  chmodSync(configPath, configMode); // whatever the umask took off
  const proc = spawnTracked(hooksBin(), ['--config', configPath, '--port', '0'], { name: 'gate-hooks' });
  let m;
  try {
    m = await Promise.race([
      proc.stderr.waitFor(HOOKS_LISTENING_RE, { timeoutMs }),
      proc.exited.then((r) => {
        throw new Error(`gate-hooks exited (${JSON.stringify(r)}); stderr:\n${proc.stderr.text()}`);
      }),
    ]);
  } catch (err) {
    await proc.stop({ signal: 'SIGKILL' });
    throw err;
  }
  const base = `http://127.0.0.1:${m[2]}`;
  const api = async (method, p, { token = TOKENS.org_a, body, raw, headers = {} } = {}) => {
    const h = { ...headers };
    if (token) h.authorization = `Bearer ${token}`;
    if (body !== undefined || raw !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(base + p, { method, headers: h, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, headers: res.headers, text, json };
  };
  // Each read fails on any answer but 200, so a test never compares numbers of an error body.
  const read = async (p, token) => {
    const r = await api('GET', p, { token });
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${r.text}`);
    return r;
  };
  return {
    base,
    database,
    dir,
    proc,
    pid: proc.pid,
    api,
    /** GET /stats as `token`'s organization: the queue, dead letters and the last hour (JSON). */
    stats: async (token = TOKENS.org_a) => (await read('/stats', token)).json,
    /** GET /metrics as Prometheus scrapes it, without a token: the exposition text. */
    metrics: async () => (await read('/metrics', null)).text,
    // SIGTERM, expecting exit code 0 (see checked-stop.mjs for opting out).
    stop: async (opts) => {
      await stopChecked(proc, opts);
    },
    kill9: async () => {
      await proc.stop({ signal: 'SIGKILL', graceMs: 0 });
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
