// The last step of tests/debian/systemd-story.sh, run on the booted machine's network
// (ip netns exec): a person with the installed gate at BASE makes calls through it with the
// MCP SDK, opens the console in headless Chromium and sees them as traffic on the example's
// upstream card, then sees further calls arrive on the open page without reloading it.
// Screenshots go to SHOTS. Exits non-zero, saying what was missing, when a step fails.
//
//   node tests/js/debian/installed-console.mjs BASE SHOTS
import assert from 'node:assert/strict';
import path from 'node:path';

import { chromium } from 'playwright-core';

import { connectClient } from '../lib/client.mjs';

const [base, shots] = process.argv.slice(2);
assert.ok(base && shots, 'usage: installed-console.mjs BASE SHOTS');
const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';

// Calls through gate to the example's "github" upstream (namespace gh).
async function callThroughGate(times) {
  const client = await connectClient(`${base}/mcp`, { name: 'debian-story' });
  try {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    assert.ok(names.includes('gh__whoami') && names.includes('search__whoami'), names.join(', '));
    for (let i = 0; i < times; i++) {
      const r = await client.callTool({ name: 'gh__whoami', arguments: {} });
      assert.notEqual(r.isError, true, JSON.stringify(r));
    }
  } finally {
    await client.close();
  }
}

// Until the github card's "N requests in 15 min: ok M ..." counts at least `atLeast` ok
// (the page reads the traffic every 5 s); its text.
async function waitForOk(page, atLeast, what) {
  const totals = '#upstreams li[data-id="github"] .totals';
  try {
    await page.waitForFunction(
      ([sel, want]) => {
        const m = /^\d+ requests in 15 min: ok (\d+)/.exec(document.querySelector(sel)?.textContent ?? '');
        return m && Number(m[1]) >= want;
      },
      [totals, atLeast],
      { timeout: 20_000 },
    );
  } catch {
    const text = await page.textContent(totals).catch(() => '(no card)');
    assert.fail(`${what}: the github card says "${text}", wanted ok ≥ ${atLeast}`);
  }
  const text = await page.textContent(totals);
  return { text, ok: Number(/: ok (\d+)/.exec(text)[1]) };
}

await callThroughGate(12);
const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  await page.goto(`${base}/console/`);
  const card = '#upstreams li[data-id="github"]';
  await page.waitForSelector(`${card} svg.chart-rate path`);
  const first = await waitForOk(page, 12, 'the calls made before the page opened');
  console.log(`console: ${first.text}`);
  await page.screenshot({ path: path.join(shots, 'console-before.png'), fullPage: true });
  // Live: calls made while the page is open show without reloading it.
  await callThroughGate(5);
  const later = await waitForOk(page, first.ok + 5, 'the calls made while the page was open');
  console.log(`console, live: ${later.text}`);
  assert.match(await page.textContent(`${card} .traffic .latency figcaption`), /^p50 [\d.]+ ms · p99 [\d.]+ ms$/);
  await page.screenshot({ path: path.join(shots, 'console-live.png'), fullPage: true });
  console.log(`screenshots: ${path.join(shots, 'console-before.png')}, ${path.join(shots, 'console-live.png')}`);
  assert.deepEqual(problems, [], 'no script errors and no content security policy violations');
} finally {
  await browser.close();
}
