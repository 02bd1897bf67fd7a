// user-account upstreams in a fleet (docs/user-accounts.md): two real gates over a real
// Redis, a real authorization server (oidc-provider) and a person signing in in headless
// Chromium. A login finished through one gate serves calls through the other; a token due for
// refresh is refreshed once for both; what Redis holds is sealed (AES-256-GCM) and a record
// copied under another user's name does not open; both gates restarted keep the logins.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';
import { chromium } from 'playwright-core';

import { startGate, startIdp } from './lib/index.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';
import { startRedis } from './lib/redis.mjs';
import { signIn } from './lib/sign-in.mjs';
import { startThirdPartyAs } from './lib/third-party-as.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';
const VAULT_KEY = Buffer.alloc(32, 7).toString('base64');
const text = (r) => r.content.map((c) => c.text).join('');

describe('user-account upstreams in a fleet', { timeout: 180_000 }, () => {
  let redis;
  let idp;
  let as;
  let files;
  let browser;
  let gates = [];
  const token = {};

  // The vault's keys: the current one, and the one before a rotation (absent: none).
  let keys = { current: VAULT_KEY };
  const config = (publicUrl) => ({
    auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    server: {
      publicUrl,
      vault: { keyRef: 'GATE_VAULT_KEY', operatorScope: 'gate:accounts', ...(keys.previous ? { previousKeyRef: 'GATE_VAULT_KEY_PREVIOUS' } : {}) },
    },
    audit: { sinks: [{ type: 'stdout' }] },
    upstreams: [{ id: 'files', url: files.url, namespace: 'files', auth: { strategy: 'user-account', scopes: ['files:read'] } }],
  });
  const startTwo = async () => {
    const env = { REDIS_URL: redis.url, GATE_VAULT_KEY: keys.current, ...(keys.previous ? { GATE_VAULT_KEY_PREVIOUS: keys.previous } : {}) };
    gates = await Promise.all([0, 1].map(() => startGate({ config: config('http://127.0.0.1:1'), env })));
    for (const g of gates) await g.reloaded(config(g.base));
  };
  const connect = async (gate, user) => {
    token[user] ??= await idp.mint({ sub: user, aud: RESOURCE });
    const client = new Client({ name: user, version: '0.0.0' }, { capabilities: {} });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(gate.url), { requestInit: { headers: { authorization: `Bearer ${token[user]}` } } }),
    );
    return client;
  };
  const loginOffered = async (client) => {
    try {
      await client.callTool({ name: 'files__whoami', arguments: {} });
    } catch (e) {
      assert.ok(e instanceof UrlElicitationRequiredError, `got ${e}`);
      return e.elicitations[0].url;
    }
    assert.fail('expected a login');
  };
  // Calls through `client` until it is sent to a login, bounded: what another gate forgot
  // reaches this one's memory within its follow interval (a quarter second).
  const untilLoginOffered = async (client) => {
    const deadline = Date.now() + 5000;
    for (;;) {
      try {
        await client.callTool({ name: 'files__whoami', arguments: {} });
      } catch (e) {
        assert.ok(e instanceof UrlElicitationRequiredError, `got ${e}`);
        return e.elicitations[0].url;
      }
      assert.ok(Date.now() < deadline, 'the other gate still serves the forgotten token');
      await new Promise((r) => setImmediate(r));
    }
  };
  const asUser = async (user, scope) => {
    token[`${user} ${scope}`] ??= await idp.mint({ sub: user, aud: RESOURCE, ...(scope ? { scope } : {}) });
    return { authorization: `Bearer ${token[`${user} ${scope}`]}` };
  };
  const recordKey = (user) => `gate:vault:files:${createHash('sha256').update(`${idp.issuer}\n${user}`).digest('hex').slice(0, 32)}`;
  const cli = (...args) => execFileSync('redis-cli', ['-p', String(redis.port), ...args], { encoding: 'utf8' }).trim();

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM}`);
    [redis, idp] = await Promise.all([startRedis(), startIdp()]);
    // A login's token lives 60 s: due for refresh at once, as gate counts (a minute's margin);
    // a refreshed one an hour.
    as = await startThirdPartyAs({ accessTokenTtl: 60, refreshedTokenTtl: 3600 });
    files = await startPerUserServer(async (t) => as.verify(t, files.url), { authorizationServer: as.issuer });
    await startTwo();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    for (const g of gates) await g.stop();
    await files?.stop();
    await as?.stop();
    await idp?.stop();
    await redis?.stop();
  });

  test('a login through one gate serves the other, refreshed once for both, sealed in Redis', async () => {
    const [a, b] = gates;
    const bobA = await connect(a, 'bob');
    const bobB = await connect(b, 'bob');
    const url = await loginOffered(bobA);
    assert.ok(url.startsWith(a.base), url);
    assert.match((await signIn(browser, url, 'bob')).outcome, /connected/);
    assert.equal(as.grants.authorization_code, 1);
    // Due at once: both gates call together, and the fleet refreshes it once.
    const [ra, rb] = await Promise.all([
      bobA.callTool({ name: 'files__whoami', arguments: {} }),
      bobB.callTool({ name: 'files__whoami', arguments: {} }),
    ]);
    assert.equal(text(ra), 'bob');
    assert.equal(text(rb), 'bob');
    assert.equal(as.grants.refresh_token, 1, `refreshes: ${JSON.stringify(as.grants)}`);
    // The fleet's claim on the refresh is released once it landed, not left to its 15 s: the
    // next refresh (a new login's token is due at once) does not wait it out.
    const claim = recordKey('bob').replace('gate:vault:', 'gate:vault-refresh:');
    for (const until = Date.now() + 2000; cli('EXISTS', claim) !== '0' && Date.now() < until; ) await new Promise((r) => setImmediate(r));
    assert.equal(cli('EXISTS', claim), '0', 'the refresh claim is released');
    // What Redis holds is sealed: no token, no name.
    const keys = cli('--scan', '--pattern', 'gate:vault:*').split('\n').filter(Boolean);
    assert.equal(keys.length, 1, keys.join());
    const record = cli('GET', keys[0]);
    assert.match(record, /^v1\.[0-9a-f]{8}\./);
    // Ciphertext is random: a short marker ('bob') turns up in its base64url by chance about
    // once in 250 runs, so the check reads the decoded bytes for the plaintext's own fields.
    const sealed = record.slice('v1.'.length + 8 + 1);
    assert.match(sealed, /^[A-Za-z0-9_-]+$/, 'the rest is base64url');
    const bytes = Buffer.from(sealed, 'base64url').toString('latin1');
    for (const plain of ['{"a":', '"r":', 'files:read', '"bob"'])
      assert.ok(!bytes.includes(plain) && !record.includes(plain), `the record is ciphertext (${plain})`);
    assert.ok(!keys[0].includes('bob'), 'the key names no principal');
    // Copied under carol's name it does not open: carol is asked to log in.
    const carolKey = recordKey('carol');
    cli('SET', carolKey, record);
    const carol = await connect(b, 'carol');
    assert.match(await loginOffered(carol), /\/oauth\/connect\?login=/);
    assert.deepEqual(files.violations, []);
    for (const c of [bobA, bobB, carol]) await c.close();
  });

  test('both gates restarted keep the logins', async () => {
    for (const g of gates) await g.stop();
    await startTwo();
    const grants = { ...as.grants };
    for (const g of gates) {
      const bob = await connect(g, 'bob');
      assert.equal(text(await bob.callTool({ name: 'files__whoami', arguments: {} })), 'bob');
      await bob.close();
    }
    assert.deepEqual(as.grants, grants, 'no login and no refresh was needed');
  });

  test('a key rotation: the previous key still opens, what it opens is sealed again, a foreign key opens nothing', async () => {
    const keyId = (k) => createHash('sha256').update(Buffer.from(k, 'base64')).digest('hex').slice(0, 8);
    const NEW_KEY = Buffer.alloc(32, 9).toString('base64');
    const callAsBob = async (g) => {
      const bob = await connect(g, 'bob');
      const got = text(await bob.callTool({ name: 'files__whoami', arguments: {} }));
      await bob.close();
      return got;
    };
    assert.match(cli('GET', recordKey('bob')), new RegExp(`^v1\\.${keyId(VAULT_KEY)}\\.`));
    const grants = { ...as.grants };
    for (const g of gates) await g.stop();
    keys = { current: NEW_KEY, previous: VAULT_KEY };
    await startTwo();
    assert.equal(await callAsBob(gates[0]), 'bob', 'the previous key opens the record');
    assert.match(cli('GET', recordKey('bob')), new RegExp(`^v1\\.${keyId(NEW_KEY)}\\.`), 'sealed again under the new key');
    // The previous key retired: the record was sealed again, so nothing is lost.
    for (const g of gates) await g.stop();
    keys = { current: NEW_KEY };
    await startTwo();
    for (const g of gates) assert.equal(await callAsBob(g), 'bob');
    assert.deepEqual(as.grants, grants, 'no login and no refresh was needed');
    // A key that sealed nothing here opens nothing: a login is asked, not an error.
    for (const g of gates) await g.stop();
    keys = { current: Buffer.alloc(32, 3).toString('base64') };
    await startTwo();
    const bob = await connect(gates[1], 'bob');
    assert.match(await loginOffered(bob), /\/oauth\/connect\?login=/);
    await bob.close();
    for (const g of gates) await g.stop();
    keys = { current: NEW_KEY };
    await startTwo();
    assert.equal(await callAsBob(gates[1]), 'bob');
  });

  test('a refresh token its server no longer honours asks the user to log in again, never an error loop', async () => {
    const [a, b] = gates;
    const dave = await connect(a, 'dave');
    assert.match((await signIn(browser, await loginOffered(dave), 'dave')).outcome, /connected/);
    // The login's token is due at once; the user revokes gate's access at the third party first.
    await as.endGrantsOf('dave');
    const refreshes = as.grants.refresh_token ?? 0;
    const url = await loginOffered(dave); // the refresh is refused: a new login, not an error
    assert.ok(url.startsWith(a.base), url);
    assert.equal(as.grants.refresh_token ?? 0, refreshes, 'the refused refresh issued nothing');
    await a.waitForAudit((evs) => evs.some((e) => e.method === 'account.refreshFailed' && e.principal === 'dave' && /invalid_grant/.test(e.error ?? '')));
    assert.equal(cli('EXISTS', recordKey('dave')), '0', 'the dead grant is gone from the store');
    const daveB = await connect(b, 'dave');
    assert.match(await loginOffered(daveB), /\/oauth\/connect\?login=/, 'the other gate asks too');
    // Logged in again, the calls go on, through both.
    assert.match((await signIn(browser, url, 'dave')).outcome, /connected/);
    assert.equal(text(await dave.callTool({ name: 'files__whoami', arguments: {} })), 'dave');
    assert.equal(text(await daveB.callTool({ name: 'files__whoami', arguments: {} })), 'dave');
    for (const c of [dave, daveB]) await c.close();
    const gone = await fetch(`${b.base}/api/connections/files`, { method: 'DELETE', headers: await asUser('dave') });
    assert.equal(gone.status, 204);
  });

  test("a disconnect through one gate reaches the other's memory", async () => {
    const [a, b] = gates;
    const bobB = await connect(b, 'bob');
    assert.equal(text(await bobB.callTool({ name: 'files__whoami', arguments: {} })), 'bob'); // held in b's memory
    const gone = await fetch(`${a.base}/api/connections/files`, { method: 'DELETE', headers: await asUser('bob') });
    assert.equal(gone.status, 204, await gone.text());
    const url = await untilLoginOffered(bobB);
    assert.equal(cli('EXISTS', recordKey('bob')), '0', 'the record is gone from the store');
    // Revoked at the authorization server too (RFC 7009): a revokes it, b revokes what it
    // held when it hears; the server ends the grant once.
    for (const g of [a, b]) await g.waitForAudit((evs) => evs.some((e) => e.method === 'account.grantRevoked' && e.principal === 'bob'));
    assert.equal(as.revoked.filter((r) => r.account === 'bob').length, 1);
    assert.match((await signIn(browser, url, 'bob')).outcome, /connected/);
    assert.equal(text(await bobB.callTool({ name: 'files__whoami', arguments: {} })), 'bob');
    await bobB.close();
  });

  test("an operator revokes a principal's and an upstream's connections in every gate", async () => {
    const [a, b] = gates;
    const ops = await asUser('ops', 'gate:accounts');
    const revoke = (gate, query, headers = ops) => fetch(`${gate.base}/api/accounts?${query}`, { method: 'DELETE', headers });
    // Only a holder of server.vault.operatorScope, and only a clear request.
    assert.equal((await revoke(a, 'upstream=files', await asUser('bob'))).status, 403);
    assert.match((await (await revoke(a, 'upstream=files', await asUser('bob'))).json()).error, /needs the scope gate:accounts/);
    assert.equal((await fetch(`${a.base}/api/accounts`, { headers: await asUser('bob') })).status, 403);
    for (const [query, why] of [
      ['', /name what to revoke/],
      [`issuer=${encodeURIComponent(idp.issuer)}`, /issuer and subject name a principal together/],
      ['upstream=nope', /no user-account upstream has the id "nope"/],
      ['upstream=files&user=bob', /unknown query parameter "user"/],
      ['upstream=files&upstream=files', /name what to revoke/],
    ]) {
      const r = await revoke(a, query);
      assert.equal(r.status, 400, query);
      assert.match((await r.json()).error, why, query);
    }
    assert.equal((await fetch(`${a.base}/api/accounts`, { method: 'POST', headers: ops })).status, 405);
    // bob's connection is held by both gates (b logged in, a reads it from the store).
    const bobA = await connect(a, 'bob');
    const bobB = await connect(b, 'bob');
    for (const c of [bobA, bobB]) assert.equal(text(await c.callTool({ name: 'files__whoami', arguments: {} })), 'bob');
    const listed = await (await fetch(`${a.base}/api/accounts?upstream=files`, { headers: ops })).json();
    assert.deepEqual(listed.connections.map((c) => [c.upstream, c.issuer, c.subject]), [['files', idp.issuer, 'bob']]);
    assert.ok(!JSON.stringify(listed).includes('eyJ'), 'never a token');
    const r = await revoke(a, `issuer=${encodeURIComponent(idp.issuer)}&subject=bob`);
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { forgottenHere: 1, fleet: true });
    await untilLoginOffered(bobB);
    await untilLoginOffered(bobA);
    await a.waitForAudit((evs) =>
      evs.some((e) => e.method === 'account.revoked' && e.principal === 'bob' && e.issuer === idp.issuer && e.name === `ops at ${idp.issuer}` && e.upstream === undefined),
    );
    // An upstream's connections, everyone's: carol connects through a, the operator revokes
    // upstream files through b.
    const carol = await connect(a, 'carol');
    assert.match((await signIn(browser, await loginOffered(carol), 'carol')).outcome, /connected/);
    assert.equal(text(await carol.callTool({ name: 'files__whoami', arguments: {} })), 'carol');
    assert.notEqual(cli('--scan', '--pattern', 'gate:vault:files:*'), '');
    const all = await revoke(b, 'upstream=files');
    assert.equal(all.status, 200);
    assert.equal(cli('--scan', '--pattern', 'gate:vault:files:*'), '', 'the store holds none of its records');
    await untilLoginOffered(carol);
    // carol's grant was in a's memory only: a revokes it at the server when it hears.
    await a.waitForAudit((evs) => evs.some((e) => e.method === 'account.grantRevoked' && e.principal === 'carol'));
    assert.equal(as.revoked.filter((r) => r.account === 'carol').length, 1);
    assert.equal(as.revoked.filter((r) => r.account === 'bob').length, 2, 'the operator revoked his second grant');
    await b.waitForAudit((evs) => evs.some((e) => e.method === 'account.revoked' && e.upstream === 'files' && e.principal === undefined));
    for (const c of [bobA, bobB, carol]) await c.close();
  });
});
