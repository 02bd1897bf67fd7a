// auth.introspection (docs/configuration.md, docs/security.md): gate in front of an issuer that
// hands out opaque access tokens. A real authorization server (oidc-provider, opaque tokens,
// client credentials, RFC 7662 introspection and RFC 7009 revocation) issues them; gate asks
// its introspection endpoint who each stands for, as a client of it, and remembers the answer
// by the token's digest for at most cacheSeconds.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, test } from 'node:test';

import { connectClient, startEverything, startGate } from './lib/index.mjs';
import { startThirdPartyAs } from './lib/third-party-as.mjs';

const RESOURCE = 'https://gate.example/mcp';
const INTROSPECTOR = { client_id: 'gate-introspector', client_secret: 'introspector-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'files:read' };
const ROBOT = { client_id: 'robot', client_secret: 'robot-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'files:read files:write' };
const INTROSPECT_PATH = '/token/introspection';

describe('auth.introspection: opaque tokens', { timeout: 120_000 }, () => {
  let as;
  let everything;
  let gate;

  const config = (cacheSeconds) => ({
    auth: {
      mode: 'required',
      resource: RESOURCE,
      introspection: { url: as.introspectionEndpoint, clientId: INTROSPECTOR.client_id, clientAuth: { type: 'client_secret_basic', secretRef: 'INTROSPECTION_SECRET' }, issuer: as.issuer, cacheSeconds },
    },
    audit: { sinks: [{ type: 'stdout' }] },
    upstreams: [{ id: 'every', url: everything.url, namespace: 'every' }],
  });
  const asked = () => as.requests[INTROSPECT_PATH] ?? 0;
  const listAs = (token) =>
    fetch(gate.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '0' } } }),
    });

  before(async () => {
    as = await startThirdPartyAs({ accessTokenFormat: 'opaque', clients: [INTROSPECTOR, ROBOT] });
    everything = await startEverything();
    gate = await startGate({ config: config(60), env: { INTROSPECTION_SECRET: INTROSPECTOR.client_secret } });
  });

  after(async () => {
    await gate?.stop();
    await everything?.stop();
    await as?.stop();
  });

  test("an opaque token is accepted as the principal its issuer's introspection endpoint names", async () => {
    const token = await as.clientToken(ROBOT.client_id, ROBOT.client_secret, RESOURCE);
    assert.ok(!token.includes('.'), `an opaque token: ${token}`);
    const before = asked();
    const client = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const tools = await client.listTools();
    assert.ok(tools.tools.some((t) => t.name === 'every__echo'));
    const echoed = await client.callTool({ name: 'every__echo', arguments: { message: 'hi' } });
    assert.match(echoed.content[0].text, /hi/);
    assert.equal(asked() - before, 1, 'asked once, then remembered');
    await client.close();
    const events = await gate.waitForAudit((evs) => evs.some((e) => e.method === 'tools/call' && e.principal === 'robot'));
    const call = events.find((e) => e.method === 'tools/call' && e.principal === 'robot');
    assert.equal(call.issuer, as.issuer);
    for (const e of events) assert.ok(!JSON.stringify(e).includes(token), 'no token in the audit');

    // Refused, each with the reason: made up, for another resource, revoked.
    const madeUp = await listAs('not-a-token-anyone-issued');
    assert.equal(madeUp.status, 401);
    assert.match(madeUp.headers.get('www-authenticate'), /error="invalid_token"/);
    assert.match((await madeUp.json()).error_description, /not active/);
    const elsewhere = await as.clientToken(ROBOT.client_id, ROBOT.client_secret, 'https://other.example/mcp');
    const wrongAudience = await listAs(elsewhere);
    assert.equal(wrongAudience.status, 401);
    assert.match((await wrongAudience.json()).error_description, /not for this resource/);
  });

  test('an answer is believed for cacheSeconds; a refused token is asked about once', async () => {
    await gate.stop(); // the auth section changes with a restart
    gate = await startGate({ config: config(1), env: { INTROSPECTION_SECRET: INTROSPECTOR.client_secret } });
    // A flood of one bad token asks the endpoint once.
    const before = asked();
    const refusals = await Promise.all(Array.from({ length: 20 }, () => listAs('forged-opaque-token')));
    for (const r of refusals) assert.equal(r.status, 401);
    assert.equal(asked() - before, 1, 'one question for the same refused token');
    // A revoked token stops working once the answer's second has passed, not before gate asks.
    const token = await as.clientToken(ROBOT.client_id, ROBOT.client_secret, RESOURCE);
    assert.equal((await listAs(token)).status, 200);
    await as.revoke(ROBOT.client_id, ROBOT.client_secret, token);
    const deadline = Date.now() + 5000;
    let status = 200;
    while (status === 200 && Date.now() < deadline) status = (await listAs(token)).status;
    assert.equal(status, 401, 'the revoked token is refused within cacheSeconds');
  });

  test('a flood of distinct made-up tokens asks a stalled endpoint at most 64 questions at once', async () => {
    // An introspection endpoint that holds every question until told to answer (inactive).
    const held = [];
    let seen = 0;
    const stalled = createServer((req, res) => {
      req.resume();
      seen += 1;
      held.push(res);
    });
    await new Promise((resolve) => stalled.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${stalled.address().port}/introspect`;
    await gate.stop();
    const cfg = config(60);
    cfg.auth.introspection = { ...cfg.auth.introspection, url, issuer: undefined };
    gate = await startGate({ config: cfg, env: { INTROSPECTION_SECRET: INTROSPECTOR.client_secret } });
    try {
      const flood = Array.from({ length: 70 }, (_, i) => listAs(`made-up-${i}-${'x'.repeat(20)}`));
      // Those beyond the bound are refused at once, naming why, while 64 wait.
      const early = await Promise.all(flood.slice(64));
      for (const r of early) {
        assert.equal(r.status, 401);
        assert.match((await r.json()).error_description, /is asked about 64 other tokens at once; try again shortly/);
      }
      const deadline = Date.now() + 5000;
      while (held.length < 64 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      assert.equal(held.length, 64, 'the 64 questions in flight reached the endpoint');
      for (const res of held.splice(0)) res.writeHead(200, { 'content-type': 'application/json' }).end('{"active":false}');
      for (const r of await Promise.all(flood.slice(0, 64))) {
        assert.equal(r.status, 401);
        assert.match((await r.json()).error_description, /not active/);
      }
      // Answered, the bound frees: the next unknown token is asked about.
      const next = listAs('made-up-after-the-flood');
      while (held.length === 0) await new Promise((r) => setImmediate(r));
      held.pop().writeHead(200, { 'content-type': 'application/json' }).end('{"active":false}');
      assert.equal((await next).status, 401);
      assert.equal(seen, 65, 'the 6 beyond the bound were never asked about');
    } finally {
      await gate.stop();
      gate = null;
      stalled.closeAllConnections();
      await new Promise((resolve) => stalled.close(resolve));
    }
  });
});
