// gate on two io threads (--io-threads 2, docs/io-threads.md) keeps one set of users' accounts
// and one token endpoint's ledger for the whole process, against the real binary: a real
// authorization server (oidc-provider) and a person signing in in headless Chromium, an SDK
// upstream that accepts only that server's tokens, SDK clients whose sessions are held by each
// thread; and auth.ema's assertions redeemed and replayed over fresh connections, which the
// first thread hands to each thread in turn.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { chromium } from 'playwright-core';

import { EMA_RESOURCE, idJag, jwtBearerGrant } from './lib/id-jag.mjs';
import { connectClient, rawRequest, startEverything, startGate, startIdp, threadOf } from './lib/index.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';
import { signIn } from './lib/sign-in.mjs';
import { startThirdPartyAs } from './lib/third-party-as.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';
const text = (r) => r.content.map((c) => c.text).join('');

describe('user-account upstreams across io threads', { timeout: 180_000 }, () => {
  let idp;
  let as;
  let files;
  let gate;
  let browser;
  let aliceToken;
  const sessions = []; // { client, thread }

  const connect = async (elicit) => {
    const client = new Client(
      { name: 'as-alice', version: '0.0.0' },
      { capabilities: elicit ? { elicitation: { url: {} } } : {} },
    );
    if (elicit) client.setRequestHandler(ElicitRequestSchema, async (req) => elicit(req.params));
    const transport = new StreamableHTTPClientTransport(new URL(gate.url), {
      requestInit: { headers: { authorization: `Bearer ${aliceToken}` } },
    });
    await client.connect(transport);
    return { client, thread: threadOf(transport.sessionId, 2) };
  };

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM}`);
    idp = await startIdp();
    as = await startThirdPartyAs();
    files = await startPerUserServer(async (token) => as.verify(token, files.url), { authorizationServer: as.issuer });
    const config = (publicUrl) => ({
      audit: { sinks: [{ type: 'stdout' }] },
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      server: { publicUrl },
      upstreams: [{ id: 'files', url: files.url, namespace: 'files', auth: { strategy: 'user-account', scopes: ['files:read'] } }],
    });
    gate = await startGate({ config: config('http://127.0.0.1:1'), args: ['--io-threads', '2'] });
    await gate.reloaded(config(gate.base)); // the public URL names gate's own port
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    aliceToken = await idp.mint({ sub: 'alice', aud: RESOURCE });
  });

  after(async () => {
    for (const s of sessions) await s.client.close().catch(() => {});
    await browser?.close();
    await gate?.stop();
    await files?.stop();
    await as?.stop();
    await idp?.stop();
  });

  test("a user's login through one thread serves that user's sessions on every thread", async () => {
    let signedIn;
    const first = await connect(async (params) => {
      signedIn = signIn(browser, params.url, 'alice'); // the user opens it; the client accepts
      return { action: 'accept' };
    });
    sessions.push(first);
    // Sessions without URL elicitation (a call that needs a login fails at once) until each
    // thread holds one (each session's id names its thread).
    const plainOn = (thread) => sessions.slice(1).find((s) => s.thread === thread);
    while (!(plainOn(0) && plainOn(1)) && sessions.length < 32) sessions.push(await connect());
    assert.ok(plainOn(0) && plainOn(1), `a session on each thread: ${sessions.map((s) => s.thread)}`);
    const other = plainOn(1 - first.thread);

    assert.equal(text(await first.client.callTool({ name: 'files__whoami', arguments: {} })), 'alice');
    assert.match((await signedIn).outcome, /connected/);
    // The other thread's session calls on the same account: no login, the same grant.
    assert.equal(text(await other.client.callTool({ name: 'files__whoami', arguments: {} })), 'alice');
    assert.equal(as.grants.authorization_code, 1);
    assert.deepEqual(files.violations, []);
  });

  test("a user's connections are the process's: listed and forgotten once, for every thread", async () => {
    const headers = { authorization: `Bearer ${aliceToken}` };
    // Fresh connections, each handed to the next thread in turn: both see the one connection.
    for (let i = 0; i < 2; ++i) {
      const listed = await rawRequest(`${gate.base}/api/connections`, { method: 'GET', headers });
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(JSON.parse(listed.text).connections.map((c) => c.upstream), ['files']);
    }
    const gone = await rawRequest(`${gate.base}/api/connections/files`, { method: 'DELETE', headers });
    assert.equal(gone.status, 204, gone.text);
    // Every thread's session now needs a login again.
    for (const thread of [0, 1]) {
      const s = sessions.slice(1).find((x) => x.thread === thread);
      await assert.rejects(s.client.callTool({ name: 'files__whoami', arguments: {} }), (e) => e instanceof UrlElicitationRequiredError,
        `thread ${thread}'s session no longer holds the token`);
    }
  });
});

describe('auth.ema across io threads', { timeout: 90_000 }, () => {
  let everything;
  let idp;
  let gate;
  const SIGNING_KEY = execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'], {
    encoding: 'utf8',
  });

  // A token request on a connection of its own: the first thread hands each new connection to
  // the next thread in turn, so consecutive requests are answered by both threads.
  const redeemFresh = async (assertion) => {
    const r = await rawRequest(`${gate.base}/oauth/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(jwtBearerGrant(assertion)).toString(),
    });
    return { status: r.status, body: JSON.parse(r.text) };
  };

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    gate = await startGate({
      env: { GATE_SIGNING_KEY: SIGNING_KEY },
      args: ['--io-threads', '2'],
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        auth: {
          mode: 'required',
          resource: EMA_RESOURCE,
          issuers: [{ issuer: idp.issuer, mode: 'exchange' }],
          ema: { idpIssuer: idp.issuer, signingKeyRef: 'GATE_SIGNING_KEY', tokenTtlSec: 120, tokenRateLimitPerMinute: 5 },
        },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test('an assertion is redeemed once in the process, the rate is the process\'s, and the provider\'s keys are fetched once', async () => {
    const assertion = await idJag(idp);
    const first = await redeemFresh(assertion);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    // Replayed on the next two connections: one of them is the other thread's.
    for (let i = 0; i < 2; ++i) {
      const replay = await redeemFresh(assertion);
      assert.equal(replay.status, 400, JSON.stringify(replay.body));
      assert.equal(replay.body.error, 'invalid_grant');
      assert.match(replay.body.error_description, /already redeemed/);
    }
    // The token minted by one thread opens the MCP endpoint on either.
    const client = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${first.body.access_token}` } } });
    try {
      assert.match((await client.callTool({ name: 'ev__echo', arguments: { message: 'minted' } })).content[0].text, /minted/);
    } finally {
      await client.close();
    }
    // Five requests a minute in all (three made, each thread answered some): two more, then
    // the sixth is refused, whichever thread answers it.
    for (let i = 0; i < 2; ++i) assert.equal((await redeemFresh(await idJag(idp))).status, 200);
    const sixth = await redeemFresh(await idJag(idp));
    assert.equal(sixth.status, 429, JSON.stringify(sixth.body));
    assert.equal(sixth.body.error, 'slow_down');
    // Both threads verified assertions against one fetch of the provider's key set.
    assert.equal(idp.fetches(), 1);
  });
});
