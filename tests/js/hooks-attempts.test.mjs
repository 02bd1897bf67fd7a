// gate-hooks' log of attempts end to end, on both stores (SQLite and a real PostgreSQL), against
// the real binary and a real HTTPS receiver on 127.0.0.1: a delivery the receiver fails twice
// (a 503, then no answer within the timeout) and then accepts shows its three attempts, with
// their numbers, codes, the failure's kind and timing, in the API (the webhook's recent
// attempts and the delivery's log) and in the console in headless Chromium, reached from the
// keyboard; another organization's token gets 404 for both, like an id nobody holds; and the
// console's create form makes a signed webhook by default and an unsigned one when chosen.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { TOKENS, eventually, makeTestCa, startHooks, startPostgres, startReceiver } from './lib/index.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const SHOTS = mkdtempSync(path.join(tmpdir(), 'gate-hooks-attempts-'));
const TIMEOUT_MS = 1000; // one attempt's limit: the second attempt's answer never comes

let pg;
let browser;
before(async () => {
  assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
  await pg?.stop();
});

for (const backend of ['sqlite', 'postgres']) {
  describe(`gate-hooks attempts on ${backend}`, { timeout: 120_000 }, () => {
    let ca;
    let receiver;
    let hooks;
    let hook; // the webhook whose delivery failed twice, then succeeded
    let delivery;

    before(async () => {
      ca = makeTestCa();
      receiver = await startReceiver(ca);
      const dbPath = backend === 'postgres' ? await (pg ??= await startPostgres()).createDatabase() : undefined;
      hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile, maxAttempts: 4, timeoutMs: TIMEOUT_MS } }, dbPath });
    });
    after(async () => {
      await hooks?.stop();
      hooks?.cleanup();
      await receiver?.stop();
      ca?.cleanup();
    });

    const attemptsOf = async (route, token = TOKENS.org_a) => {
      const r = await hooks.api('GET', route, { token });
      assert.equal(r.status, 200, r.text);
      return r.json.attempts;
    };

    test('a delivery failed twice and then delivered shows its three attempts in the API', async () => {
      let calls = 0;
      receiver.onHang = () => {}; // never answered: the attempt's timeout ends it
      receiver.respond = (r) => {
        if (r.url !== '/flaky') return { status: 200 };
        calls += 1;
        return calls === 1 ? { status: 503, body: 'not now' } : calls === 2 ? { hang: true } : { status: 200, body: 'ok' };
      };
      hook = (await hooks.api('POST', '/webhooks', { body: { event: 'deploy.failed', url: receiver.url('/flaky') } })).json;
      assert.equal((await hooks.api('POST', '/events', { body: { type: 'deploy.failed', data: { n: 1 } } })).status, 202);
      await eventually(async () => (await hooks.api('GET', `/webhooks/${hook.id}/deliveries`)).json.deliveries[0]?.status === 'succeeded', {
        timeoutMs: 15_000,
        what: 'the delivery succeeding on its third attempt',
      });
      [delivery] = (await hooks.api('GET', `/webhooks/${hook.id}/deliveries`)).json.deliveries;
      assert.equal(delivery.attempts, 3);
      assert.equal(calls, 3, 'the receiver heard three attempts');

      const recent = await attemptsOf(`/webhooks/${hook.id}/attempts`);
      assert.deepEqual(
        recent.map((a) => [a.attempt, a.response_code, a.failure]),
        [
          [3, 200, null],
          [2, null, 'timeout'],
          [1, 503, null],
        ],
      );
      for (const a of recent) {
        assert.deepEqual(Object.keys(a).sort(), ['attempt', 'delivery_id', 'duration_ms', 'ended_at', 'failure', 'response_code', 'webhook_id'], 'nothing of the exchange but its outcome');
        assert.equal(a.delivery_id, delivery.id);
        assert.equal(a.webhook_id, hook.id);
        assert.ok(Number.isInteger(a.duration_ms) && a.duration_ms >= 0, JSON.stringify(a));
      }
      assert.ok(recent[1].duration_ms >= TIMEOUT_MS - 1 && recent[1].duration_ms < TIMEOUT_MS + 2000, `the timed-out attempt took ${recent[1].duration_ms} ms`);
      assert.ok(Date.parse(recent[0].ended_at) > Date.parse(recent[1].ended_at) && Date.parse(recent[1].ended_at) > Date.parse(recent[2].ended_at), 'newest first');
      // The latest is the delivery's own latest attempt.
      assert.equal(recent[0].ended_at, delivery.last_attempt_at);
      assert.equal(recent[0].duration_ms, delivery.last_duration_ms);

      const log = await attemptsOf(`/webhook-deliveries/${delivery.id}/attempts`);
      assert.deepEqual(log, [...recent].reverse(), "the delivery's log, the first first");
    });

    test("another organization's token gets 404 for them, like an id nobody holds", async () => {
      for (const route of [`/webhooks/${hook.id}/attempts`, `/webhook-deliveries/${delivery.id}/attempts`]) {
        const theirs = await hooks.api('GET', route, { token: TOKENS.org_b });
        assert.equal(theirs.status, 404, theirs.text);
        assert.equal(theirs.json.error.code, 'not_found');
        assert.ok(!theirs.text.includes('attempt"'), theirs.text);
        assert.equal((await hooks.api('GET', route, { token: null })).status, 401);
      }
      const nobody = await hooks.api('GET', '/webhook-deliveries/dlv_000000000000000000000000/attempts', { token: TOKENS.org_b });
      assert.equal(nobody.status, 404);
      assert.deepEqual(Object.keys(nobody.json.error).sort(), ['code', 'message']);
      // Still there for its own organization.
      assert.equal((await attemptsOf(`/webhook-deliveries/${delivery.id}/attempts`)).length, 3);
    });

    const signedIn = async (token = TOKENS.org_a) => {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.problems = [];
      page.on('pageerror', (e) => page.problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
      await page.goto(`${hooks.base}/`);
      await page.focus('#token');
      await page.keyboard.type(token);
      await page.keyboard.press('Enter');
      await page.waitForSelector('#console:not([hidden])');
      return page;
    };

    test('the console shows the three attempts, reached from the keyboard', async (t) => {
      const page = await signedIn();
      await page.waitForSelector(`#hooks tr[data-id="${hook.id}"]`);
      let reached = false;
      for (let i = 0; i < 80 && !reached; ++i) {
        await page.keyboard.press('Tab');
        reached = await page.evaluate((label) => document.activeElement?.getAttribute('aria-label') === label, `Attempts ${hook.id}`);
      }
      assert.ok(reached, 'the Attempts button is reachable with Tab');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => document.querySelectorAll('#attempt-log tbody tr').length === 3);
      const rows = await page.locator('#attempt-log tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
      const api = await attemptsOf(`/webhooks/${hook.id}/attempts`);
      assert.deepEqual(
        rows,
        api.map((a) => [delivery.id, String(a.attempt), a.response_code === null ? '—' : String(a.response_code), a.failure ?? '', `${a.duration_ms} ms`, a.ended_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')]),
      );
      assert.deepEqual(rows.map((r) => r.slice(1, 4)), [['3', '200', ''], ['2', '—', 'timeout'], ['1', '503', '']]);
      await shot(t, page, `attempts-${backend}`);

      // A refresh redraws the log and leaves the keyboard where it was.
      await page.waitForResponse((r) => r.url().endsWith(`/webhooks/${hook.id}/attempts`));
      await page.waitForFunction(() => document.querySelectorAll('#attempt-log tbody tr').length === 3);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), `Attempts ${hook.id}`);

      // Another organization, signed in on the page, is refused its attempts by the API.
      const other = await signedIn(TOKENS.org_b);
      await other.waitForSelector('#hooks-empty:not([hidden])');
      const status = await other.evaluate(async (id) => (await fetch(`/webhooks/${id}/attempts`, { headers: { Authorization: `Bearer ${sessionStorage.getItem('gate-hooks-token')}` } })).status, hook.id);
      assert.equal(status, 404);
      assert.deepEqual([...page.problems, ...other.problems.filter((m) => !/status of 404/.test(m))], []);
      await page.close();
      await other.close();
    });

    test('the create form makes a signed webhook by default, an unsigned one when chosen', async (t) => {
      const page = await signedIn();
      assert.equal(await page.isChecked('#create-signed'), true, 'signed is the default');
      assert.equal(await page.isChecked('#create-unsigned'), false);
      const secret = await page.inputValue('#create-secret');
      assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/, 'a strong secret is ready');
      await page.selectOption('#create-event', 'activation.error');
      await page.fill('#create-url', receiver.url('/signed'));
      await page.click('#create button[type=submit]');
      await page.waitForSelector('#secret-dialog[open]');
      assert.equal(await page.inputValue('#secret-value'), secret, 'the secret shown once');
      await page.click('#secret-done');
      // The dialog's close hands the keyboard back to the new webhook's row; typing starts after
      // that, or a key meant for the form could land in the table.
      await page.waitForFunction(() => !document.querySelector('dialog[open]') && document.activeElement?.closest('#hooks') !== null);
      const byUrl = async (p) => (await hooks.api('GET', '/webhooks')).json.webhooks.find((w) => w.url === receiver.url(p));
      assert.equal((await byUrl('/signed')).has_secret, true);
      assert.notEqual(await page.inputValue('#create-secret'), secret, 'a fresh secret for the next one');

      // Signed with the secret emptied: refused on the page, nothing created.
      await page.fill('#create-secret', '');
      await page.fill('#create-url', receiver.url('/emptied'));
      assert.equal(await page.inputValue('#create-secret'), '', 'the secret emptied before submitting');
      await page.click('#create button[type=submit]');
      await page.waitForFunction(() => document.querySelector('#create-secret-error').textContent !== '' || document.querySelector('dialog[open]') !== null);
      assert.match(await page.locator('#create-secret-error').innerText(), /required for a signed webhook/);
      assert.equal(await page.evaluate(() => document.activeElement.id), 'create-secret');
      assert.equal(await byUrl('/emptied'), undefined);

      // Unsigned, chosen with the keyboard: the secret's field goes, and so does any signature.
      await page.focus('#create-signed');
      await page.keyboard.press('ArrowDown');
      assert.equal(await page.isChecked('#create-unsigned'), true);
      assert.equal(await page.isVisible('#create-secret'), false);
      await page.fill('#create-url', receiver.url('/unsigned'));
      await page.click('#create button[type=submit]');
      await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('created hook_'));
      assert.equal(await page.locator('#secret-dialog[open]').count(), 0, 'no secret to show');
      assert.equal((await byUrl('/unsigned')).has_secret, false);
      assert.equal(await page.isChecked('#create-signed'), true, 'back to signed for the next one');
      await shot(t, page, `create-${backend}`);
      assert.deepEqual(page.problems, []);
      await page.close();
    });
  });
}

async function shot(t, page, name) {
  const file = path.join(SHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  t.diagnostic(`screenshot: ${file}`);
}
