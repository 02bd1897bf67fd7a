// MCP Apps through a federation, with the real App servers of @modelcontextprotocol
// (server-basic-vanillajs, server-system-monitor 2.0.3) and the real ext-apps host side
// (AppBridge 2.0.4) over a real MCP client to gate. A view calls its own server's tools by
// the names that server knows (`get-time`, `poll-system-stats`), not gate's namespaced ones:
// gate resolves such a name when exactly one of the caller's tools has it, under the
// policy of the resolved name, and names the candidates when several do.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client, InMemoryTransport, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { App } from '@modelcontextprotocol/ext-apps';
import { chromium } from 'playwright-core';

import * as z from 'zod';

import { startAppServer, startGate, startParamServer } from './lib/index.mjs';
import { startStatelessServer } from './lib/stateless-server.mjs';

const CHROMIUM = process.env.CHROMIUM_BIN || '/usr/bin/chromium';
const UI = 'io.modelcontextprotocol/ui';
const HOST = { name: 'gate-test-host', version: '0.0.0' };

/** A host's MCP client to gate, declaring the UI extension as an MCP Apps host does. */
async function hostClient(url) {
  const client = new Client(HOST, { capabilities: { extensions: { [UI]: { mimeTypes: ['text/html;profile=mcp-app'] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** A real AppBridge for `tool`, over `client`, to a view at the far end of `transport`. */
async function bridgeTo(client, tool, transport) {
  const bridge = new AppBridge(client, HOST, { serverTools: {}, serverResources: {}, logging: {} }, { hostContext: { toolInfo: { tool } } });
  const initialized = new Promise((resolve) => bridge.addEventListener('initialized', resolve));
  await bridge.connect(transport);
  return { bridge, initialized };
}

describe('MCP Apps through gate', { timeout: 180_000 }, () => {
  let basic;
  let basic2;
  let sysmon;
  let gate;
  let client;

  before(async () => {
    [basic, basic2, sysmon] = await Promise.all([startAppServer('basic-vanillajs'), startAppServer('basic-vanillajs'), startAppServer('system-monitor')]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'basic', url: basic.url, namespace: 'basic' },
          { id: 'sysmon', url: sysmon.url, namespace: 'sysmon' },
        ],
      },
    });
    client = await hostClient(gate.url);
  });

  after(async () => {
    await client?.close();
    await gate?.stop();
    await Promise.all([basic, basic2, sysmon].map((s) => s?.stop()));
  });

  test("a view's calls by its server's own names reach that server through a real AppBridge", async () => {
    const { tools } = await client.listTools();
    for (const [toolName, viewCalls] of [
      ['basic__get-time', 'get-time'],
      ['sysmon__get-system-info', 'poll-system-stats'],
    ]) {
      const tool = tools.find((t) => t.name === toolName);
      assert.ok(getToolUiResourceUri(tool), `${toolName} has a view`);
      const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
      const { bridge, initialized } = await bridgeTo(client, tool, hostSide);
      const app = new App({ name: 'view', version: '0.0.0' }, {}, { autoResize: false });
      try {
        await app.connect(viewSide);
        await initialized;
        const r = await app.callServerTool({ name: viewCalls, arguments: {} });
        assert.notEqual(r.isError, true, JSON.stringify(r));
        assert.ok(r.structuredContent ?? r.content?.length, `${viewCalls} answered: ${JSON.stringify(r).slice(0, 200)}`);
      } finally {
        await app.close();
        await bridge.close();
      }
    }
  });

  test('the real views run in headless Chromium: the time updates on click, the monitor polls', { timeout: 60_000 }, async (t) => {
    assert.ok(existsSync(CHROMIUM), `chromium not found at ${CHROMIUM} (scripts/install-deps.sh installs it)`);
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
    t.after(() => browser.close());
    const { tools } = await client.listTools();
    for (const toolName of ['basic__get-time', 'sysmon__get-system-info']) {
      const tool = tools.find((x) => x.name === toolName);
      const html = (await client.readResource({ uri: getToolUiResourceUri(tool) })).contents[0].text;
      const page = await browser.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(e.message));
      // The host page only relays the view's messages to the AppBridge here, and back.
      const transport = {
        async start() {},
        async send(message) {
          await page.evaluate((m) => document.getElementById('view').contentWindow.postMessage(m, '*'), message);
        },
        async close() {
          transport.onclose?.();
        },
      };
      await page.exposeFunction('toHost', (text) => transport.onmessage?.(JSON.parse(text)));
      await page.setContent(`<!doctype html><body><iframe id="view" sandbox="allow-scripts allow-same-origin" style="width:640px;height:520px"></iframe>
<script>addEventListener('message', (e) => {
  if (e.source === document.getElementById('view').contentWindow && e.data?.jsonrpc === '2.0') window.toHost(JSON.stringify(e.data));
});</script></body>`);
      const { bridge, initialized } = await bridgeTo(client, tool, transport);
      await page.evaluate((h) => {
        document.getElementById('view').srcdoc = h;
      }, html);
      await initialized;
      const result = await client.callTool({ name: toolName, arguments: {} });
      await bridge.sendToolInput({ arguments: {} });
      await bridge.sendToolResult(result);
      const view = page.frameLocator('#view');
      if (toolName === 'basic__get-time') {
        const shown = view.locator('#server-time');
        await shown.filter({ hasNotText: 'Loading...' }).waitFor({ timeout: 10_000 });
        const first = await shown.textContent();
        await view.locator('#get-time-btn').click();
        // The view's own call (get-time, by its server's name) writes a new time, or [ERROR].
        await page.waitForFunction(
          (before) => {
            const text = document.getElementById('view').contentDocument.getElementById('server-time').textContent;
            return text !== before;
          },
          first,
          { timeout: 10_000 },
        );
        assert.doesNotMatch(await shown.textContent(), /ERROR/);
      } else {
        // The view polls poll-system-stats at once and every 2 s: its memory figure appears.
        await view.locator('#memory-percent').filter({ hasText: /^\d+%$/ }).waitFor({ timeout: 15_000 });
        assert.notEqual(await view.locator('#status-text').textContent(), 'Error');
      }
      const shot = path.join(tmpdir(), `gate-apps-${toolName}.png`);
      await page.screenshot({ path: shot });
      t.diagnostic(`screenshot: ${shot}`);
      assert.deepEqual(errors, []);
      await bridge.close();
      await page.close();
    }
  });

  test('the federation offers the UI extension, and a host that declares it is listed as one: its capability goes upstream', async (t) => {
    assert.deepEqual(client.getServerCapabilities().extensions, { [UI]: {} });
    // A 2026-07-28 upstream shows what each list request declared (its envelope).
    const modern = await startParamServer();
    t.after(() => modern.stop());
    const probe = await startGate({ config: { upstreams: [{ id: 'm', url: modern.url, namespace: 'm', protocol: '2026-07-28' }] } });
    t.after(() => probe.stop());
    const plain = new Client(HOST, { capabilities: {} });
    await plain.connect(new StreamableHTTPClientTransport(new URL(probe.url)));
    t.after(() => plain.close());
    const host = await hostClient(probe.url);
    t.after(() => host.close());
    await plain.listTools();
    await host.listTools();
    const declared = modern.requests
      .filter((r) => r.body.method === 'tools/list')
      .map((r) => r.body.params._meta['io.modelcontextprotocol/clientCapabilities'].extensions?.[UI] ?? null);
    // One list per profile (cached apart): a host's carries the extension, a plain client's not.
    assert.deepEqual(declared, [null, { mimeTypes: ['text/html;profile=mcp-app'] }]);
  });

  test('two upstreams serving the same view: listed apart, each read from its own upstream, and both views load', { timeout: 60_000 }, async (t) => {
    const twin = await startGate({
      config: {
        upstreams: [
          { id: 'basic', url: basic.url, namespace: 'basic' },
          { id: 'basic2', url: basic2.url, namespace: 'basic2' },
        ],
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    t.after(() => twin.stop());
    const c = await hostClient(twin.url);
    t.after(() => c.close());
    const { resources } = await c.listResources();
    const views = resources.map((r) => r.uri).filter((u) => u.startsWith('ui://')).sort();
    assert.deepEqual(views, ['ui://basic2__get-time/mcp-app.html', 'ui://basic__get-time/mcp-app.html']);
    const { tools } = await c.listTools();
    for (const ns of ['basic', 'basic2']) {
      const tool = tools.find((x) => x.name === `${ns}__get-time`);
      assert.equal(getToolUiResourceUri(tool), `ui://${ns}__get-time/mcp-app.html`);
      assert.equal(tool._meta['ui/resourceUri'], `ui://${ns}__get-time/mcp-app.html`, 'the flat key too');
      const read = await c.readResource({ uri: getToolUiResourceUri(tool) });
      assert.equal(read.contents[0].uri, `ui://${ns}__get-time/mcp-app.html`, 'under the name the client asked for');
      assert.equal(read.contents[0].mimeType, 'text/html;profile=mcp-app');
      // The view runs: the App handshake and the tool result it shows.
      const [hostSide, viewSide] = InMemoryTransport.createLinkedPair();
      const { bridge, initialized } = await bridgeTo(c, tool, hostSide);
      const app = new App({ name: 'view', version: '0.0.0' }, {}, { autoResize: false });
      const shown = new Promise((resolve) => {
        app.ontoolresult = resolve;
      });
      await app.connect(viewSide);
      await initialized;
      await bridge.sendToolResult(await c.callTool({ name: tool.name, arguments: {} }));
      assert.ok((await shown).structuredContent?.time, 'the view got its result');
      await app.close();
      await bridge.close();
    }
    const events = await twin.waitForAudit((ev) => ev.filter((e) => e.method === 'resources/read').length >= 2);
    const reads = events.filter((e) => e.method === 'resources/read');
    assert.deepEqual(reads.map((e) => [e.name, e.upstream]), [
      ['ui://basic__get-time/mcp-app.html', 'basic'],
      ['ui://basic2__get-time/mcp-app.html', 'basic2'],
    ]);
    // By the URI both upstreams wrote, the read cannot tell which is meant: refused, naming both.
    const stray = await c.readResource({ uri: 'ui://get-time/mcp-app.html' }).catch((e) => e);
    assert.equal(stray.code, -32602, String(stray));
    assert.match(stray.message, /more than one upstream serves it \(ui:\/\/basic__get-time\/mcp-app.html, ui:\/\/basic2__get-time\/mcp-app.html\)/);
  });

  test('a name two upstreams serve is refused -32043 naming both; the policy of the resolved name decides', async (t) => {
    const second = await startGate({
      config: {
        upstreams: [
          { id: 'basic', url: basic.url, namespace: 'basic' },
          { id: 'basic2', url: basic2.url, namespace: 'basic2' },
          { id: 'sysmon', url: sysmon.url, namespace: 'sysmon' },
        ],
        audit: { sinks: [{ type: 'stdout' }] },
        policy: {
          rules: [{ id: 'no-polling', allow: [{ server: 'basic' }, { server: 'basic2' }, { server: 'sysmon', names: ['sysmon__get-system-info'] }] }],
        },
      },
    });
    t.after(() => second.stop());
    const c = await hostClient(second.url);
    t.after(() => c.close());
    const ambiguous = await c.callTool({ name: 'get-time', arguments: {} }).catch((e) => e);
    assert.equal(ambiguous.code, -32043, String(ambiguous));
    assert.match(ambiguous.message, /more than one upstream serves a tool of that name \(basic2?__get-time, basic2?__get-time\)/);
    // poll-system-stats is not the caller's to call: not a candidate, and the namespaced name
    // is denied as ever.
    const bare = await c.callTool({ name: 'poll-system-stats', arguments: {} }).catch((e) => e);
    assert.equal(bare.code, -32043);
    const named = await c.callTool({ name: 'sysmon__poll-system-stats', arguments: {} }).catch((e) => e);
    assert.equal(named.code, -32042);
    // A client without views that may not call it either hears the policy's answer, not that
    // the tool is app-only: nothing of a tool it may not call is told first.
    const plain = new Client(HOST, { capabilities: {} });
    await plain.connect(new StreamableHTTPClientTransport(new URL(second.url)));
    t.after(() => plain.close());
    const denied = await plain.callTool({ name: 'sysmon__poll-system-stats', arguments: {} }).catch((e) => e);
    assert.equal(denied.code, -32042, String(denied));
    assert.doesNotMatch(denied.message, /views only/);
    // The one it may call resolves, and its audit names the resolved tool.
    const info = await c.callTool({ name: 'get-system-info', arguments: {} });
    assert.notEqual(info.isError, true);
    const events = await second.waitForAudit((ev) => ev.some((e) => e.name === 'sysmon__get-system-info' && e.outcome === 'ok'));
    assert.ok(events.some((e) => e.name === 'sysmon__get-system-info' && e.decision === 'allow'));
  });

  test('an app-only tool is listed to a host, left out for a client that runs no views and refused to it; a view may not call a model-only tool', async (t) => {
    // A server with a tool for models only: a view's bare-name call must not reach it.
    const modelOnly = await startStatelessServer('model-only', { capabilities: { tools: {} } }, (server) => {
      server.registerTool('summarize', { description: 'for the agent', inputSchema: { q: z.string().optional() }, _meta: { ui: { visibility: ['model'] } } }, async () => ({
        content: [{ type: 'text', text: 'summarized' }],
      }));
    });
    t.after(() => modelOnly.stop());
    const third = await startGate({
      config: {
        upstreams: [
          { id: 'sysmon', url: sysmon.url, namespace: 'sysmon' },
          { id: 'model-only', url: modelOnly.url, namespace: 'mo' },
        ],
      },
    });
    t.after(() => third.stop());
    const host = await hostClient(third.url);
    t.after(() => host.close());
    const plain = new Client(HOST, { capabilities: {} });
    await plain.connect(new StreamableHTTPClientTransport(new URL(third.url)));
    t.after(() => plain.close());

    const hostTools = (await host.listTools()).tools;
    const poll = hostTools.find((x) => x.name === 'sysmon__poll-system-stats');
    assert.deepEqual(poll?._meta?.ui?.visibility, ['app'], 'a host is listed it, visibility and all, to keep it from its model');
    const plainNames = (await plain.listTools()).tools.map((x) => x.name).sort();
    assert.ok(plainNames.includes('sysmon__get-system-info') && plainNames.includes('mo__summarize'), plainNames.join(', '));
    assert.ok(!plainNames.includes('sysmon__poll-system-stats'), 'a client without views is not listed an app-only tool');
    const refused = await plain.callTool({ name: 'sysmon__poll-system-stats', arguments: {} }).catch((e) => e);
    assert.equal(refused.code, -32602, String(refused));
    assert.match(refused.message, /tool "sysmon__poll-system-stats" is for MCP Apps views only .* declared no io\.modelcontextprotocol\/ui extension/);
    // The host's view polls as before.
    const polled = await host.callTool({ name: 'poll-system-stats', arguments: {} });
    assert.notEqual(polled.isError, true, JSON.stringify(polled));

    // A bare name is a view's call: a tool for models only is no candidate; the agent's
    // namespaced call works.
    const bare = await host.callTool({ name: 'summarize', arguments: {} }).catch((e) => e);
    assert.equal(bare.code, -32043, String(bare));
    const named = await host.callTool({ name: 'mo__summarize', arguments: {} });
    assert.deepEqual(named.content, [{ type: 'text', text: 'summarized' }]);
  });
});
