// The gate-hooks console page in headless Chromium (Debian's chromium, driven by
// playwright-core): sign in, toggle a webhook, send a test, read the history, retry a dead
// letter, and see each change in the page and in the API.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { chromium } from 'playwright-core';

import { TOKENS, eventually, makeTestCa, startHooks, startReceiver } from './lib/index.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

describe('the gate-hooks console page', { timeout: 120_000 }, () => {
  let ca;
  let receiver;
  let hooks;
  let browser;

  before(async () => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile, maxAttempts: 1 } } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    await hooks?.stop();
    hooks?.cleanup();
    await receiver?.stop();
    ca?.cleanup();
  });

  test('toggle a webhook, test it, read its history, retry a dead letter', async () => {
    let broken = true;
    receiver.respond = (r) => (r.url === '/console-fail' && broken ? { status: 503 } : { status: 200 });
    const ok = (await hooks.api('POST', '/webhooks', { body: { event: 'deploy.success', url: receiver.url('/console-ok') } })).json;
    const failing = (await hooks.api('POST', '/webhooks', { body: { event: 'deploy.failed', url: receiver.url('/console-fail') } })).json;
    await hooks.api('POST', '/events', { body: { type: 'deploy.failed', data: {} } });
    await eventually(async () => (await hooks.api('GET', '/webhook-deliveries/dlq/stats')).json.total === 1, { what: 'a dead letter' });

    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${hooks.base}/`);
    await page.fill('#token', TOKENS.org_a);
    await page.click('#signin button[type=submit]');
    await page.waitForSelector(`#hooks tr[data-id="${ok.id}"]`);
    assert.equal(await page.locator('#hooks tbody tr').count(), 2);

    // Toggle: the switch goes off, the API agrees.
    await page.uncheck(`#hooks tr[data-id="${ok.id}"] input[type=checkbox]`);
    await page.waitForFunction(() => document.querySelector('#status').textContent.includes('disabled'));
    assert.equal((await hooks.api('GET', `/webhooks/${ok.id}`)).json.enabled, false);
    await page.check(`#hooks tr[data-id="${ok.id}"] input[type=checkbox]`);
    await page.waitForFunction(() => document.querySelector('#status').textContent.includes('enabled'));
    assert.equal((await hooks.api('GET', `/webhooks/${ok.id}`)).json.enabled, true);

    // Test: the receiver gets a test payload and the page says how it answered.
    await page.click(`#hooks tr[data-id="${ok.id}"] button:has-text("Test")`);
    await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('test delivered: 200'));
    assert.ok(receiver.received.some((r) => r.url === '/console-ok' && r.json.type === 'webhook.test'));

    // History of the failing webhook shows the dead delivery.
    await page.click(`#hooks tr[data-id="${failing.id}"] button:has-text("History")`);
    await page.waitForSelector('#deliveries tbody tr');
    assert.match(await page.locator('#deliveries tbody tr').first().innerText(), /dead/);

    // Retry the dead letter once the receiver is back: it leaves the queue, on the page too.
    await page.waitForSelector('#dlq tbody tr');
    broken = false;
    await page.click('#dlq tbody tr button:has-text("Retry")');
    await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('retrying 1'));
    await eventually(async () => (await hooks.api('GET', '/webhook-deliveries/dlq/stats')).json.total === 0, { what: 'the queue emptied' });
    await page.waitForFunction(() => document.querySelectorAll('#dlq tbody tr').length === 0, null, { timeout: 10_000 });
    assert.equal(await page.locator('#dlq-stats').innerText(), '0 failed deliveries');
    assert.deepEqual(problems, []);
  });

  test('a wrong token is refused on the page', async () => {
    const page = await browser.newPage();
    await page.goto(`${hooks.base}/`);
    await page.fill('#token', 'not-the-right-token');
    await page.click('#signin button[type=submit]');
    await page.waitForFunction(() => document.querySelector('#status').className === 'error');
    assert.match(await page.locator('#status').innerText(), /not valid/);
    assert.equal(await page.locator('#hooks-section').isHidden(), true);
  });
});
