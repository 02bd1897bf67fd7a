// Introspection per tenant against the real binary: a principal of a tenant that sees only some
// upstreams (tenants[].upstreams) is told nothing of the others by /api/federation (no entry,
// URL, owner, labels, health, count or policy entry naming one), /api/traffic (no series, no
// transition, and not gate's own series, which counts every tenant's requests), /api/catalog
// (not even its id) or /api/explain (an upstream it does not see is answered as an unknown one, 400, word for
// word). The console in headless Chromium (Debian's chromium via playwright-core) shows that
// view, and its Policy table shows what each rule denies as well as what it allows: a
// deny-only rule reads as the refusal it is.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { connectClient, get, startEverything, startGate, startIdp } from './lib/index.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';

describe('introspection per tenant', { timeout: 180_000 }, () => {
  let everything;
  let idp;
  let gate;
  let alice; // tenant acme: sees alpha only
  let bob; // tenant globex: sees every upstream
  const auth = (token) => ({ authorization: `Bearer ${token}` });
  const api = async (p, token) => {
    const r = await get(`${gate.base}${p}`, auth(token));
    return { ...r, json: JSON.parse(r.text) };
  };
  const explain = (token, query) => api(`/api/explain?${new URLSearchParams(query)}`, token);

  before(async () => {
    [everything, idp] = await Promise.all([startEverything(), startIdp()]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'alpha', url: everything.url, namespace: 'a', owner: { team: 'alpha-team' } },
          { id: 'beta', url: everything.url, namespace: 'b', owner: { team: 'beta-team' }, labels: { customer: 'globex-only' } },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
        tenants: [
          { id: 'acme', subjects: { claims: { org: 'acme' } }, upstreams: ['alpha'] },
          { id: 'globex', subjects: { groups: ['globex'] } },
        ],
        policy: {
          rules: [
            { id: 'everyone', allow: [{ server: 'alpha' }, { server: 'beta' }] },
            // Deny-only: it allows nothing and refuses get-env on both.
            { id: 'no-env', deny: [{ server: 'alpha', methods: ['tools/call'], names: ['get-env'] }, { server: 'beta', methods: ['tools/call'], names: ['get-env'] }] },
          ],
        },
        server: { introspection: { enabled: true }, console: { enabled: true } },
      },
    });
    alice = await idp.mint({ aud: RESOURCE, sub: 'alice', org: 'acme' });
    bob = await idp.mint({ aud: RESOURCE, sub: 'bob', groups: ['globex'] });
    // Traffic on both upstreams, by a principal who sees both.
    const client = await connectClient(gate.url, { requestInit: { headers: auth(bob) } });
    try {
      await client.callTool({ name: 'a__echo', arguments: { message: 'x' } });
      await client.callTool({ name: 'b__echo', arguments: { message: 'y' } });
    } finally {
      await client.close();
    }
  });
  after(async () => {
    await gate?.stop();
    await Promise.all([everything?.stop(), idp?.stop()]);
  });

  test("/api/federation and /api/traffic tell a tenant's principal only of the upstreams it sees", async () => {
    const f = await api('/api/federation', alice);
    assert.equal(f.status, 200, f.text);
    assert.deepEqual(f.json.upstreams.map((u) => u.id), ['alpha']);
    assert.deepEqual(f.json.summary, { upstreams: 1, up: 1, discovered: 0 });
    assert.equal(f.json.viewer.tenant, 'acme');
    assert.deepEqual(f.json.policy.rules.find((r) => r.id === 'everyone').allow, [{ server: 'alpha' }]);
    assert.deepEqual(f.json.policy.rules.find((r) => r.id === 'no-env').deny, [{ server: 'alpha', methods: ['tools/call'], names: ['get-env'] }]);
    assert.doesNotMatch(f.text, /beta|globex-only/, 'nothing of the upstream acme does not see');

    const t = await api('/api/traffic', alice);
    assert.equal(t.status, 200, t.text);
    assert.deepEqual(t.json.upstreams.map((u) => u.id), ['alpha']);
    assert.ok(t.json.upstreams[0].series.window.requests >= 1);
    assert.equal(t.json.unrouted, undefined, "gate's own series counts every tenant's requests");
    assert.doesNotMatch(t.text, /beta/);
    const c = await api('/api/catalog', alice);
    assert.equal(c.status, 200, c.text);
    assert.deepEqual(c.json.upstreams.map((u) => u.id), ['alpha']);
    assert.doesNotMatch(c.text, /beta/);

    // A principal whose tenant sees every upstream is shown them all.
    const all = await api('/api/federation', bob);
    assert.deepEqual(all.json.upstreams.map((u) => u.id), ['alpha', 'beta']);
    assert.deepEqual(all.json.summary, { upstreams: 2, up: 2, discovered: 0 });
    assert.equal(all.json.policy.rules.find((r) => r.id === 'no-env').deny.length, 2);
    const allTraffic = await api('/api/traffic', bob);
    assert.deepEqual(allTraffic.json.upstreams.map((u) => u.id), ['alpha', 'beta']);
    assert.ok(allTraffic.json.unrouted.window.requests >= 1);
  });

  test('/api/explain answers for an upstream the tenant does not see as for an unknown one', async () => {
    const same = async (hidden, unknown, from, to) => {
      const h = await explain(alice, hidden);
      const u = await explain(alice, unknown);
      assert.equal(h.status, 400, h.text);
      assert.equal(u.status, 400, u.text);
      assert.equal(h.text.replaceAll(from, to), u.text, 'indistinguishable from an unknown one');
      assert.doesNotMatch(h.text, /tenant|does not see/);
    };
    await same({ method: 'tools/call', name: 'b__echo' }, { method: 'tools/call', name: 'zz__echo' }, 'b__echo', 'zz__echo');
    await same({ method: 'tools/call', server: 'beta', name: 'echo' }, { method: 'tools/call', server: 'gamma', name: 'echo' }, 'beta', 'gamma');
    await same({ method: 'resources/read', server: 'beta', uri: 'demo://resource/static/document/architecture.md' },
      { method: 'resources/read', server: 'gamma', uri: 'demo://resource/static/document/architecture.md' }, 'beta', 'gamma');
    // What the tenant sees is explained as before; another tenant sees beta.
    const own = await explain(alice, { method: 'tools/call', name: 'a__echo' });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.json.decision, 'allow');
    assert.equal(own.json.tenant, 'acme');
    const theirs = await explain(bob, { method: 'tools/call', name: 'b__get-env' });
    assert.equal(theirs.status, 200, theirs.text);
    assert.equal(theirs.json.decision, 'deny');
    assert.equal(theirs.json.ruleId, 'no-env');
  });

  test("the console shows the tenant's view, and the Policy table shows what a rule denies", async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const open = async (token) => {
        const page = await (await browser.newContext()).newPage();
        const problems = [];
        page.on('pageerror', (e) => problems.push(e.message));
        page.on('console', (m) => m.type() === 'error' && !/401/.test(m.text()) && problems.push(m.text()));
        await page.goto(`${gate.base}/console/`);
        await page.waitForSelector('#signin:not([hidden])');
        await page.fill('#token', token);
        await page.click('#signin button[type=submit]');
        await page.waitForSelector('#upstreams li[data-id="alpha"]');
        await page.waitForSelector('#policy tbody tr');
        const rows = await page.$$eval('#policy tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
        const headings = await page.$$eval('#policy thead th', (ths) => ths.map((th) => th.textContent));
        return { page, problems, rows, headings };
      };
      const a = await open(alice);
      assert.deepEqual(a.headings, ['Rule', 'For', 'Allows', 'Denies']);
      const rowOf = (rows, id) => rows.find((r) => r[0] === id);
      assert.deepEqual(rowOf(a.rows, 'no-env'), ['no-env', 'anyone', '—', 'alpha tools/call get-env']);
      assert.deepEqual(rowOf(a.rows, 'everyone'), ['everyone', 'anyone', 'alpha', '—']);
      // A count, not the handle: an assertion message printing a page's handle never ends.
      assert.equal(await a.page.locator('#upstreams li[data-id="beta"]').count(), 0, 'no card for the upstream acme does not see');
      assert.doesNotMatch(await a.page.textContent('#federation'), /beta/);
      assert.deepEqual(a.problems, [], 'no script errors and no content security policy violations');

      const b = await open(bob);
      await b.page.waitForSelector('#upstreams li[data-id="beta"]');
      assert.deepEqual(rowOf(b.rows, 'no-env'), ['no-env', 'anyone', '—', 'alpha tools/call get-env; beta tools/call get-env']);
      assert.deepEqual(b.problems, []);
    } finally {
      await browser.close();
    }
  });
});
