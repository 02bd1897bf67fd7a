// The console of a federation with an upstream that takes each caller's credential, against
// the real binary: a server-everything with one credential for everyone beside an SDK server
// that serves each user differently behind passthrough (tests/js/lib/per-user-server.mjs).
// GET /api/catalog shows the viewer its own listing of the per-caller upstream, made with the
// viewer's own token and never another principal's (not even the list another caller made just
// before, which gate's cache held last), says why when the upstream refuses the viewer's token,
// asks it nothing for a viewer whose tenant does not see it, and never asks it without a token;
// GET /health counts it up while it answers (401 to a handshake without a token) and down once
// its port is closed; GET /api/traffic names the instance whose traffic it is. Then the page
// in headless Chromium (Debian's chromium via playwright-core): the upstream up, the viewer's
// own listing and what it is, the reason a refused viewer sees, the instance and the pointer to
// the fleet's dashboard; no script error and no content security policy violation. A
// screenshot goes to build/test-artifacts/console-per-caller/.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { decodeJwt } from 'jose';
import { chromium } from 'playwright-core';

import { REPO_ROOT, connectClient, eventually, get, startEverything, startGate, startIdp } from './lib/index.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';
const SHOTS = path.join(REPO_ROOT, 'build', 'test-artifacts', 'console-per-caller');

describe('the console of a federation with a per-caller upstream', { timeout: 180_000 }, () => {
  let ev;
  let pt; // passthrough: the user is the caller's own token's sub; mallory is refused
  let idp;
  let gate;
  const tokens = {};
  const auth = (token) => ({ authorization: `Bearer ${token}` });
  const api = async (p, token) => {
    const r = await get(`${gate.base}${p}`, auth(token));
    return { ...r, json: r.status === 200 ? JSON.parse(r.text) : undefined };
  };

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [ev, idp] = await Promise.all([startEverything(), startIdp()]);
    pt = await startPerUserServer((token) => {
      try {
        const { sub } = decodeJwt(token);
        return sub === 'mallory' ? null : sub;
      } catch {
        return null;
      }
    });
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev', url: ev.url, namespace: 'ev' },
          { id: 'pt', url: pt.url, namespace: 'pt', auth: { strategy: 'passthrough' } },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        tenants: [{ id: 'outside', subjects: { subs: ['carol'] }, upstreams: ['ev'] }],
        server: { introspection: { enabled: true }, console: { enabled: true } },
      },
    });
    for (const user of ['alice', 'bob', 'mallory', 'carol']) tokens[user] = await idp.mint({ sub: user, aud: RESOURCE });
  });
  after(async () => {
    await gate?.stop();
    await Promise.all([ev?.stop(), pt?.stop(), idp?.stop()]);
  });

  const upstream = (catalog, id) => catalog.json.upstreams.find((u) => u.id === id);

  test("/api/catalog: the viewer's own listing of the per-caller upstream, never another's, and why not", async () => {
    // Alice lists through MCP first: what gate holds of pt's list is then hers.
    const alice = await connectClient(gate.url, { requestInit: { headers: auth(tokens.alice) } });
    try {
      assert.ok((await alice.listTools({})).tools.some((t) => t.name === 'pt__only_alice'));
    } finally {
      await alice.close();
    }
    let heardFrom = pt.seen.length;
    const c = await api('/api/catalog', tokens.bob);
    assert.equal(c.status, 200, c.text);
    const mine = upstream(c, 'pt');
    assert.equal(mine.listing, 'caller');
    assert.deepEqual(mine.tools.map((t) => t.name).sort(), ['pt__only_bob', 'pt__whoami']);
    assert.ok(mine.tools.every((t) => t.allowed === true && t.description === 'for bob'), JSON.stringify(mine.tools));
    assert.equal(mine.unlisted, undefined);
    assert.doesNotMatch(c.text, /alice/, "another principal's listing is never shown");
    const shared = upstream(c, 'ev');
    assert.equal(shared.listing, 'shared');
    assert.ok(shared.tools.some((t) => t.name === 'ev__echo'));
    // pt heard the catalog with Bob's token only: never without one, never anyone else's.
    const heard = pt.seen.slice(heardFrom);
    assert.ok(heard.some((h) => h.rpcMethod === 'tools/list'), JSON.stringify(heard));
    assert.deepEqual([...new Set(heard.map((h) => h.user))], ['bob'], JSON.stringify(heard));
    assert.deepEqual(pt.violations, []);

    // The upstream refuses Mallory's token: the catalog says so, and shows nothing of others.
    const m = await api('/api/catalog', tokens.mallory);
    const refused = upstream(m, 'pt');
    assert.equal(refused.listing, 'caller');
    assert.equal(refused.tools, undefined);
    assert.match(refused.unlisted, /^listing it with your credential failed: .*refused the caller's credential \(HTTP 401\)/);
    assert.doesNotMatch(m.text, /only_(alice|bob)/);

    // Carol's tenant does not see pt: nothing of it, not even its id, and pt is never handed
    // her token.
    heardFrom = pt.seen.length;
    const outside = await api('/api/catalog', tokens.carol);
    assert.equal(upstream(outside, 'pt'), undefined);
    assert.doesNotMatch(outside.text, /"pt"/);
    assert.equal(pt.seen.slice(heardFrom).filter((h) => h.token === tokens.carol).length, 0);

    // Whose traffic the console shows: this instance's.
    const t = await api('/api/traffic', tokens.bob);
    assert.deepEqual(t.json.instance, { host: hostname(), pid: gate.pid });
  });

  test('/health: the per-caller upstream is up while it answers without a token', async () => {
    const h = await get(`${gate.base}/health`);
    assert.equal(h.status, 200, h.text);
    const health = JSON.parse(h.text);
    assert.deepEqual(health.upstreams.map((u) => [u.id, u.status]), [['ev', 'up'], ['pt', 'up']], h.text);
    const f = await api('/api/federation', tokens.bob);
    assert.equal(f.json.upstreams.find((u) => u.id === 'pt').health.status, 'up');
  });

  test("the page: the viewer's own listing, a refused viewer's reason, the instance", async (t) => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      for (const user of ['bob', 'mallory']) {
        const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
        const problems = [];
        page.on('pageerror', (e) => problems.push(e.message));
        page.on('console', (msg) => msg.type() === 'error' && !/401/.test(msg.text()) && problems.push(msg.text()));
        await page.goto(`${gate.base}/console/`);
        await page.waitForSelector('#signin:not([hidden])');
        await page.fill('#token', tokens[user]);
        await page.click('#signin button[type=submit]');
        await page.waitForSelector('#catalog-pt');
        assert.equal(await page.textContent('#verdict'), '2 of 2 upstreams up');
        assert.equal(await page.getAttribute('#upstreams li[data-id="pt"]', 'class'), 'up');
        await page.click('#catalog-pt summary');
        const summary = await page.textContent('#catalog-pt summary');
        if (user === 'bob') {
          assert.match(summary, /^pt — 2 tools · 0 prompts · 0 resources — your own listing$/);
          assert.match(await page.textContent('#catalog-pt .listing'), /takes each caller's own credential.*what your token lists/);
          await page.waitForSelector('#catalog-pt tr[data-name="pt__only_bob"]');
          assert.equal(await page.locator('#catalog-pt .unlisted').count(), 0);
          assert.match(await page.textContent('#catalog-ev summary'), /^ev — \d+ tools/);
          assert.equal(await page.locator('#catalog-ev .listing').count(), 0, 'a shared list needs no word');
        } else {
          assert.equal(summary, 'pt — listed per caller: not listed for you');
          assert.match(await page.textContent('#catalog-pt .unlisted'), /^Not listed for you: listing it with your credential failed: .*HTTP 401.*Sign in with a token this upstream accepts/);
          assert.equal(await page.locator('#catalog-pt tbody tr').count(), 0);
        }
        await page.waitForSelector('#instance-note:not(:empty)');
        assert.equal(await page.textContent('#instance'), `instance ${hostname()} (pid ${gate.pid})`);
        assert.match(await page.textContent('#instance-note'), /what this instance, .* served since it started\. For every instance together, use the Grafana dashboard gate ships \(config\/grafana\/gate\.json\)\.$/);
        const file = path.join(SHOTS, `${user}.png`);
        await page.screenshot({ path: file, fullPage: true });
        t.diagnostic(`screenshot: ${file}`);
        assert.deepEqual(problems, [], 'no script errors and no content security policy violations');
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });

  test('/health: the per-caller upstream is down once nothing answers at its port', async () => {
    await pt.stop();
    pt = null;
    await eventually(async () => {
      const h = JSON.parse((await get(`${gate.base}/health`)).text);
      return h.upstreams.find((u) => u.id === 'pt').status === 'down';
    }, { what: 'pt down in /health' });
  });
});
