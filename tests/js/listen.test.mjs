// subscriptions/listen (2026-07-28) through gate, both directions: v2 SDK clients listening
// at gate for list changes and resource updates, from a 2025-11-25 upstream
// (server-everything, on gate's root session) and from a 2026-07-28 upstream (a v2 SDK
// server, where gate itself listens); and a 1.x SDK session client whose resources/subscribe
// for a 2026-07-28 upstream's URI gate carries on its own listen there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, post, startDecisionService, startEverything, startGate, startModernServer } from './lib/index.mjs';

const MODERN = '2026-07-28';

async function modernClient(url) {
  const client = new Client({ name: 'listener', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
  const seen = { updated: [], toolsChanged: 0 };
  client.setNotificationHandler('notifications/resources/updated', (n) => seen.updated.push(n.params.uri));
  client.setNotificationHandler('notifications/tools/list_changed', () => seen.toolsChanged++);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  return { client, seen };
}

/** The filters of gate's own subscriptions/listen requests at the modern upstream, in order. */
const upstreamListens = (mod) =>
  mod.requests.filter((r) => r.body?.method === 'subscriptions/listen').map((r) => r.body.params.notifications);

/** Publishes `event` every 100 ms until `done()` (a subscription takes effect asynchronously). */
async function publishUntil(mod, event, done, what) {
  await eventually(
    () => {
      if (done()) return true;
      mod.bus.publish(event);
      return false;
    },
    { timeoutMs: 15_000, everyMs: 100, what },
  );
}

describe('subscriptions/listen through gate', { timeout: 180_000 }, () => {
  let ev;
  let mod;
  let gate;

  before(async () => {
    ev = await startEverything();
    mod = await startModernServer();
    gate = await startGate({
      config: {
        audit: { sinks: [{ type: 'stdout' }] },
        upstreams: [
          { id: 'ev', url: ev.url, namespace: 'ev' },
          { id: 'mod', url: mod.url, namespace: 'mod', protocol: MODERN },
        ],
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await mod?.stop();
    await ev?.stop();
  });

  test('gate listens at a 2026-07-28 upstream for its list changes', { timeout: 30_000 }, async () => {
    await eventually(() => upstreamListens(mod).length > 0, { what: 'gate listening at mod' });
    assert.deepEqual(upstreamListens(mod)[0], { toolsListChanged: true, resourcesListChanged: true });
  });

  test('a listener hears an upstream list change and the updates of the URIs it named', { timeout: 60_000 }, async () => {
    const { client, seen } = await modernClient(gate.url);
    try {
      const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['modern://status', 'nowhere://x'] });
      // Honoured: what gate can deliver; a URI no upstream owns is left out.
      assert.deepEqual(sub.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['modern://status'] });
      await eventually(() => upstreamListens(mod).some((f) => f.resourceSubscriptions?.includes('modern://status')), {
        what: 'gate holding modern://status upstream',
      });
      await publishUntil(mod, { kind: 'resource_updated', uri: 'modern://status' }, () => seen.updated.includes('modern://status'), 'the update');
      await publishUntil(mod, { kind: 'tools_list_changed' }, () => seen.toolsChanged > 0, 'the list change');
      await sub.close();
      // The last holder gone, gate listens without the URI again.
      await eventually(() => {
        const last = upstreamListens(mod).at(-1);
        return !last.resourceSubscriptions;
      }, { what: 'gate releasing modern://status' });
    } finally {
      await client.close();
    }
  });

  test("an App's view is listened to under gate's name for it, held upstream under the upstream's", { timeout: 60_000 }, async () => {
    const { client, seen } = await modernClient(gate.url);
    try {
      const sub = await client.listen({ resourceSubscriptions: ['ui://mod__app/view.html'] });
      assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: ['ui://mod__app/view.html'] });
      await eventually(() => upstreamListens(mod).some((f) => f.resourceSubscriptions?.includes('ui://app/view.html')), {
        what: "gate holding the view at mod under mod's own URI",
      });
      assert.ok(!upstreamListens(mod).some((f) => f.resourceSubscriptions?.includes('ui://mod__app/view.html')), "gate's name never goes upstream");
      await publishUntil(mod, { kind: 'resource_updated', uri: 'ui://app/view.html' }, () => seen.updated.includes('ui://mod__app/view.html'), 'the renamed update');
      assert.ok(!seen.updated.includes('ui://app/view.html'));
      await sub.close();
    } finally {
      await client.close();
    }
  });

  test('a listener hears updates of a 2025-11-25 upstream, subscribed on gate\'s root session', { timeout: 60_000 }, async () => {
    const { client, seen } = await modernClient(gate.url);
    const { resources } = await client.listResources();
    const uri = resources.find((r) => r.uri.startsWith('demo://resource/static/document/')).uri;
    const sub = await client.listen({ resourceSubscriptions: [uri] });
    assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [uri] });
    // A 2026-07-28 client's calls run on the root session, where gate subscribed: the toggle
    // starts server-everything's updates there.
    await client.callTool({ name: 'ev__toggle-subscriber-updates', arguments: {} });
    try {
      await eventually(() => seen.updated.includes(uri), { timeoutMs: 20_000, what: 'the update' });
    } finally {
      await client.callTool({ name: 'ev__toggle-subscriber-updates', arguments: {} });
      await sub.close();
      await client.close();
    }
    // The listen is one request, audited when it ends.
    const audit = await gate.waitForAudit((evs) => evs.some((e) => e.method === 'subscriptions/listen'));
    assert.equal(audit.find((e) => e.method === 'subscriptions/listen').outcome, 'ok');
  });

  test('a 2025-11-25 client subscribes to a 2026-07-28 upstream\'s resource through gate\'s listen', { timeout: 60_000 }, async () => {
    const client = await connectClient(gate.url, { name: 'old-client' });
    const updated = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => listChanged++);
    try {
      await client.subscribeResource({ uri: 'modern://status' });
      await publishUntil(mod, { kind: 'resource_updated', uri: 'modern://status' }, () => updated.includes('modern://status'), 'the update');
      await publishUntil(mod, { kind: 'tools_list_changed' }, () => listChanged > 0, 'the list change');
      await client.unsubscribeResource({ uri: 'modern://status' });
      await eventually(() => !upstreamListens(mod).at(-1).resourceSubscriptions, { what: 'gate releasing the URI' });
    } finally {
      await client.close();
    }
  });

  test("a 2025-11-25 session subscribes to an App's view under gate's name and hears its update renamed", { timeout: 60_000 }, async () => {
    const client = await connectClient(gate.url, { name: 'old-host' });
    const updated = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
    try {
      await client.subscribeResource({ uri: 'ui://mod__app/view.html' });
      await eventually(() => upstreamListens(mod).some((f) => f.resourceSubscriptions?.includes('ui://app/view.html')), {
        what: "gate holding the view at mod under mod's own URI",
      });
      await publishUntil(mod, { kind: 'resource_updated', uri: 'ui://app/view.html' }, () => updated.includes('ui://mod__app/view.html'), 'the renamed update');
      assert.ok(!updated.includes('ui://app/view.html'), "the upstream's own name never reaches the client");
      await client.unsubscribeResource({ uri: 'ui://mod__app/view.html' });
      await eventually(() => !upstreamListens(mod).at(-1).resourceSubscriptions, { what: 'gate releasing the view' });
    } finally {
      await client.close();
    }
  });

  test('a malformed filter is refused with -32602 naming the member', async () => {
    const res = await post(
      gate.url,
      {
        jsonrpc: '2.0',
        id: 9,
        method: 'subscriptions/listen',
        params: {
          notifications: { toolsListChanged: 'yes' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'subscriptions/listen' },
    );
    assert.equal(res.json.error.code, -32602);
    assert.match(res.json.error.message, /params\.notifications\.toolsListChanged must be a boolean/);
  });
});

/** A listen for the first two of `uris` through `gate` honours the first only. */
async function expectOnlyFirstHonoured(gate, uris) {
  assert.ok(uris.length >= 2, JSON.stringify(uris));
  const { client } = await modernClient(gate.url);
  try {
    const sub = await client.listen({ resourceSubscriptions: [uris[0], uris[1]] });
    assert.deepEqual(sub.honoredFilter, { resourceSubscriptions: [uris[0]] });
    await sub.close();
  } finally {
    await client.close();
  }
}

/** server-everything's static document URIs, as it lists them to a client of its own. */
async function documentUris(url) {
  const direct = await connectClient(url);
  try {
    return (await direct.listResources()).resources.map((r) => r.uri).filter((u) => u.startsWith('demo://resource/static/document/'));
  } finally {
    await direct.close();
  }
}

describe('subscriptions/listen under a policy', { timeout: 90_000 }, () => {
  let ev;
  let gate;
  let uris;

  before(async () => {
    ev = await startEverything();
    uris = await documentUris(ev.url);
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: ev.url, namespace: 'ev' }],
        policy: { rules: [{ id: 'one-doc', allow: [{ server: 'ev', methods: ['resources/read'], names: [uris[0]] }] }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await ev?.stop();
  });

  test('a URI the caller may not read is left out of the honoured filter', async () => {
    await expectOnlyFirstHonoured(gate, uris);
  });
});

describe('subscriptions/listen under a decision hook', { timeout: 90_000 }, () => {
  let ev;
  let hook;
  let gate;
  let uris;

  before(async () => {
    ev = await startEverything();
    uris = await documentUris(ev.url);
    hook = await startDecisionService((d) => (d.name === uris[1] ? { decision: 'deny', reason: 'not this one' } : { decision: 'allow' }));
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: ev.url, namespace: 'ev' }],
        policy: { defaultDecision: 'allow', rules: [], decisionHook: { url: hook.url } },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([ev?.stop(), hook?.stop()]);
  });

  test('each URI is asked about as its resources/subscribe would be; one the hook denies is left out', async () => {
    await expectOnlyFirstHonoured(gate, uris);
    const asked = hook.of('call').filter((d) => d.method === 'resources/subscribe');
    assert.deepEqual(asked.map((d) => d.name).sort(), [uris[0], uris[1]].sort());
    assert.equal(asked[0].upstream, 'ev');
  });
});
