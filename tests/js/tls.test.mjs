// https upstreams: gate verifies the upstream's certificate (trust store from SSL_CERT_FILE,
// name checked against the URL's host) and carries MCP over TLS; an untrusted certificate is
// a connect failure answered -32041, never a silent downgrade.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { connectClient, startEverything, startGate } from './lib/index.mjs';

// A test CA and a server certificate for localhost and 127.0.0.1, made with the openssl
// command line.
function makeCertificates(dir) {
  const sh = (...args) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  sh('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=gate test CA');
  sh('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost');
  writeFileSync(path.join(dir, 'san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
  sh('x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'san.ext');
  return {
    ca: path.join(dir, 'ca.pem'),
    key: readFileSync(path.join(dir, 'server.key')),
    cert: readFileSync(path.join(dir, 'server.pem')),
  };
}

// An https front for an http MCP server: requests and streamed answers are piped through.
function startTlsFront(target, { key, cert }) {
  const upstream = new URL(target);
  const server = https.createServer({ key, cert }, (req, res) => {
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: { ...req.headers, host: upstream.host } },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

describe('https upstreams', { timeout: 180_000 }, () => {
  let dir;
  let up;
  let front;
  let certs;
  const gates = [];

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-tls-'));
    certs = makeCertificates(dir);
    up = await startEverything();
    front = await startTlsFront(up.url, certs);
  });

  after(async () => {
    for (const g of gates) await g.stop();
    await new Promise((r) => front?.close(r));
    await up?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  // By IP address, so the test needs no name resolution; the certificate's IP SAN is checked.
  const config = () => ({
    upstreams: [{ id: 'secure', url: `https://127.0.0.1:${front.address().port}/mcp`, namespace: 's' }],
  });

  test('a trusted certificate carries MCP over TLS', async () => {
    const gate = await startGate({ config: config(), env: { SSL_CERT_FILE: certs.ca } });
    gates.push(gate);
    const client = await connectClient(gate.url);
    const tools = (await client.listTools({})).tools.map((t) => t.name);
    assert.ok(tools.includes('s__echo'), tools.join(','));
    const r = await client.callTool({ name: 's__echo', arguments: { message: 'over tls' } });
    assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: over tls' }]);
    await client.close();
  });

  test('an untrusted certificate is refused with -32041', async () => {
    const gate = await startGate({ config: config(), env: { SSL_CERT_FILE: path.join(dir, 'no-such-ca.pem') } });
    gates.push(gate);
    const client = await connectClient(gate.url);
    await assert.rejects(
      client.callTool({ name: 's__echo', arguments: { message: 'x' } }),
      (err) => err.code === -32041 && /certificate verify failed|handshake/i.test(err.message),
    );
    await client.close();
  });
});
