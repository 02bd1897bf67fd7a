// The gate-hooks console in headless Chromium (Debian's chromium, driven by playwright-core)
// against the real binary and a real HTTPS receiver: create, edit, switch, rotate the secret
// of and delete a webhook, the API's refusals shown beside their field (on an instance that
// refuses private targets), the numbers at a glance, recent attempts with status codes and
// timing, a dead-letter retry, a phone's width and the keyboard. Every action is checked in
// the API too. Screenshots go to a temporary folder, named in the test output.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { TOKENS, eventually, makeTestCa, signatureValid, startHooks, startReceiver } from './lib/index.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const SHOTS = mkdtempSync(path.join(tmpdir(), 'gate-hooks-console-'));

describe('the gate-hooks console page', { timeout: 180_000 }, () => {
  let ca;
  let receiver;
  let open; // private targets allowed: it delivers to the local receiver
  let guarded; // the default: private targets refused
  let browser;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    open = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile, maxAttempts: 1 } } });
    guarded = await startHooks({ config: { delivery: { caFile: ca.caFile, maxAttempts: 1 } } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    for (const h of [open, guarded]) {
      await h?.stop();
      h?.cleanup();
    }
    await receiver?.stop();
    ca?.cleanup();
  });

  // A page signed in to `hooks` with `token`; page errors and CSP violations are collected.
  const signedIn = async (hooks, { token = TOKENS.org_a, viewport = { width: 1280, height: 900 } } = {}) => {
    const page = await browser.newPage({ viewport });
    page.problems = [];
    page.on('pageerror', (e) => page.problems.push(e.message));
    page.on('console', (m) => m.type() === 'error' && page.problems.push(m.text()));
    await page.goto(`${hooks.base}/`);
    await page.fill('#token', token);
    await page.click('#signin button[type=submit]');
    await page.waitForSelector('#console:not([hidden])');
    await page.waitForSelector('#signin', { state: 'hidden' });
    return page;
  };
  const shot = async (t, page, name) => {
    const file = path.join(SHOTS, `${name}.png`);
    await page.screenshot({ path: file, fullPage: true });
    t.diagnostic(`screenshot: ${file}`);
  };
  const row = (id) => `#hooks tr[data-id="${id}"]`;
  const statusSays = (page, text) => page.waitForFunction((t) => document.querySelector('#status').textContent.includes(t), text);
  const hookOf = async (hooks, id) => (await hooks.api('GET', `/webhooks/${id}`)).json;

  test('create, edit, switch, rotate the secret of, and delete a webhook', async (t) => {
    receiver.respond = () => ({ status: 200 });
    const page = await signedIn(open);
    await page.selectOption('#create-event', 'rollback.success');
    await page.check('#create-unsigned'); // signed is the default (hooks-attempts.test.mjs)
    await page.fill('#create-url', receiver.url('/console-first'));
    await page.click('#create button[type=submit]');
    await statusSays(page, 'created hook_');
    const [created] = (await open.api('GET', '/webhooks')).json.webhooks.filter((w) => w.url === receiver.url('/console-first'));
    assert.equal(created.event, 'rollback.success');
    assert.equal(created.has_secret, false);
    await page.waitForSelector(row(created.id));

    // Edit: the URL changes, the event is shown and cannot be changed.
    await page.click(`${row(created.id)} button[data-action=edit]`);
    assert.equal(await page.locator('#edit-event').innerText(), 'rollback.success');
    assert.equal(await page.locator('#edit-dialog select, #edit-dialog [name=event]').count(), 0);
    await page.fill('#edit-url', receiver.url('/console-moved'));
    await page.click('#edit button[type=submit]');
    await statusSays(page, `saved ${created.id}`);
    assert.equal((await hookOf(open, created.id)).url, receiver.url('/console-moved'));
    // The status is said before the list is fetched again: wait for the row, not the status.
    await page.waitForFunction(([sel, text]) => document.querySelector(sel)?.textContent.includes(text), [row(created.id), 'console-moved']);

    // The switch, in the row and in the edit dialog.
    await page.uncheck(`${row(created.id)} input[type=checkbox]`);
    await statusSays(page, `${created.id} disabled`);
    assert.equal((await hookOf(open, created.id)).enabled, false);
    await page.click(`${row(created.id)} button[data-action=edit]`);
    await page.check('#edit-enabled');
    await page.click('#edit button[type=submit]');
    await page.waitForFunction((id) => document.querySelector(`#hooks tr[data-id="${id}"] input[type=checkbox]`)?.checked, created.id);
    assert.equal((await hookOf(open, created.id)).enabled, true);

    // Rotate: a secret made in the browser, shown once, and the next delivery signed with it.
    await page.click(`${row(created.id)} button[data-action=rotate]`);
    await page.click('#rotate button[type=submit]');
    await page.waitForSelector('#secret-dialog[open]');
    const secret = await page.inputValue('#secret-value');
    assert.match(secret, /^whsec_[A-Za-z0-9_-]{43}$/);
    assert.equal((await hookOf(open, created.id)).has_secret, true);
    await shot(t, page, 'rotated-secret-shown-once');
    await page.click('#secret-done');
    assert.equal(await page.inputValue('#secret-value'), '', 'gone once the dialog is closed');
    assert.ok(!(await page.content()).includes(secret));
    const ev = (await open.api('POST', '/events', { body: { type: 'rollback.success', data: { n: 1 } } })).json;
    await eventually(() => receiver.received.some((r) => r.json?.event_id === ev.id), { what: 'the signed delivery' });
    const got = receiver.received.find((r) => r.json?.event_id === ev.id);
    assert.equal(got.url, '/console-moved');
    assert.ok(signatureValid(secret, got.body, got.headers['gate-signature']), 'signed with the rotated secret');

    // Delete, after a confirmation.
    await page.click(`${row(created.id)} button[data-action=delete]`);
    assert.match(await page.locator('#delete-dialog').innerText(), /console-moved/);
    await page.click('#delete button[type=submit]');
    await statusSays(page, `deleted ${created.id}`);
    await page.waitForSelector(row(created.id), { state: 'detached' });
    assert.equal((await open.api('GET', `/webhooks/${created.id}`)).status, 404);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test("the API's refusals beside their field: a private URL, a short secret", async (t) => {
    const page = await signedIn(guarded);
    await page.fill('#create-url', 'https://10.0.0.1/x');
    await page.click('#create button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#create-url-error').textContent !== '');
    assert.match(await page.locator('#create-url-error').innerText(), /^url targets a non-public address \(10\.0\.0\.1\)/);
    assert.equal(await page.getAttribute('#create-url', 'aria-invalid'), 'true');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'create-url');
    await shot(t, page, 'refused-private-url');

    await page.fill('#create-url', 'https://hooks.example.com/x');
    await page.fill('#create-secret', 'short');
    await page.click('#create button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#create-secret-error').textContent !== '');
    assert.match(await page.locator('#create-secret-error').innerText(), /secret .*16/);
    assert.equal(await page.locator('#create-url-error').innerText(), '', 'the earlier refusal is cleared');
    assert.deepEqual((await guarded.api('GET', '/webhooks')).json.webhooks, [], 'nothing was created');
    await shot(t, page, 'refused-short-secret');

    // The same refusals when editing and rotating an existing webhook; nothing changes.
    await page.check('#create-unsigned');
    await page.click('#create button[type=submit]');
    await statusSays(page, 'created hook_');
    const [hook] = (await guarded.api('GET', '/webhooks')).json.webhooks;
    await page.click(`${row(hook.id)} button[data-action=edit]`);
    await page.fill('#edit-url', 'https://[::1]/x');
    await page.click('#edit button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#edit-url-error').textContent !== '');
    assert.match(await page.locator('#edit-url-error').innerText(), /non-public address/);
    await page.keyboard.press('Escape');
    await page.click(`${row(hook.id)} button[data-action=rotate]`);
    await page.fill('#rotate-secret', 'too-short');
    await page.click('#rotate button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#rotate-secret-error').textContent !== '');
    assert.match(await page.locator('#rotate-secret-error').innerText(), /secret .*16/);
    assert.equal(await page.locator('#secret-dialog[open]').count(), 0, 'no secret shown for a refused rotation');
    const after = await hookOf(guarded, hook.id);
    assert.equal(after.url, 'https://hooks.example.com/x');
    assert.equal(after.has_secret, false);

    // Another organization sees none of it.
    const other = await signedIn(guarded, { token: TOKENS.org_b });
    await other.waitForSelector('#hooks-empty:not([hidden])');
    assert.equal(await other.locator('#hooks tbody tr').count(), 0);
    assert.deepEqual([...page.problems, ...other.problems].filter((p) => !/status of 400/.test(p)), []);
    await page.close();
    await other.close();
  });

  test('the numbers at a glance, recent attempts with codes and timing, a dead-letter retry', async (t) => {
    let broken = true;
    receiver.respond = (r) => (r.url === '/glance-fail' && broken ? { status: 503 } : { status: 200 });
    const ok = (await open.api('POST', '/webhooks', { body: { event: 'deploy.success', url: receiver.url('/glance-ok') } })).json;
    const failing = (await open.api('POST', '/webhooks', { body: { event: 'deploy.failed', url: receiver.url('/glance-fail') } })).json;
    const page = await signedIn(open);
    const stat = (id) => page.locator(`#stat-${id}`).innerText();
    await page.waitForFunction(() => document.querySelector('#stat-delivered').textContent !== '–');
    const before = { delivered: Number(await stat('delivered')), failed: Number(await stat('failed')) };

    await open.api('POST', '/events', { body: { type: 'deploy.success', data: {} } });
    await open.api('POST', '/events', { body: { type: 'deploy.failed', data: {} } });
    await page.waitForFunction((n) => Number(document.querySelector('#stat-delivered').textContent) === n, before.delivered + 1, { timeout: 10_000 });
    await page.waitForFunction((n) => Number(document.querySelector('#stat-failed').textContent) === n, before.failed + 1, { timeout: 10_000 });
    assert.equal(await stat('dead'), '1');
    assert.match(await stat('rate'), /^\d+\.\d\d\/min$/);
    assert.match(await stat('failure'), /^\d+%$/);
    const api = await open.stats();
    assert.equal(await stat('failure'), `${Math.round(api.failure_rate * 100)}%`);

    // The failing webhook's attempts: 503, how long it took, when.
    await page.click(`${row(failing.id)} button[data-action=attempts]`);
    await page.waitForSelector('#attempts tbody tr');
    const cells = await page.locator('#attempts tbody tr').first().locator('td').allInnerTexts();
    assert.equal(cells[2], 'dead');
    assert.equal(cells[4], '503');
    assert.match(cells[5], /^\d+ ms$/);
    assert.match(cells[6], /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/);
    const [d] = (await open.api('GET', `/webhooks/${failing.id}/deliveries`)).json.deliveries;
    assert.equal(cells[5], `${d.last_duration_ms} ms`);
    await shot(t, page, 'glance-and-attempts');

    // Retry from the dead-letter queue once the receiver is back: the attempts show 200.
    broken = false;
    await page.click(`#dlq tbody tr button[data-action=retry]`);
    await statusSays(page, 'retrying 1');
    await page.waitForFunction(() => document.querySelectorAll('#dlq tbody tr').length === 0, null, { timeout: 10_000 });
    assert.equal(await page.locator('#dlq-stats').innerText(), '0 failed deliveries');
    await page.waitForFunction(() => document.querySelector('#attempts tbody tr td:nth-child(5)')?.textContent === '200', null, { timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector('#stat-dead').textContent === '0', null, { timeout: 10_000 });
    assert.equal((await open.api('GET', '/webhook-deliveries/dlq/stats')).json.total, 0);

    // The test button still answers in the status line.
    await page.click(`${row(ok.id)} button[data-action=test]`);
    await statusSays(page, 'test delivered: 200');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  test("readable at a phone's width, usable from the keyboard, every control labelled", async (t) => {
    const hook = (await open.api('POST', '/webhooks', { body: { event: 'usage.threshold', url: receiver.url('/phone') } })).json;
    const page = await browser.newPage({ viewport: { width: 375, height: 740 } });
    await page.goto(`${open.base}/`);
    await page.focus('#token');
    await page.keyboard.type(TOKENS.org_a);
    await page.keyboard.press('Enter');
    await page.waitForSelector(row(hook.id));
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 375), 'no sideways scrolling at 375 px');
    await shot(t, page, 'phone-375px');

    const unlabelled = await page.evaluate(() =>
      [...document.querySelectorAll('input, select, button')]
        .filter((e) => !(e.labels?.length || e.getAttribute('aria-label') || (e.tagName === 'BUTTON' && e.textContent.trim())))
        .map((e) => e.outerHTML),
    );
    assert.deepEqual(unlabelled, []);

    // Tab reaches the row's Edit button; Enter opens the dialog; Escape closes it and gives
    // the focus back.
    let reached = false;
    for (let i = 0; i < 80 && !reached; ++i) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate((label) => document.activeElement?.getAttribute('aria-label') === label, `Edit ${hook.id}`);
    }
    assert.ok(reached, 'the Edit button is reachable with Tab');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#edit-dialog[open]');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'edit-url');
    await page.keyboard.press('Escape');
    await page.waitForFunction((label) => !document.querySelector('#edit-dialog').open && document.activeElement?.getAttribute('aria-label') === label, `Edit ${hook.id}`);
    await page.close();
  });

  test('the page allows no inline script or style and no other origin', async () => {
    const res = await fetch(`${open.base}/`);
    const csp = res.headers.get('content-security-policy');
    assert.match(csp, /script-src 'self';/);
    assert.doesNotMatch(csp, /unsafe-inline|https?:/);
    assert.match(csp, /frame-ancestors 'none'/);
    const html = await res.text();
    assert.doesNotMatch(html, /<script>|<style>| style=| on[a-z]+=/);
    assert.equal((await fetch(`${open.base}/console/console.js`)).headers.get('content-type'), 'text/javascript; charset=utf-8');
  });

  test('a wrong token is refused on the page', async () => {
    const page = await browser.newPage();
    await page.goto(`${open.base}/`);
    await page.fill('#token', 'not-the-right-token');
    await page.click('#signin button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#status').className === 'error');
    assert.match(await page.locator('#status').innerText(), /not valid/);
    assert.equal(await page.locator('#console').isHidden(), true);
    await page.close();
  });
});
