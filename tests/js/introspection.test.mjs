// Introspection and the console with the real binary: /api/federation authenticates like the
// MCP endpoint, shares its rate budget and reports the federation (never a secret);
// /api/auth-hint is public; /console/ is a read-only page under a strict content security
// policy, driven in headless Chromium (Debian's chromium via playwright-core), showing health
// at a glance; the old console API paths answer 404.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { eventually, get, rawRequest, startDiscoverySource, startEverything, startGate, startIdp } from './lib/index.mjs';
import { freePort } from './lib/free-port.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';

describe('introspection and console', { timeout: 180_000 }, () => {
  let everything;
  let idp;
  let deadUrl;
  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    deadUrl = `http://127.0.0.1:${await freePort()}/mcp`; // nothing listens: down
  });
  after(async () => {
    await idp?.stop();
    await everything?.stop();
  });

  // `perPrincipal`: the console page reads three /api paths at sign-in and again every 5 s, so
  // the page test allows more than the 3 a minute the limit tests count against.
  const secured = (extra = {}, { perPrincipal = 3 } = {}) =>
    startGate({
      config: {
        upstreams: [
          { id: 'ev', url: everything.url, namespace: 'ev', owner: { team: 'tools' }, auth: { strategy: 'static', secretRef: 'EV_TOKEN' } },
          { id: 'dead', url: deadUrl, namespace: 'dead' },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
        policy: { rules: [{ id: 'ops-all', subjects: { groups: ['ops'] }, allow: [{ server: 'ev' }] }] },
        tenants: [{ id: 'acme', subjects: { groups: ['ops'] }, rateLimit: { requestsPerMinute: 100 } }],
        audit: { sinks: [{ type: 'stdout' }] },
        server: {
          introspection: { enabled: true, clientId: 'gate-console', scopes: ['mcp:read', 'openid'] },
          console: { enabled: true },
          rateLimit: { requestsPerMinute: 1000, perPrincipalPerMinute: perPrincipal },
        },
        ...extra,
      },
      env: { EV_TOKEN: 'super-secret-upstream-token' },
    });

  test("/api/federation reports the federation to an authenticated viewer and shares the MCP endpoint's limits", async () => {
    const gate = await secured();
    try {
      const anonymous = await get(`${gate.base}/api/federation`);
      assert.equal(anonymous.status, 401);
      assert.match(anonymous.headers['www-authenticate'] ?? '', /resource_metadata=/);
      const token = await idp.mint({ aud: RESOURCE, sub: 'olga', groups: ['ops'] });
      const auth = { authorization: `Bearer ${token}` };
      const r = await get(`${gate.base}/api/federation`, auth);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.headers['cache-control'], 'no-store');
      const f = JSON.parse(r.text);
      assert.match(f.gateway.version, /^v\d+\.\d+\.\d+$/);
      assert.equal(f.gateway.auth, 'required');
      assert.deepEqual(f.summary, { upstreams: 2, up: 1, discovered: 0 });
      const ev = f.upstreams.find((u) => u.id === 'ev');
      const dead = f.upstreams.find((u) => u.id === 'dead');
      assert.equal(ev.source, 'static');
      assert.equal(ev.credential, 'static');
      assert.equal(ev.health.status, 'up');
      assert.equal(ev.breaker, 'closed');
      assert.deepEqual(ev.owner, { team: 'tools' });
      assert.equal(dead.health.status, 'down');
      // Why it is down, for a viewer allowed to introspect; the public /health keeps it (and
      // where the upstream lives) to itself when auth is on.
      assert.match(dead.health.error ?? '', /cannot connect: Connection refused/);
      const pub = JSON.parse((await get(`${gate.base}/health`)).text).upstreams.find((u) => u.id === 'dead');
      assert.equal(pub.status, 'down');
      assert.equal(pub.error, undefined);
      assert.equal(pub.urls, undefined);
      assert.equal(dead.credential, 'none');
      assert.deepEqual(f.policy, { enforced: true, defaultDecision: 'deny', rules: [{ id: 'ops-all', subjects: ['groups'], allow: [{ server: 'ev' }] }] });
      assert.deepEqual(f.audit, { sinks: ['stdout'] });
      assert.deepEqual(f.sharedState, { backend: 'in-process', up: true });
      assert.deepEqual(f.tracing, { enabled: false });
      assert.deepEqual(f.discovery, { configured: false });
      assert.deepEqual(f.governance, { requestsPerMinute: 1000, perPrincipalPerMinute: 3 });
      assert.deepEqual(f.viewer, { authenticated: true, principal: 'olga', issuer: idp.issuer, tenant: 'acme', governance: { requestsPerMinute: 100 } });
      // Never a secret: not the token, not even the name of the variable that holds it.
      assert.doesNotMatch(r.text, /super-secret-upstream-token|EV_TOKEN/);

      // The per-principal window is the MCP endpoint's: three reads spent, the fourth is 429.
      const again = await get(`${gate.base}/api/federation`, auth);
      assert.equal(again.status, 200);
      const third = await get(`${gate.base}/api/federation`, auth);
      assert.equal(third.status, 200);
      const limited = await get(`${gate.base}/api/federation`, auth);
      assert.equal(limited.status, 429, limited.text);
      assert.ok(limited.headers['retry-after']);
      const refused = await gate.waitForAudit((ev) => ev.some((e) => e.outcome === 'rate_limited') && ev.some((e) => e.outcome === 'unauthenticated'));
      assert.ok(refused.every((e) => e.method === 'http'), 'refusals are audited; answered reads are not MCP requests');
      const post = await rawRequest(`${gate.base}/api/federation`, { headers: { host: '127.0.0.1' }, body: '{}' });
      assert.equal(post.status, 405);
    } finally {
      await gate.stop();
    }
  });

  test('/api/auth-hint is public and says how to sign in', async () => {
    const gate = await secured();
    try {
      const r = await get(`${gate.base}/api/auth-hint`);
      assert.equal(r.status, 200);
      assert.deepEqual(JSON.parse(r.text), { authRequired: true, issuer: idp.issuer, clientId: 'gate-console', scopes: ['mcp:read', 'openid'], resource: RESOURCE });
      for (const old of ['/console/api/state', '/console/api/auth']) {
        assert.equal((await get(`${gate.base}${old}`)).status, 404, old);
      }
    } finally {
      await gate.stop();
    }
  });

  test('discovered upstreams and the discovery status are reported', async () => {
    const source = await startDiscoverySource({ upstreams: [{ id: 'found', url: everything.url, namespace: 'b' }] });
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        discovery: { url: source.url, intervalMs: 100 },
        server: { introspection: { enabled: true } },
      },
    });
    try {
      await eventually(async () => JSON.parse((await get(`${gate.base}/api/federation`)).text).summary.discovered === 1, { what: 'the discovered upstream reported' });
      const f = JSON.parse((await get(`${gate.base}/api/federation`)).text);
      assert.equal(f.upstreams.find((u) => u.id === 'found').source, 'discovered');
      assert.equal(f.discovery.url, source.url);
      assert.ok(['applied', 'unchanged'].includes(f.discovery.lastOutcome));
      assert.equal(f.discovery.failing, false);
      assert.deepEqual(f.viewer, { authenticated: false });
      source.fail(503);
      await eventually(async () => JSON.parse((await get(`${gate.base}/api/federation`)).text).discovery.failing === true, { what: 'the outage reported' });
    } finally {
      await gate.stop();
      await source.stop();
    }
  });

  test('the console shows health at a glance in Chromium, under a strict content security policy', async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    const gate = await secured({}, { perPrincipal: 100 });
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    try {
      const page_ = await get(`${gate.base}/console/`);
      assert.equal(page_.status, 200);
      const csp = page_.headers['content-security-policy'];
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.doesNotMatch(page_.text, /<script>|<style>| on\w+=/, 'no inline script or style');
      for (const asset of ['/console/console.js', '/console/console.css']) {
        assert.equal((await get(`${gate.base}${asset}`)).status, 200, `${asset} is open`);
      }
      const redirect = await get(`${gate.base}/console`);
      assert.ok([200, 308].includes(redirect.status));

      const page = await browser.newPage();
      const problems = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && !/401/.test(m.text()) && problems.push(m.text()));
      await page.goto(`${gate.base}/console/`);
      await page.waitForSelector('#signin:not([hidden])');
      assert.equal(await page.textContent('#issuer'), idp.issuer);
      await page.fill('#token', await idp.mint({ aud: RESOURCE, sub: 'olga', groups: ['ops'] }));
      await page.click('#signin button[type=submit]');
      await page.waitForSelector('#upstreams li[data-id="dead"]');
      assert.equal(await page.textContent('#verdict'), '1 of 2 upstreams up');
      assert.equal(await page.getAttribute('#verdict', 'class'), 'degraded');
      assert.equal(await page.getAttribute('#upstreams li[data-id="ev"]', 'class'), 'up');
      assert.equal(await page.getAttribute('#upstreams li[data-id="dead"]', 'class'), 'down');
      // The upstream as it named itself at its handshake; none for one gate never reached.
      assert.match(await page.textContent('#upstreams li[data-id="ev"] .server'), /2\.0\.0 · MCP 2025-11-25$/);
      assert.equal(await page.$('#upstreams li[data-id="dead"] .server'), null);
      // The picture: one bar segment per upstream, colored by state.
      const colors = await page.$$eval('#bar span', (spans) => spans.map((s) => getComputedStyle(s).backgroundColor));
      assert.equal(colors.length, 2);
      assert.notEqual(colors[0], colors[1]);
      assert.match(await page.textContent('#viewer'), /olga/);
      assert.match(await page.textContent('#policy'), /ops-all/);
      assert.deepEqual(problems, [], 'no script errors and no content security policy violations');
    } finally {
      await browser.close();
      await gate.stop();
    }
  });
});
