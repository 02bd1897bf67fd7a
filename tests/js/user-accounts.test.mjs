// Each user's own account at a third-party upstream (strategy `user-account`,
// docs/user-accounts.md), against the real binary, a real authorization server (oidc-provider,
// with its own sign-in and consent pages, dynamic registration, resource indicators, refresh
// tokens, RFC 9207 `iss`), an SDK upstream that accepts only that server's tokens for its own
// URL, SDK clients with and without URL elicitation, and a person signing in in headless
// Chromium. Then the login's doors attacked: a replayed or made-up state, a callback from
// another browser, a mix-up, a link that is not one, an authorization server that is down.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ElicitRequestSchema,
  ElicitationCompleteNotificationSchema,
  UrlElicitationRequiredError,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { chromium } from 'playwright-core';

import { freePort } from './lib/free-port.mjs';
import { startGate, startIdp } from './lib/index.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';
import { signIn } from './lib/sign-in.mjs';
import { startThirdPartyAs } from './lib/third-party-as.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';
const text = (r) => r.content.map((c) => c.text).join('');

describe('user-account upstreams', { timeout: 180_000 }, () => {
  let idp;
  let as;
  let files;
  let gate;
  let browser;
  const revoked = new Set(); // tokens the upstream stops accepting (as if revoked at its server)
  const tokenFor = {};
  let config;

  const connect = async (user, { urlElicitation, onElicit, onComplete } = {}) => {
    tokenFor[user] ??= await idp.mint({ sub: user, aud: RESOURCE });
    const client = new Client(
      { name: `as-${user}`, version: '0.0.0' },
      { capabilities: urlElicitation ? { elicitation: { url: {} } } : {} },
    );
    if (urlElicitation) {
      client.setRequestHandler(ElicitRequestSchema, async (req) => onElicit(req.params));
      client.setNotificationHandler(ElicitationCompleteNotificationSchema, (n) => onComplete?.(n.params));
    }
    const transport = new StreamableHTTPClientTransport(new URL(gate.url), {
      requestInit: { headers: { authorization: `Bearer ${tokenFor[user]}` } },
    });
    await client.connect(transport);
    return client;
  };

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM}`);
    idp = await startIdp();
    as = await startThirdPartyAs();
    files = await startPerUserServer(async (token) => (revoked.has(token) ? null : as.verify(token, files.url)), {
      authorizationServer: as.issuer,
      scoped: { tool: 'write_file', scope: 'files:write' },
      scopeOf: async (token) => (await as.claims(token, files.url))?.scope,
    });
    const downAs = `http://127.0.0.1:${await freePort()}`; // nothing listens there
    config = (publicUrl) => ({
      audit: { sinks: [{ type: 'stdout' }] },
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      server: { publicUrl, introspection: { enabled: true }, console: { enabled: true } },
      upstreams: [
        { id: 'files', url: files.url, namespace: 'files', auth: { strategy: 'user-account', scopes: ['files:read'] } },
        { id: 'dark', url: files.url, namespace: 'dark', auth: { strategy: 'user-account', authorizationServer: downAs } },
      ],
    });
    // The public URL names gate's own port, known once it listens: a reload sets it.
    gate = await startGate({ config: config('http://127.0.0.1:1') });
    await gate.reloaded(config(gate.base));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    await gate?.stop();
    await files?.stop();
    await as?.stop();
    await idp?.stop();
  });

  test('a client with URL elicitation is sent to the login on the call, and the call completes', async () => {
    const asked = [];
    const completed = [];
    let signedIn;
    const alice = await connect('alice', {
      urlElicitation: true,
      onElicit: async (params) => {
        asked.push(params);
        signedIn = signIn(browser, params.url, 'alice'); // the user opens it; the client accepts
        return { action: 'accept' };
      },
      onComplete: (p) => completed.push(p.elicitationId),
    });
    const r = await alice.callTool({ name: 'files__whoami', arguments: {} });
    assert.equal(text(r), 'alice', 'the call ran on alice\'s own account at the upstream');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode, 'url');
    assert.ok(asked[0].url.startsWith(`${gate.base}/oauth/connect?login=`), asked[0].url);
    assert.deepEqual(completed, [asked[0].elicitationId]);
    assert.match((await signedIn).outcome, /connected/);
    assert.equal(as.grants.authorization_code, 1);
    assert.equal(as.grants.registration ?? 0, 0);
    // The next calls need nothing.
    assert.equal(text(await alice.callTool({ name: 'files__whoami', arguments: {} })), 'alice');
    assert.equal(asked.length, 1);
    assert.deepEqual(files.violations, []);
    const events = gate.auditEvents().filter((e) => e.method === 'tools/call' && String(e.principal).includes('alice'));
    assert.ok(events.length >= 1);
    for (const e of gate.auditEvents()) assert.ok(!JSON.stringify(e).includes('eyJ'), 'no token in the audit');
    const told = gate.auditEvents().filter((e) => e.method?.startsWith('account.') && e.principal === 'alice');
    assert.deepEqual(told.map((e) => e.method), ['account.loginStarted', 'account.connected']);
    assert.ok(told.every((e) => e.upstream === 'files' && e.issuer === idp.issuer));
    const metrics = await (await fetch(`${gate.base}/metrics`)).text();
    assert.match(metrics, /gate_user_account_events_total\{[^}]*event="connected"[^}]*\} [1-9]/);
    await alice.close();
  });

  test('a client without URL elicitation gets the login in the error, opens it, and calls again', async () => {
    const bob = await connect('bob');
    // Before any login there is nothing of bob's to list there: an empty list, not a failure.
    assert.deepEqual((await bob.listTools()).tools, []);
    let err;
    try {
      await bob.callTool({ name: 'files__whoami', arguments: {} });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof UrlElicitationRequiredError, `got ${err}`);
    assert.equal(err.code, -32042);
    const [elicitation] = err.elicitations;
    assert.equal(elicitation.mode, 'url');
    assert.match(err.message, /upstream files needs your own account/);
    const { outcome, callbacks } = await signIn(browser, elicitation.url, 'bob');
    assert.match(outcome, /connected/);
    assert.equal(text(await bob.callTool({ name: 'files__whoami', arguments: {} })), 'bob');
    assert.deepEqual((await bob.listTools()).tools.map((t) => t.name).sort(), ['files__only_bob', 'files__whoami', 'files__write_file']);
    // Each sees only its own account.
    assert.ok(files.seen.some((s) => s.user === 'alice') && files.seen.some((s) => s.user === 'bob'));
    assert.deepEqual(files.violations, []);

    // The redirect's state is single-use: the same callback again is refused.
    const replay = await fetch(callbacks.at(-1));
    assert.equal(replay.status, 404);
    assert.match(await replay.text(), /cannot be used/);
    // A made-up state, and a link that is not one.
    assert.equal((await fetch(`${gate.base}/oauth/callback?state=${'a'.repeat(32)}&code=x`)).status, 404);
    assert.equal((await fetch(`${gate.base}/oauth/connect?login=../../etc`)).status, 404);
    await bob.close();
    // A call that waited for a login never reached the upstream: not an upstream failure.
    const series = (await (await fetch(`${gate.base}/metrics`)).text())
      .split('\n')
      .filter((l) => l.startsWith('gate_upstream_requests_total{') && l.includes('upstream="files"'));
    assert.ok(series.some((l) => l.includes('outcome="ok"') && /\} [1-9]/.test(l)), series.join('\n'));
    assert.ok(!series.some((l) => l.includes('outcome="connect_error"')), series.join('\n'));
  });

  test('a token the upstream refuses is forgotten: the call asks for a login, and the next token serves', async () => {
    const judy = await connect('judy');
    const whoami = () => judy.callTool({ name: 'files__whoami', arguments: {} });
    const login = await whoami().catch((e) => e);
    assert.ok(login instanceof UrlElicitationRequiredError, `got ${login}`);
    assert.match((await signIn(browser, login.elicitations[0].url, 'judy')).outcome, /connected/);
    assert.equal(text(await whoami()), 'judy');
    for (const s of files.seen) if (s.user === 'judy') revoked.add(s.token);
    const err = await whoami().catch((e) => e);
    assert.ok(err instanceof UrlElicitationRequiredError, `got ${err}`);
    await gate.waitForAudit((evs) => evs.some((e) => e.method === 'account.refused' && e.upstream === 'files' && e.principal === 'judy'));
    assert.match((await signIn(browser, err.elicitations[0].url, 'judy')).outcome, /connected/);
    assert.equal(text(await whoami()), 'judy');
    await judy.close();
  });

  test('an upstream asking for more scope sends the user to a login for it (step-up)', async () => {
    const bob = await connect('bob'); // connected above, with files:read
    let err;
    try {
      await bob.callTool({ name: 'files__write_file', arguments: {} });
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof UrlElicitationRequiredError, `got ${err}`);
    const { outcome, authorize } = await signIn(browser, err.elicitations[0].url, 'bob');
    assert.match(outcome, /connected/);
    assert.equal(new URL(authorize).searchParams.get('scope'), 'files:read files:write');
    assert.equal(text(await bob.callTool({ name: 'files__write_file', arguments: {} })), 'write_file ran for bob');
    assert.equal(text(await bob.callTool({ name: 'files__whoami', arguments: {} })), 'bob');
    await bob.close();
  });

  test('a user lists and disconnects its own connections, and only its own', async () => {
    const as_ = (user) => ({ authorization: `Bearer ${tokenFor[user]}` });
    const listOf = async (user) => {
      const r = await fetch(`${gate.base}/api/connections`, { headers: as_(user) });
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('cache-control'), 'no-store');
      const body = await r.text();
      assert.ok(!body.includes('eyJ'), 'no token in the listing');
      return JSON.parse(body).connections;
    };
    const bobs = await listOf('bob');
    assert.deepEqual(bobs.map((c) => c.upstream), ['files']);
    assert.equal(bobs[0].scope, 'files:read files:write');
    assert.equal(bobs[0].refreshable, true);
    assert.match(bobs[0].connectedAt, /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual((await listOf('alice')).map((c) => c.upstream), ['files']);
    assert.equal((await fetch(`${gate.base}/api/connections`)).status, 401, 'only a verified caller');
    const remove = (user, id) => fetch(`${gate.base}/api/connections/${id}`, { method: 'DELETE', headers: as_(user) });
    assert.equal((await remove('bob', '..%2Ffiles')).status, 404);
    assert.equal((await remove('bob', 'dark')).status, 404, 'nothing connected there');
    assert.equal((await remove('bob', 'files')).status, 204);
    assert.deepEqual(await listOf('bob'), []);
    // The grant is revoked where it was issued (RFC 7009), not only forgotten by gate: as the
    // client it was issued to, and only bob's.
    await gate.waitForAudit((evs) => evs.some((e) => e.method === 'account.grantRevoked' && e.principal === 'bob' && e.upstream === 'files'));
    assert.equal(as.revoked.filter((r) => r.account === 'bob').length, 1);
    assert.ok(as.revoked.every((r) => r.account !== 'alice'), "alice's grant is untouched");
    assert.match(as.revoked[0].client ?? '', /./);
    assert.equal((await remove('bob', 'files')).status, 404);
    // Alice's account is hers: still connected, her calls need nothing.
    const alice = await connect('alice');
    assert.equal(text(await alice.callTool({ name: 'files__whoami', arguments: {} })), 'alice');
    await alice.close();
    // Bob's next call asks him to log in again.
    const bob = await connect('bob');
    await assert.rejects(bob.callTool({ name: 'files__whoami', arguments: {} }), (e) => e instanceof UrlElicitationRequiredError);
    await bob.close();
    await gate.waitForAudit((evs) => evs.some((e) => e.method === 'account.disconnected' && e.principal === 'bob' && e.upstream === 'files'));
  });

  test('a 2026-07-28 client gets input_required with the login, and its retry carries on', async () => {
    tokenFor.erin = await idp.mint({ sub: 'erin', aud: RESOURCE });
    const asked = [];
    let signedIn;
    const erin = new ModernClient(
      { name: 'erin', version: '0.0.0' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    erin.setRequestHandler('elicitation/create', async (req) => {
      asked.push(req.params);
      signedIn = signIn(browser, req.params.url, 'erin'); // the user opens it; the client accepts
      return { action: 'accept' };
    });
    await erin.connect(
      new ModernTransport(new URL(gate.url), { requestInit: { headers: { authorization: `Bearer ${tokenFor.erin}` } } }),
    );
    assert.equal(erin.getNegotiatedProtocolVersion(), '2026-07-28');
    const r = await erin.callTool({ name: 'files__whoami', arguments: {} });
    assert.equal(text(r), 'erin');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].mode, 'url');
    assert.match((await signedIn).outcome, /connected/);
    assert.equal(text(await erin.callTool({ name: 'files__whoami', arguments: {} })), 'erin');
    assert.equal(asked.length, 1, 'the next call needs nothing');
    // gate's requestState never reached the upstream.
    const calls = files.seen.filter((s) => s.rpcMethod === 'tools/call' && s.user === 'erin');
    assert.ok(calls.length >= 2);
    for (const c of calls) assert.deepEqual(Object.keys(c.params).sort(), ['_meta', 'arguments', 'name'].filter((k) => k in c.params).sort());
    assert.ok(!JSON.stringify(files.seen).includes('gate.login'));
    await erin.close();
  });

  test('a 2026-07-28 client whose user declines the login gets the error at once, with the link', async () => {
    tokenFor.frank = await idp.mint({ sub: 'frank', aud: RESOURCE });
    const frank = new ModernClient(
      { name: 'frank', version: '0.0.0' },
      { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    let asked = 0;
    frank.setRequestHandler('elicitation/create', async () => ((asked += 1), { action: 'decline' }));
    await frank.connect(
      new ModernTransport(new URL(gate.url), { requestInit: { headers: { authorization: `Bearer ${tokenFor.frank}` } } }),
    );
    // Held for the login, this call would wait ten minutes; it is answered now.
    const err = await frank.callTool({ name: 'files__whoami', arguments: {} }, { timeout: 15_000 }).then(
      (r) => assert.fail(`expected the login's error, got ${JSON.stringify(r)}`),
      (e) => e,
    );
    assert.equal(asked, 1);
    assert.match(String(err.message), /needs your own account there: open http:\/\/127\.0\.0\.1:\d+\/oauth\/connect\?login=/);
    await frank.close();
  });

  test('gate serves its client metadata document, its client_id where a server takes them', async () => {
    // publicUrl is http here: no document of gate's own (CIMD needs https) ...
    const none = await fetch(`${gate.base}/oauth/client-metadata.json`);
    assert.equal(none.status, 404);
    assert.match((await none.json()).error, /server.publicUrl is not https/);
    // ... until one is configured: the document names it as the client_id and gate's callback.
    const url = 'https://gate.example.com/oauth/client-metadata.json';
    await gate.reloaded({ ...config(gate.base), server: { ...config(gate.base).server, clientMetadataUrl: url } });
    const doc = await (await fetch(`${gate.base}/oauth/client-metadata.json`)).json();
    assert.equal(doc.client_id, url);
    assert.deepEqual(doc.redirect_uris, [`${gate.base}/oauth/callback`]);
    assert.equal(doc.token_endpoint_auth_method, 'none');
    assert.equal((await fetch(`${gate.base}/oauth/client-metadata.json`, { method: 'POST' })).status, 405);
    await gate.reloaded(config(gate.base));
  });

  test("the console shows a user's own connections and disconnects one, in Chromium", async () => {
    const hana = await connect('hana');
    let url;
    await hana.callTool({ name: 'files__whoami', arguments: {} }).catch((e) => (url = e.elicitations?.[0]?.url));
    assert.ok(url, 'sent to a login');
    assert.match((await signIn(browser, url, 'hana')).outcome, /connected/);
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    try {
      await page.goto(`${gate.base}/console/`);
      await page.waitForSelector('#signin:not([hidden])');
      await page.fill('#token', tokenFor.hana);
      await page.click('#signin button[type=submit]');
      await page.waitForSelector('#connections-section:not([hidden]) #connections tbody tr');
      const rows = await page.$$eval('#connections tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
      assert.deepEqual(rows.map((r) => r[0]), ['files'], 'only hana\'s own, at files');
      assert.equal(rows[0][1], 'files:read');
      assert.ok(!(await page.content()).includes(tokenFor.hana.slice(-20)), 'no token on the page');
      await page.click('button[aria-label="Disconnect your account at files"]');
      await page.waitForSelector('#connections-none:not([hidden])');
      assert.match(await page.textContent('#status'), /Disconnected your account at files/);
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
    }
    // The next call asks for a login again.
    const again = await hana.callTool({ name: 'files__whoami', arguments: {} }).then(() => null, (e) => e);
    assert.ok(again instanceof UrlElicitationRequiredError, `got ${again}`);
    await hana.close();
  });

  test('a callback from another browser, or naming another issuer, connects nothing', async () => {
    const carol = await connect('carol');
    const offered = async () => {
      try {
        await carol.callTool({ name: 'files__whoami', arguments: {} });
      } catch (e) {
        return e.elicitations[0].url;
      }
      assert.fail('expected a login');
    };
    const url = await offered();
    // The connect page names the user, cannot be framed and is not kept.
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const go = async (link) => {
      const login = new URL(link).searchParams.get('login');
      const r = await fetch(`${gate.base}/oauth/connect`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gate.base },
        body: `login=${login}`,
        redirect: 'manual',
      });
      assert.equal(r.status, 302);
      const to = new URL(r.headers.get('location'));
      assert.equal(to.origin, as.issuer);
      assert.equal(to.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(to.searchParams.get('resource'), files.url);
      assert.equal(to.searchParams.get('scope'), 'files:read');
      return { state: to.searchParams.get('state'), cookie: r.headers.get('set-cookie').split(';')[0] };
    };
    // Another browser (no cookie): refused, and that login is over.
    const first = await go(url);
    const stranger = await fetch(`${gate.base}/oauth/callback?state=${first.state}&code=x&iss=${encodeURIComponent(as.issuer)}`);
    assert.equal(stranger.status, 400);
    assert.match(await stranger.text(), /another browser/);
    // The right browser, but an answer naming another issuer (a mix-up): refused.
    const again = await offered();
    assert.notEqual(again, url, 'a failed login is not offered again');
    const second = await go(again);
    const mixed = await fetch(`${gate.base}/oauth/callback?state=${second.state}&code=x&iss=http%3A%2F%2Fevil.example`, {
      headers: { cookie: second.cookie },
    });
    assert.equal(mixed.status, 400);
    assert.match(await mixed.text(), /did not come from/);
    // A form posted from another site is refused before it is read (stage 1, Origin).
    const forged = await fetch(`${gate.base}/oauth/connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example' },
      body: `login=${new URL(again).searchParams.get('login')}`,
      redirect: 'manual',
    });
    assert.equal(forged.status, 403);
    // Nothing was connected: carol is still asked.
    assert.match(await offered(), /\/oauth\/connect\?login=/);
    await carol.close();
  });

  test('racing calls share one login; no redirect goes where a request names; a token endpoint answering garbage fails the login plainly', async () => {
    const ivan = await connect('ivan');
    const started = () => gate.auditEvents().filter((e) => e.method === 'account.loginStarted' && e.principal === 'ivan').length;
    // Two calls at once with no token: one login, the same link for both.
    const raced = await Promise.allSettled([1, 2].map(() => ivan.callTool({ name: 'files__whoami', arguments: {} })));
    const links = raced.map((r) => {
      assert.equal(r.status, 'rejected', JSON.stringify(r.value));
      assert.ok(r.reason instanceof UrlElicitationRequiredError, `got ${r.reason}`);
      return r.reason.elicitations[0].url;
    });
    assert.equal(links[0], links[1], 'one login for both calls');
    await gate.waitForAudit((evs) => evs.some((e) => e.method === 'account.loginStarted' && e.principal === 'ivan'));
    assert.equal(started(), 1);
    // Redirect targets named in the requests are not followed: the authorization request goes
    // to the server's own endpoint with gate's own redirect URI, the callback redirects nowhere.
    const login = new URL(links[0]).searchParams.get('login');
    const evil = encodeURIComponent('https://evil.example/steal');
    const form = await fetch(`${gate.base}/oauth/connect`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gate.base },
      body: `login=${login}&redirect_uri=${evil}&next=${evil}&return_to=${evil}`,
      redirect: 'manual',
    });
    assert.equal(form.status, 302);
    const to = new URL(form.headers.get('location'));
    assert.equal(`${to.origin}${to.pathname}`, `${as.issuer}/auth`);
    assert.equal(to.searchParams.get('redirect_uri'), `${gate.base}/oauth/callback`);
    assert.ok(!form.headers.get('location').includes('evil'), form.headers.get('location'));
    const back = await fetch(`${gate.base}/oauth/callback?state=${to.searchParams.get('state')}&code=x&redirect_uri=${evil}&next=${evil}`, {
      headers: { cookie: form.headers.get('set-cookie').split(';')[0] },
      redirect: 'manual',
    });
    assert.equal(back.headers.get('location'), null, 'the callback redirects nowhere');
    assert.ok(!(await back.text()).includes('evil.example'));
    // A token endpoint that answers a page instead of a token: the login fails with a page
    // saying so, nothing of the page is echoed, and the next call offers another login.
    as.faults.tokenEndpoint = 'garbage';
    try {
      const link = await ivan.callTool({ name: 'files__whoami', arguments: {} }).then(
        () => assert.fail('expected a login'),
        (e) => e.elicitations[0].url,
      );
      const { outcome } = await signIn(browser, link, 'ivan');
      assert.match(outcome, /did not redeem the login \(the token endpoint's answer has no usable access_token\)/);
      assert.ok(!outcome.includes('not a token') && !outcome.includes('Set-Cookie'));
      as.faults.tokenEndpoint = 'error';
      const link2 = await ivan.callTool({ name: 'files__whoami', arguments: {} }).then(
        () => assert.fail('expected a login'),
        (e) => e.elicitations[0].url,
      );
      assert.notEqual(link2, link);
      assert.match((await signIn(browser, link2, 'ivan')).outcome, /did not redeem the login \(the token endpoint answered HTTP 500\)/);
    } finally {
      as.faults.tokenEndpoint = null;
    }
    const failed = gate.auditEvents().filter((e) => e.method === 'account.loginFailed' && e.principal === 'ivan');
    assert.equal(failed.length, 3, 'the made-up code, the garbage, the 500');
    // The server mended, ivan connects.
    const link3 = await ivan.callTool({ name: 'files__whoami', arguments: {} }).then(
      () => assert.fail('expected a login'),
      (e) => e.elicitations[0].url,
    );
    assert.match((await signIn(browser, link3, 'ivan')).outcome, /connected/);
    assert.equal(text(await ivan.callTool({ name: 'files__whoami', arguments: {} })), 'ivan');
    await ivan.close();
  });

  test('an authorization server that is down is named in the error', async () => {
    const dave = await connect('dave');
    await assert.rejects(dave.callTool({ name: 'dark__whoami', arguments: {} }), (e) => {
      assert.equal(e.code, -32041);
      assert.match(e.message, /upstream dark unavailable: the authorization server http:\/\/127\.0\.0\.1:\d+ of upstream dark could not be reached/);
      return true;
    });
    await dave.close();
  });

  test('a grant its server cannot revoke is forgotten by gate anyway, and the failure audited', async () => {
    const alice = await connect('alice');
    assert.equal(text(await alice.callTool({ name: 'files__whoami', arguments: {} })), 'alice');
    await alice.close();
    await as.stop(); // its revocation endpoint no longer answers (after() stops it again: harmless)
    const stopped = as;
    const r = await fetch(`${gate.base}/api/connections/files`, { method: 'DELETE', headers: { authorization: `Bearer ${tokenFor.alice}` } });
    assert.equal(r.status, 204);
    const evs = await gate.waitForAudit((all) => all.some((e) => e.method === 'account.grantRevokeFailed' && e.principal === 'alice'));
    const failed = evs.find((e) => e.method === 'account.grantRevokeFailed' && e.principal === 'alice');
    assert.equal(failed.outcome, 'error');
    assert.match(failed.error, new RegExp(`^the revocation endpoint ${stopped.issuer}/token/revocation: `));
    assert.ok(!JSON.stringify(evs).includes('eyJ'), 'no token in the audit');
    const listed = await (await fetch(`${gate.base}/api/connections`, { headers: { authorization: `Bearer ${tokenFor.alice}` } })).json();
    assert.deepEqual(listed.connections, []);
  });
});
