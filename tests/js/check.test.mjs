// `gate check` against the real binary (docs/operations.md, "gate check"): a federation whose
// every outside thing answers (server-everything, a key-demanding proxy in front of it, an SDK
// server behind the SDK's own bearer middleware for a per-caller upstream, a real identity
// provider, a real Redis, an audit receiver, an OTLP receiver, a discovery source and the
// upstream it serves) is all ok with exit 0; then each failure kind alone, with its row, its
// hint and exit 1; a per-caller upstream tried without a credential, ok when it asks for a
// caller's and down when it cannot be reached; a bad configuration and a bad command line exit
// 2. Ports that refuse are bound by the kernel and closed again; the hung upstream never
// answers and gate's own bound (--timeout-ms) ends the try.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import express from 'express';

import { freePort } from './lib/free-port.mjs';
import { json, startFormEndpoint } from './lib/form-endpoint.mjs';
import {
  runGate,
  startAuditReceiver,
  startDiscoverySource,
  startEverything,
  startIdp,
  startOtlpReceiver,
  startRecordingProxy,
  startRedis,
  startSilentServer,
} from './lib/index.mjs';

const API_KEY = 'api-key-value-5e1c';
const CC_SECRET = 'cc-secret-value-20a9';
const CC_TOKEN = 'cc-token-value-77d0';
const RESOURCE = 'https://gate.example/mcp';

// A proxy in front of an MCP server that lets through only requests whose headers `admits`
// (X-Api-Key: API_KEY by default) and answers 401 to the rest, as an upstream guarding itself
// with a key does.
async function startKeyedProxy(targetUrl, admits = (h) => h['x-api-key'] === API_KEY) {
  const target = new URL(targetUrl);
  const server = http.createServer((req, res) => {
    if (!admits(req.headers)) return res.writeHead(401, { 'content-type': 'text/plain' }).end('who are you?');
    const out = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: { ...req.headers, host: target.host } }, (up) => {
      res.writeHead(up.statusCode, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

const METADATA = 'https://mcp.example/.well-known/oauth-protected-resource';

// An MCP server of the SDK behind the SDK's own bearer middleware, as an upstream that takes
// each caller's token guards itself: a request without a valid token gets 401 with the
// middleware's challenge (naming its resource metadata); `seen` records each request's
// JSON-RPC method and Authorization header.
async function startGuardedSdkServer() {
  const seen = [];
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    seen.push({ method: req.body?.method ?? null, authorization: req.headers.authorization ?? null });
    next();
  });
  const verifier = {
    verifyAccessToken: async (token) => {
      if (token !== 'a-callers-token') throw new InvalidTokenError('unknown token');
      return { token, clientId: 'caller', scopes: [], expiresAt: Math.floor(Date.now() / 1000) + 3600 };
    },
  };
  app.post('/mcp', requireBearerAuth({ verifier, resourceMetadataUrl: METADATA }), async (req, res) => {
    const server = new McpServer({ name: 'guarded', version: '1.0.0' });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, req.body);
  });
  const server = await new Promise((r) => {
    const s = app.listen(0, '127.0.0.1', () => r(s));
  });
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, seen, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

// An endpoint that asks for Basic credentials, which no caller's Bearer token answers.
async function startBasicOnly() {
  const server = http.createServer((req, res) => res.writeHead(401, { 'www-authenticate': 'Basic realm="corp"' }).end());
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const TX_TOKEN = 'tx-token-value-9c41';

// An OAuth token endpoint (RFC 6749 section 5.2's errors, RFC 8693's exchange) in front of the
// identity provider a token-exchange upstream names: a POST of a form at /token, checked in
// the order such servers check it: the grant type (`grants`: those it takes), then the client
// (client_secret_post or client_secret_basic; 401 invalid_client with a Basic challenge), then
// the token to exchange; an exchange that passes all three gets a token. Every request is
// recorded: its method, headers and form.
async function startTokenServer({ grants = ['client_credentials', TOKEN_EXCHANGE] } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      requests.push({ method: req.method, headers: req.headers, form });
      if (req.url !== '/token') return json(res, 404, { message: 'not found' });
      if (req.method !== 'POST') return res.writeHead(405, { allow: 'POST' }).end();
      if (!req.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))
        return json(res, 400, { error: 'invalid_request', error_description: 'expected a form' });
      if (!form.grant_type) return json(res, 400, { error: 'invalid_request', error_description: 'missing grant_type' });
      if (!grants.includes(form.grant_type)) return json(res, 400, { error: 'unsupported_grant_type' });
      const basic = req.headers.authorization?.startsWith('Basic ')
        ? Buffer.from(req.headers.authorization.slice(6), 'base64').toString().split(':')
        : null;
      const [id, secret] = basic ?? [form.client_id, form.client_secret];
      if (id !== 'gate' || secret !== CC_SECRET) {
        res.setHeader('www-authenticate', 'Basic realm="idp"');
        return json(res, 401, { error: 'invalid_client', error_description: 'client authentication failed' });
      }
      if (form.grant_type === TOKEN_EXCHANGE && !form.subject_token)
        return json(res, 400, { error: 'invalid_request', error_description: 'missing subject_token' });
      return json(res, 200, { access_token: TX_TOKEN, token_type: 'Bearer', expires_in: 3600 });
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { url: `${base}/token`, base, requests, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

// A web server that is not an MCP server: every request gets an HTML page.
async function startWebPage() {
  const server = http.createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>welcome</html>'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${server.address().port}/mcp`, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

// An https server with a self-signed certificate for 127.0.0.1, which no trust store holds.
async function startSelfSigned(dir) {
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', 'key.pem', '-out', 'cert.pem', '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { cwd: dir, stdio: 'pipe' });
  const server = https.createServer({ key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) }, (req, res) => res.writeHead(500).end());
  server.on('tlsClientError', () => {});
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { url: `https://127.0.0.1:${server.address().port}/mcp`, stop: () => new Promise((r) => (server.closeAllConnections(), server.close(r))) };
}

describe('gate check', { timeout: 120_000 }, () => {
  let dir;
  let everything;
  let keyed;
  let ccGuarded; // wants the token the token endpoint issues for CC_SECRET
  let tokens;
  let found; // the upstream the discovery source serves
  let idp;
  let redis;
  let audit;
  let otlp;
  let source;
  let web;
  let silent;
  let untrusted;
  let guarded; // an SDK server behind bearer auth: a per-caller upstream
  let basicOnly;
  let exchanger; // a token endpoint that exchanges tokens
  let ccOnly; // one that takes client credentials only
  let failing; // one that answers 503
  let refused; // a port nothing listens on

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-check-'));
    everything = await startEverything();
    [keyed, found, idp, redis, audit, otlp, web, silent] = await Promise.all([
      startKeyedProxy(everything.url),
      startRecordingProxy(everything.url),
      startIdp(),
      startRedis(),
      startAuditReceiver(),
      startOtlpReceiver(),
      startWebPage(),
      startSilentServer(),
    ]);
    untrusted = await startSelfSigned(dir);
    [guarded, basicOnly, exchanger, ccOnly, failing] = await Promise.all([
      startGuardedSdkServer(),
      startBasicOnly(),
      startTokenServer(),
      startTokenServer({ grants: ['client_credentials'] }),
      startFormEndpoint((form, res) => json(res, 503, { error: 'temporarily_unavailable' })),
    ]);
    ccGuarded = await startKeyedProxy(everything.url, (h) => h.authorization === `Bearer ${CC_TOKEN}`);
    tokens = await startFormEndpoint((form, res) =>
      form.client_secret === CC_SECRET ? json(res, 200, { access_token: CC_TOKEN, token_type: 'Bearer', expires_in: 3600 }) : json(res, 401, { error: 'invalid_client' }),
    );
    source = await startDiscoverySource({ upstreams: [{ id: 'found', url: found.url, namespace: 'found' }] });
    refused = await freePort();
  });

  after(async () => {
    await Promise.all([keyed, ccGuarded, tokens, found, idp, redis, audit, otlp, source, web, untrusted, guarded, basicOnly, exchanger, ccOnly, failing].map((s) => s?.stop()));
    await silent?.close();
    await everything?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  let n = 0;
  // Runs `gate check` on `config` with --json: { code, rows, out, stderr }.
  async function check(config, { env = {}, args = [] } = {}) {
    const file = path.join(dir, `gate-${(n += 1)}.json`);
    writeFileSync(file, JSON.stringify(config));
    const r = await runGate(['check', '--config', file, '--json', ...args], { env: { REDIS_URL: '', ...env } });
    const out = r.stdout.toString('utf8');
    let rows = null;
    try {
      rows = JSON.parse(out).rows;
    } catch {
      rows = null;
    }
    return { code: r.code, rows, out, stderr: r.stderr };
  }
  const row = (rows, kind, name) => {
    const found = rows.find((r) => r.kind === kind && (name === undefined || r.name === name));
    assert.ok(found, `no ${kind} row ${name ?? ''} in ${JSON.stringify(rows)}`);
    return found;
  };
  // One failure kind alone: exit 1, its row down with `detail` and `hint`, every other row ok.
  async function expectDown(config, kind, { detail, hint, env, args }) {
    const r = await check(config, { env, args });
    assert.equal(r.code, 1, r.out + r.stderr);
    const bad = row(r.rows, kind);
    assert.equal(bad.status, 'down', JSON.stringify(bad));
    assert.match(bad.detail, detail);
    assert.match(bad.hint, hint);
    for (const other of r.rows) if (other !== bad) assert.equal(other.status, 'ok', JSON.stringify(other));
    return r;
  }
  const txAuth = (tokenEndpoint) => ({ strategy: 'token-exchange', tokenEndpoint, clientId: 'gate', audience: 'https://tools.example', clientAuth: { type: 'client_secret_post', secretRef: 'CC_SECRET' } });
  const ccAuth = (tokenEndpoint) => ({ strategy: 'client-credentials', tokenEndpoint, clientId: 'gate', clientAuth: { type: 'client_secret_post', secretRef: 'CC_SECRET' } });
  const upstream = (url) => ({ upstreams: [{ id: 'up', url, namespace: 'up' }] });
  // Beside the thing under test, one upstream that answers (a document names at least one).
  const answering = () => [{ id: 'ev', url: everything.url, namespace: 'ev' }];

  test('a federation whose every outside thing answers: every row ok, exit 0', async () => {
    const config = {
      upstreams: [
        { id: 'ev', url: everything.url, namespace: 'ev' },
        { id: 'keyed', url: keyed.url, namespace: 'keyed', auth: { strategy: 'static', secretRef: 'API_KEY', header: 'X-Api-Key' } },
        { id: 'cc', url: ccGuarded.url, namespace: 'cc', auth: ccAuth(tokens.url) },
        { id: 'mine', url: guarded.url, namespace: 'mine', auth: { strategy: 'passthrough' } },
        { id: 'tx', url: guarded.url, namespace: 'tx', auth: txAuth(exchanger.url) },
      ],
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      server: { redisUrl: redis.url },
      audit: { sinks: [{ type: 'stdout' }, { type: 'webhook', url: audit.url, headers: { 'x-receiver-token': 'tok' } }] },
      tracing: { otlpEndpoint: otlp.url, serviceName: 'gate-check' },
      discovery: { url: source.url, intervalMs: 60000 },
    };
    const r = await check(config, { env: { API_KEY, CC_SECRET } });
    assert.equal(r.code, 0, r.out + r.stderr);
    const kinds = r.rows.map((x) => `${x.kind} ${x.name} ${x.status}`);
    assert.deepEqual(kinds, [
      'upstream ev ok',
      'upstream keyed ok',
      'upstream cc ok',
      'upstream mine ok',
      'upstream tx ok',
      'token tx ok',
      `issuer ${idp.issuer} ok`,
      'store /server/redisUrl ok',
      'audit /audit/sinks/1 ok',
      'tracing /tracing ok',
      'discovery /discovery ok',
      'upstream found (discovered) ok',
    ]);
    assert.match(row(r.rows, 'upstream', 'ev').detail, /MCP handshake answered by mcp-servers\/everything/);
    assert.match(row(r.rows, 'upstream', 'mine').detail, /^reachable, and its MCP endpoint asks for a caller's credential/);
    assert.equal(row(r.rows, 'upstream', 'ev').notChecked, undefined, 'an upstream with a credential of its own is tried whole');
    assert.match(row(r.rows, 'issuer').detail, /key set with 1 key/);
    assert.equal(row(r.rows, 'store').target, `${redis.url}/0`);
    assert.match(row(r.rows, 'discovery').detail, /serves 1 upstream/);
    // The receivers got what they take harmlessly: an empty batch with the sink's headers, an
    // export with no spans that the official OTLP definitions decode.
    const batch = audit.attempts.at(-1);
    assert.deepEqual(batch.events, []);
    assert.equal(batch.headers['x-receiver-token'], 'tok');
    assert.match(batch.headers['idempotency-key'], /^gate-check-/);
    assert.equal(audit.events().length, 0);
    const exported = otlp.requests.at(-1);
    assert.equal(exported.ok, true, exported.error);
    assert.equal(exported.spans.length, 0);
    assert.deepEqual(exported.unknownFields, []);
    assert.ok(found.seen.some((s) => s.rpcMethod === 'initialize'), 'the discovered upstream was tried');
  });

  test('the table: one row per thing, a summary, no secret', async () => {
    const file = path.join(dir, 'table.json');
    writeFileSync(file, JSON.stringify({
      upstreams: [
        { id: 'ev', url: everything.url, namespace: 'ev' },
        { id: 'keyed', url: keyed.url, namespace: 'keyed', auth: { strategy: 'static', secretRef: 'API_KEY', header: 'X-Api-Key' } },
      ],
    }));
    const r = await runGate(['check', '--config', file], { env: { API_KEY: 'wrong-key-4471' } });
    const out = r.stdout.toString('utf8');
    assert.equal(r.code, 1, out + r.stderr);
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^KIND\s+NAME\s+STATUS\s+WHAT$/);
    assert.match(lines[1], /^upstream\s+ev\s+ok\s+http:\/\/127\.0\.0\.1:\d+\/mcp: MCP handshake answered by .* \(\d+ ms\)$/);
    assert.match(lines[2], /^upstream\s+keyed\s+down\s+.*HTTP 401 -- hint: HTTP 401: the upstream refused the credential: check the secret in env API_KEY \(sent in X-Api-Key\)$/);
    assert.equal(lines[3], '2 checked: 1 ok, 1 down');
    assert.ok(!out.includes('wrong-key-4471') && !r.stderr.includes('wrong-key-4471'), 'the secret is never printed');
  });

  // A per-caller upstream (passthrough, or token-exchange at `tokenEndpoint`) at `url`.
  const perCaller = (url, strategy = 'passthrough', { tokenEndpoint = exchanger.url, protocol } = {}) => ({
    upstreams: [{ id: 'mine', url, namespace: 'mine', ...(protocol ? { protocol } : {}),
                  auth: strategy === 'passthrough' ? { strategy } : txAuth(tokenEndpoint) }],
    auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
  });

  test("an upstream that takes each caller's credential is tried without one: reachable and asking for it", async () => {
    for (const strategy of ['passthrough', 'token-exchange']) {
      const seenBefore = guarded.seen.length;
      const exchangesBefore = exchanger.requests.length;
      const r = await check(perCaller(guarded.url, strategy), { env: { CC_SECRET } });
      assert.equal(r.code, 0, r.out + r.stderr);
      const mine = row(r.rows, 'upstream', 'mine');
      assert.equal(mine.status, 'ok', JSON.stringify(mine));
      assert.equal(mine.detail, 'reachable, and its MCP endpoint asks for a caller\'s credential: the handshake without a credential answered HTTP 401 ' +
        `with WWW-Authenticate: Bearer error="invalid_token", error_description="Missing Authorization header", resource_metadata="${METADATA}"`);
      assert.equal(mine.hint, undefined);
      assert.match(mine.notChecked, strategy === 'passthrough'
        ? /^whether the upstream accepts a caller's token, and the handshake and lists made with it: only a caller's own request through gate tries them$/
        : new RegExp(`^the exchange of a caller's token at ${exchanger.url}, whether the upstream accepts the token it issues, and the handshake`));
      // What the server got: one initialize, with no credential at all.
      assert.deepEqual(guarded.seen.slice(seenBefore), [{ method: 'initialize', authorization: null }], strategy);
      // The token endpoint is asked only whether it answers (below): nothing is exchanged.
      const asked = exchanger.requests.slice(exchangesBefore);
      assert.equal(asked.length, strategy === 'passthrough' ? 0 : 1, JSON.stringify(asked));
      assert.ok(asked.every((q) => q.form.subject_token === undefined && q.form.client_secret === undefined));
    }
    // The table says it too.
    const file = path.join(dir, 'per-caller-table.json');
    writeFileSync(file, JSON.stringify(perCaller(guarded.url)));
    const t = await runGate(['check', '--config', file], { env: { REDIS_URL: '' } });
    const lines = t.stdout.toString('utf8').trim().split('\n');
    assert.equal(t.code, 0, lines.join('\n'));
    assert.match(lines[1], /^upstream\s+mine\s+ok\s+http:\/\/127\.0\.0\.1:\d+\/mcp: reachable, .*HTTP 401 with WWW-Authenticate: Bearer .* \(\d+ ms\) -- not checked: whether the upstream accepts a caller's token, /);
  });

  test("an upstream that takes each caller's credential and answers without any", async () => {
    const r = await check(perCaller(everything.url));
    assert.equal(r.code, 0, r.out + r.stderr);
    assert.match(row(r.rows, 'upstream', 'mine').detail, /^MCP handshake answered by mcp-servers\/everything .* without any credential: it does not ask for the caller's, which gate sends it all the same$/);
  });

  test("an upstream that takes each caller's credential, unreachable or asking for another scheme, is down", async () => {
    const config = (url) => perCaller(url);
    const refusedRow = await expectDown(config(`http://127.0.0.1:${refused}/mcp`), 'upstream', {
      detail: /Connection refused/,
      hint: new RegExp(`connection refused: is the upstream running at http://127\\.0\\.0\\.1:${refused}/mcp\\?`),
    });
    assert.match(row(refusedRow.rows, 'upstream').notChecked, /whether the upstream accepts a caller's token/);
    await expectDown(config(untrusted.url), 'upstream', { detail: /certificate verify failed/, hint: /TLS: certificate not trusted/ });
    await expectDown(config('http://gate-check-nowhere.invalid/mcp'), 'upstream', { detail: /cannot resolve/, hint: /does not resolve/ });
    await expectDown(config(silent.url), 'upstream', { args: ['--timeout-ms', '300'], detail: /within 300 ms/, hint: /no answer within 300 ms/ });
    await expectDown(config(basicOnly.url), 'upstream', {
      detail: /answered HTTP 401 with WWW-Authenticate: Basic realm="corp"/,
      hint: /it asks for Basic credentials, which a caller's Bearer token \(passthrough\) never is/,
    });
    await expectDown(config(web.url), 'upstream', { detail: /answered HTTP 200/, hint: /not as an MCP server/ });
  });

  test("a token-exchange upstream's token endpoint is asked whether it answers, with nothing to exchange and no secret", async () => {
    const before = exchanger.requests.length;
    const r = await check(perCaller(guarded.url, 'token-exchange'), { env: { CC_SECRET } });
    assert.equal(r.code, 0, r.out + r.stderr);
    assert.deepEqual(r.rows.map((x) => `${x.kind} ${x.name} ${x.status}`), ['upstream mine ok', 'token mine ok', `issuer ${idp.issuer} ok`]);
    const token = row(r.rows, 'token', 'mine');
    assert.equal(token.target, exchanger.url);
    assert.equal(token.detail, 'reachable, and it answers as an OAuth token endpoint: a token exchange request with no client credentials and no token ' +
      'answered HTTP 401 invalid_client (client authentication failed)');
    assert.equal(token.notChecked, "gate's client authentication there (auth.clientId, the secret in env CC_SECRET) and the exchange of a caller's token " +
      "for one with audience https://tools.example: only a caller's own request through gate tries them");
    // What the endpoint got: one POST of the grant type alone; no client, no secret, no token.
    const asked = exchanger.requests.slice(before);
    assert.equal(asked.length, 1, JSON.stringify(asked));
    assert.equal(asked[0].method, 'POST');
    assert.deepEqual(asked[0].form, { grant_type: TOKEN_EXCHANGE });
    assert.equal(asked[0].headers.authorization, undefined);
    assert.match(asked[0].headers['content-type'], /^application\/x-www-form-urlencoded/);
    assert.ok(!JSON.stringify(asked).includes(CC_SECRET), 'the client secret is never sent');
    // The table shows the row, and what it did not check.
    const file = path.join(dir, 'token-table.json');
    writeFileSync(file, JSON.stringify(perCaller(guarded.url, 'token-exchange')));
    const t = await runGate(['check', '--config', file], { env: { REDIS_URL: '', CC_SECRET } });
    const lines = t.stdout.toString('utf8').trim().split('\n');
    assert.equal(t.code, 0, lines.join('\n'));
    assert.match(lines[2], /^token\s+mine\s+ok\s+http:\/\/127\.0\.0\.1:\d+\/token: reachable, .*HTTP 401 invalid_client .*\(\d+ ms\) -- not checked: gate's client authentication there /);
    assert.ok(!t.stdout.toString('utf8').includes(CC_SECRET));
  });

  test("a token-exchange upstream's token endpoint down, or no token endpoint that exchanges", async () => {
    const config = (tokenEndpoint) => perCaller(guarded.url, 'token-exchange', { tokenEndpoint });
    const env = { CC_SECRET };
    await expectDown(config(ccOnly.url), 'token', {
      env,
      detail: /answered HTTP 400 unsupported_grant_type$/,
      hint: /it does not take token exchange \(RFC 8693, grant type urn:ietf:params:oauth:grant-type:token-exchange\)/,
    });
    await expectDown(config(`http://127.0.0.1:${refused}/token`), 'token', {
      env,
      detail: /Connection refused/,
      hint: new RegExp(`connection refused: is the token endpoint running at http://127\\.0\\.0\\.1:${refused}/token\\?`),
    });
    await expectDown(config('https://gate-check-nowhere.invalid/token'), 'token', { env, detail: /cannot resolve/, hint: /does not resolve/ });
    await expectDown(config(untrusted.url), 'token', { env, detail: /certificate verify failed/, hint: /TLS: certificate not trusted/ });
    await expectDown(config(silent.url), 'token', { env, args: ['--timeout-ms', '300'], detail: /within 300 ms/, hint: /no answer within 300 ms/ });
    // Answers, but not a token endpoint's: the issuer's own server at the wrong path, a failing
    // one, a web page, a proxy asking for its own login.
    await expectDown(config(`${exchanger.base}/oauth/token`), 'token', { env, detail: /answered HTTP 404 with no OAuth error in it/, hint: /HTTP 404: nothing is served at this path: check the URL \(http:\/\/127\.0\.0\.1:\d+\/oauth\/token\); auth\.tokenEndpoint must be the token endpoint itself \(token_endpoint in the identity provider's discovery document\)/ });
    await expectDown(config(failing.url), 'token', { env, detail: /answered HTTP 503 temporarily_unavailable/, hint: /HTTP 503: it is failing/ });
    await expectDown(config(web.url), 'token', { env, detail: /answered HTTP 200 with no OAuth error in it/, hint: /not an OAuth token endpoint's answer .*is http:\/\/127\.0\.0\.1:\d+\/mcp the token endpoint/ });
    await expectDown(config(basicOnly.url), 'token', { env, detail: /answered HTTP 401 with no OAuth error in it/, hint: /not an OAuth token endpoint's answer/ });
  });

  test("a per-caller upstream's handshake without a credential is the one its protocol opens with", async () => {
    for (const [protocol, method] of [['session', 'initialize'], ['auto', 'initialize'], ['2026-07-28', 'server/discover']]) {
      const seenBefore = guarded.seen.length;
      const r = await check(perCaller(guarded.url, 'passthrough', { protocol }));
      assert.equal(r.code, 0, r.out + r.stderr);
      assert.match(row(r.rows, 'upstream', 'mine').detail, /^reachable, and its MCP endpoint asks for a caller's credential/);
      assert.deepEqual(guarded.seen.slice(seenBefore), [{ method, authorization: null }], protocol);
    }
  });

  test('an upstream that refuses the connection', async () => {
    await expectDown(upstream(`http://127.0.0.1:${refused}/mcp`), 'upstream', {
      detail: /Connection refused/,
      hint: new RegExp(`connection refused: is the upstream running at http://127\\.0\\.0\\.1:${refused}/mcp\\?`),
    });
  });

  test('an upstream that refuses a wrong credential (HTTP 401)', async () => {
    const config = { upstreams: [{ id: 'keyed', url: keyed.url, namespace: 'keyed', auth: { strategy: 'static', secretRef: 'API_KEY', header: 'X-Api-Key' } }] };
    await expectDown(config, 'upstream', { env: { API_KEY: 'wrong' }, detail: /HTTP 401/, hint: /check the secret in env API_KEY/ });
  });

  test('an upstream whose token endpoint gives gate no token', async () => {
    const config = (tokenEndpoint) => ({ upstreams: [{ id: 'cc', url: ccGuarded.url, namespace: 'cc', auth: ccAuth(tokenEndpoint) }] });
    const r = await expectDown(config(tokens.url), 'upstream', {
      env: { CC_SECRET: 'wrong-secret-3b' },
      detail: /token endpoint/,
      hint: /gate could not get its token from http:\/\/127\.0\.0\.1:\d+\/token: check auth\.tokenEndpoint, auth\.clientId and the client secret in env CC_SECRET/,
    });
    assert.ok(!r.out.includes('wrong-secret-3b'));
    await expectDown(config(`http://127.0.0.1:${refused}/token`), 'upstream', { env: { CC_SECRET }, detail: /Connection refused/, hint: /gate could not get its token .*; connection refused: is the token endpoint running at/ });
  });

  test('an upstream whose secret is not in the environment is down without a try', async () => {
    const config = { upstreams: [{ id: 'keyed', url: keyed.url, namespace: 'keyed', auth: { strategy: 'static', secretRef: 'API_KEY_UNSET_HERE', header: 'X-Api-Key' } }] };
    await expectDown(config, 'upstream', { detail: /environment variable API_KEY_UNSET_HERE is not set/, hint: /set it in the environment/ });
  });

  test('an upstream that answers, but not as an MCP server', async () => {
    await expectDown(upstream(web.url), 'upstream', { detail: /./, hint: /not as an MCP server/ });
  });

  test('an upstream that never answers its handshake', async () => {
    await expectDown(upstream(silent.url), 'upstream', { args: ['--timeout-ms', '300'], detail: /within 300 ms/, hint: /no answer within 300 ms/ });
  });

  test('an upstream whose TLS certificate gate does not trust', async () => {
    await expectDown(upstream(untrusted.url), 'upstream', { detail: /certificate verify failed/, hint: /TLS: certificate not trusted/ });
  });

  test("an issuer whose key set is unreachable, or not a key set", async () => {
    const config = (jwksUri) => ({ upstreams: answering(), auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, jwksUri }] } });
    await expectDown(config(`http://127.0.0.1:${refused}/jwks.json`), 'issuer', { detail: /Connection refused/, hint: /connection refused: is the identity provider running/ });
    idp.setBehaviour({ body: '<html>sign in</html>' });
    try {
      await expectDown(config(idp.jwksUri), 'issuer', { detail: /./, hint: /not a JWK set/ });
    } finally {
      idp.setBehaviour({});
    }
  });

  test('the shared store down, its password never shown', async () => {
    const r = await expectDown({ upstreams: answering() }, 'store', {
      env: { REDIS_URL: `redis://user:redis-pass-88@127.0.0.1:${refused}/2` },
      detail: /cannot connect to Redis at redis:\/\/127\.0\.0\.1:\d+\/2/,
      hint: /connection refused: is Redis running/,
    });
    assert.equal(row(r.rows, 'store').name, 'REDIS_URL');
    assert.ok(!r.out.includes('redis-pass-88') && !r.stderr.includes('redis-pass-88'));
  });

  test('the audit receiver down, or refusing an empty batch', async () => {
    const sink = (url) => ({ upstreams: answering(), audit: { sinks: [{ type: 'webhook', url }] } });
    await expectDown(sink(`http://127.0.0.1:${refused}/audit`), 'audit', { detail: /Connection refused/, hint: /is the audit receiver running/ });
    audit.setMode('refuse');
    try {
      await expectDown(sink(audit.url), 'audit', { detail: /answered HTTP 400/, hint: /refused an empty batch/ });
    } finally {
      audit.setMode('ok');
    }
  });

  test('the OTLP receiver down', async () => {
    await expectDown({ upstreams: answering(), tracing: { otlpEndpoint: `http://127.0.0.1:${refused}` } }, 'tracing', {
      detail: /Connection refused/,
      hint: /is the OTLP collector running/,
    });
  });

  test('the discovery source down, or serving a document gate would reject', async () => {
    await expectDown({ upstreams: answering(), discovery: { url: `http://127.0.0.1:${refused}/registry` } }, 'discovery', {
      detail: /Connection refused/,
      hint: /is the discovery source running/,
    });
    source.serve({ upstreams: [{ id: 'x' }] });
    try {
      await expectDown({ upstreams: answering(), discovery: { url: source.url } }, 'discovery', { detail: /rejected/, hint: /fix it at the source/ });
    } finally {
      source.serve({ upstreams: [{ id: 'found', url: found.url, namespace: 'found' }] });
    }
  });

  test('a configuration that is wrong is refused at its pointer with exit 2, nothing tried', async () => {
    const before = audit.attempts.length;
    const r = await check({ upstreams: [{ id: 'up', url: 'ftp://nowhere', namespace: 'up' }], audit: { sinks: [{ type: 'webhook', url: audit.url }] } });
    assert.equal(r.code, 2);
    assert.equal(r.out, '');
    assert.match(r.stderr, /config error at \/upstreams\/0\/url: /);
    assert.equal(audit.attempts.length, before, 'nothing was tried');
  });

  test('a command line that is wrong exits 2', async () => {
    for (const args of [['check'], ['check', '--config'], ['check', '--config', 'x.json', '--timeout-ms', '0'], ['check', '--bogus']]) {
      const r = await runGate(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /usage: gate check/);
    }
  });
});
