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

  const config = (publicUrl) => ({
    auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    server: { publicUrl, vault: { keyRef: 'GATE_VAULT_KEY' } },
    upstreams: [{ id: 'files', url: files.url, namespace: 'files', auth: { strategy: 'user-account', scopes: ['files:read'] } }],
  });
  const startTwo = async () => {
    const env = { REDIS_URL: redis.url, GATE_VAULT_KEY: VAULT_KEY };
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
    // What Redis holds is sealed: no token, no name.
    const keys = cli('--scan', '--pattern', 'gate:vault:*').split('\n').filter(Boolean);
    assert.equal(keys.length, 1, keys.join());
    const record = cli('GET', keys[0]);
    assert.match(record, /^v1\.[0-9a-f]{8}\./);
    assert.ok(!record.includes('eyJ') && !record.includes('bob'), 'the record is ciphertext');
    assert.ok(!keys[0].includes('bob'), 'the key names no principal');
    // Copied under carol's name it does not open: carol is asked to log in.
    const carolKey = `gate:vault:files:${createHash('sha256').update(`${idp.issuer}\ncarol`).digest('hex').slice(0, 32)}`;
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
});
