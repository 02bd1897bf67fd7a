// The console with traffic, against the real binary and a live federation of two
// server-everything instances with calls flowing: GET /api/traffic (each upstream's last
// minutes by outcome and latency, breaker and replica transitions, the viewer's own latest
// refusals) and GET /api/catalog (what each upstream serves, and whether the viewer may call
// it, with the rule), their auth and what they never tell (a secret, an argument, another
// principal's refusals); then the page in headless Chromium (Debian's chromium via
// playwright-core) at a desktop's and a phone's width: charts with data, a breaker opening on
// the timeline after an upstream is stopped, the catalog with allowed and denied items and
// their rule, the refusals, every section reached with the keyboard, no script error and no
// content security policy violation. Screenshots go to build/test-artifacts/console-traffic/,
// their paths in the test output.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { REPO_ROOT, connectClient, eventually, get, startEverything, startGate, startIdp } from './lib/index.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const RESOURCE = 'https://gate.example/mcp';
const SHOTS = path.join(REPO_ROOT, 'build', 'test-artifacts', 'console-traffic');
const SECRET = 'super-secret-upstream-token';
const ARGUMENT = 'an-argument-nobody-may-read';

describe('the console with traffic', { timeout: 240_000 }, () => {
  let ev;
  let flaky;
  let idp;
  let gate;
  let olga;
  let ivan;
  const auth = (token) => ({ authorization: `Bearer ${token}` });
  const api = async (p, token) => {
    const r = await get(`${gate.base}${p}`, token ? auth(token) : {});
    return { ...r, json: r.status === 200 ? JSON.parse(r.text) : undefined };
  };
  const client = (token) => connectClient(gate.url, { requestInit: { headers: auth(token) } });

  before(async () => {
    mkdirSync(SHOTS, { recursive: true });
    [ev, flaky, idp] = await Promise.all([startEverything(), startEverything(), startIdp()]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev', url: ev.url, namespace: 'ev', owner: { team: 'tools', contact: 'tools@example.com' }, labels: { tier: 'gold' },
            auth: { strategy: 'static', secretRef: 'EV_TOKEN' } },
          { id: 'flaky', url: flaky.url, namespace: 'flaky', circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 600000 } },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
        policy: {
          rules: [{ id: 'ops-calls', subjects: { groups: ['ops'] }, allow: [{ server: 'ev' }, { server: 'flaky' }],
                    deny: [{ server: 'ev', methods: ['tools/call'], names: ['get-env'] }] }],
        },
        server: { introspection: { enabled: true }, console: { enabled: true } },
      },
      env: { EV_TOKEN: SECRET },
    });
    olga = await idp.mint({ aud: RESOURCE, sub: 'olga', groups: ['ops'] });
    ivan = await idp.mint({ aud: RESOURCE, sub: 'ivan', groups: ['ops'] });
  });
  after(async () => {
    await gate?.stop();
    await Promise.all([ev?.stop(), flaky?.stop(), idp?.stop()]);
  });

  test('traffic flows: /api/traffic and /api/catalog tell the viewer what happened, and nothing of others', async () => {
    const mine = await client(olga);
    const theirs = await client(ivan);
    try {
      for (let i = 0; i < 12; i++) await mine.callTool({ name: 'ev__echo', arguments: { message: `hello ${i}` } });
      await mine.callTool({ name: 'flaky__echo', arguments: { message: 'before' } });
      await assert.rejects(mine.callTool({ name: 'ev__get-env', arguments: { note: ARGUMENT } }), /denied|-32/);
      await assert.rejects(theirs.callTool({ name: 'ev__get-env', arguments: {} }), /denied|-32/);
      // An upstream that stops answering: errors, then its breaker opens.
      await flaky.stop();
      flaky = null;
      for (let i = 0; i < 3; i++) await assert.rejects(mine.callTool({ name: 'flaky__echo', arguments: { message: 'down' } }));
    } finally {
      await mine.close();
      await theirs.close();
    }
    assert.equal((await api('/api/traffic')).status, 401, 'the introspection auth');
    assert.equal((await api('/api/catalog')).status, 401);

    const t = await api('/api/traffic', olga);
    assert.equal(t.status, 200, t.text);
    assert.equal(t.headers['cache-control'], 'no-store');
    assert.equal(t.json.bucketSeconds, 10);
    const evTraffic = t.json.upstreams.find((u) => u.id === 'ev');
    assert.equal(evTraffic.series.requests.length, t.json.buckets);
    assert.ok(evTraffic.series.window.requests >= 13, JSON.stringify(evTraffic.series.window));
    assert.ok(evTraffic.series.window.outcomes.ok >= 12);
    assert.equal(evTraffic.series.window.outcomes.denied, 2);
    assert.ok(evTraffic.series.window.p50Ms > 0);
    const flakyTraffic = t.json.upstreams.find((u) => u.id === 'flaky');
    const failed = (flakyTraffic.series.window.outcomes.error ?? 0) + (flakyTraffic.series.window.outcomes.upstream_down ?? 0);
    assert.ok(failed >= 3, JSON.stringify(flakyTraffic.series.window));
    assert.ok(flakyTraffic.transitions.some((c) => c.kind === 'breaker' && c.from === 'closed' && c.to === 'open'), JSON.stringify(flakyTraffic.transitions));
    assert.ok(t.json.unrouted.window.requests > 0, 'initialize and lists count as gate itself');
    // Olga's refusal with its rule; never Ivan's, never an argument, never a secret.
    assert.equal(t.json.refusals.length, 1, JSON.stringify(t.json.refusals));
    assert.deepEqual({ ...t.json.refusals[0], at: undefined, atMs: undefined },
      { at: undefined, atMs: undefined, method: 'tools/call', name: 'ev__get-env', upstream: 'ev', outcome: 'denied', ruleId: 'ops-calls' });
    assert.doesNotMatch(t.text, new RegExp(`${SECRET}|EV_TOKEN|${ARGUMENT}|ivan`));
    const theirsSeen = await api('/api/traffic', ivan);
    assert.equal(theirsSeen.json.refusals.length, 1);
    assert.doesNotMatch(theirsSeen.text, /olga/);

    const c = await api('/api/catalog', olga);
    assert.equal(c.status, 200, c.text);
    assert.equal(c.headers['cache-control'], 'no-store');
    const evCatalog = c.json.upstreams.find((u) => u.id === 'ev');
    const echo = evCatalog.tools.find((x) => x.name === 'ev__echo');
    const env = evCatalog.tools.find((x) => x.name === 'ev__get-env');
    assert.equal(echo.allowed, true);
    assert.equal(echo.ruleId, 'ops-calls');
    assert.equal(env.allowed, false);
    assert.equal(env.ruleId, 'ops-calls');
    assert.match(env.reason, /denies/);
    assert.equal(typeof echo.annotations, 'object');
    assert.ok(evCatalog.prompts.length > 0 && evCatalog.resources.length > 0);
    assert.ok(evCatalog.resources.every((r) => typeof r.uri === 'string' && typeof r.allowed === 'boolean'));
    assert.doesNotMatch(c.text, new RegExp(`${SECRET}|EV_TOKEN`));
    assert.deepEqual(c.json.viewer, { authenticated: true, principal: 'olga' });
  });

  test('the page shows it live in Chromium, at a desktop and a phone width, by keyboard too', async (t) => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    const flowing = (async () => {
      // Traffic keeps flowing while the page polls.
      const c = await client(olga);
      try {
        for (let i = 0; i < 20; i++) await c.callTool({ name: 'ev__echo', arguments: { message: `live ${i}` } });
      } finally {
        await c.close();
      }
    })();
    try {
      for (const [name, viewport] of [['desktop', { width: 1280, height: 900 }], ['phone', { width: 375, height: 812 }]]) {
        const page = await browser.newPage({ viewport });
        const problems = [];
        page.on('pageerror', (e) => problems.push(e.message));
        page.on('console', (m) => m.type() === 'error' && !/401/.test(m.text()) && problems.push(m.text()));
        await page.goto(`${gate.base}/console/`);
        await page.waitForSelector('#signin:not([hidden])');
        await page.fill('#token', olga);
        await page.click('#signin button[type=submit]');
        const card = '#upstreams li[data-id="ev"]';
        await page.waitForSelector(`${card} svg.chart-rate path`);
        // Charts with data: a line that rises somewhere, and numbers beside it.
        const line = await page.getAttribute(`${card} svg.chart-rate path`, 'd');
        assert.ok(line.split(/[ML]/).filter(Boolean).some((p) => Number(p.trim().split(' ')[1]) < 34), line);
        assert.match(await page.textContent(`${card} .traffic .latency figcaption`), /^p50 [\d.]+ ms · p99 [\d.]+ ms$/);
        assert.match(await page.textContent(`${card} .totals`), /requests in 15 min: ok \d+ · denied 2/);
        assert.match(await page.textContent(`${card} .owner`), /owner: tools \(tools@example.com\)tier=gold/);
        // The breaker that opened, on the timeline.
        await page.waitForSelector('#timeline li.to-open');
        assert.match(await page.textContent('#timeline li.to-open'), /flaky.*breaker closed → open/);
        // The catalog: allowed and denied, with the rule.
        await page.waitForSelector('#catalog-ev');
        await page.click('#catalog-ev summary');
        const denied = '#catalog-ev tr.denied[data-name="ev__get-env"]';
        await page.waitForSelector(denied);
        assert.match(await page.textContent(`${denied} .rule`), /^ops-calls/);
        assert.equal(await page.textContent('#catalog-ev tr[data-name="ev__echo"] .decision'), 'allowed');
        // The refusals: Olga's only.
        assert.equal(await page.locator('#refusals tbody tr').count(), 1);
        assert.match(await page.textContent('#refusals tbody tr'), /tools\/call.*ev__get-env.*ev.*denied.*ops-calls/);
        // The keyboard reaches every section: its link, a card's catalog link, the catalog,
        // the timeline and the refusals.
        await page.focus('body');
        await page.evaluate(() => document.activeElement.blur());
        const reached = new Set();
        for (let i = 0; i < 80; i++) {
          await page.keyboard.press('Tab');
          reached.add(await page.evaluate(() => {
            const a = document.activeElement;
            return a.id || a.getAttribute('aria-label') || a.getAttribute('aria-labelledby') || `${a.tagName}:${a.textContent.slice(0, 20)}`;
          }));
        }
        for (const want of ['A:Upstreams', 'A:Timeline', 'A:Catalog', 'A:Refusals', 'A:Policy', 'Catalog of ev', 'timeline-title', 'catalog-refresh', 'SUMMARY:ev — ', 'refusals-title']) {
          assert.ok([...reached].some((r) => r.startsWith(want)), `${want} not reached by Tab: ${[...reached].join(', ')}`);
        }
        // Following a section link by keyboard moves there.
        await page.focus('nav#sections a[href="#refusals-section"]');
        await page.keyboard.press('Enter');
        assert.equal(await page.evaluate(() => location.hash), '#refusals-section');
        if (name === 'phone') {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          assert.ok(width <= 375, `the page is ${width} px wide at a phone's 375`);
        }
        await page.evaluate(() => window.scrollTo(0, 0));
        for (const [file, fullPage] of [[path.join(SHOTS, `${name}.png`), true], [path.join(SHOTS, `${name}-first-screen.png`), false]]) {
          await page.screenshot({ path: file, fullPage });
          t.diagnostic(`screenshot: ${file}`);
        }
        assert.deepEqual(problems, [], 'no script errors and no content security policy violations');
        await page.close();
      }
    } finally {
      await flowing;
      await browser.close();
    }
  });
});
