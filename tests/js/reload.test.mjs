// Upstreams are named by id, never by position: a reload that reorders them keeps every
// record on its owner (tasks pinned to the upstream that minted them, subscriptions held at
// the upstream that owns the URI).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { CreateTaskResultSchema, GetTaskResultSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, startEverything, startGate } from './lib/index.mjs';

describe('a reload that reorders upstreams', { timeout: 120_000 }, () => {
  let a;
  let b;
  let gate;
  let client;
  const updated = [];
  const config = (order) => ({
    upstreams: order.map((id) => ({ id, url: (id === 'ev-a' ? a : b).url, namespace: id === 'ev-a' ? 'a' : 'b' })),
    audit: { sinks: [{ type: 'stdout' }] },
  });

  before(async () => {
    [a, b] = await Promise.all([startEverything(), startEverything()]);
    gate = await startGate({ config: config(['ev-a', 'ev-b']) });
    client = await connectClient(gate.url);
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated.push(n.params.uri));
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('keeps tasks and subscriptions on their owners', async () => {
    const minted = await client.request(
      { method: 'tools/call', params: { name: 'b__simulate-research-query', arguments: { topic: 'reorder' }, task: { ttl: 60_000 } } },
      CreateTaskResultSchema,
    );
    const taskId = minted.task.taskId;
    const { resources } = await client.listResources();
    const uri = resources.find((r) => r.uri.startsWith('demo://resource/static/document/')).uri;
    await client.subscribeResource({ uri });
    const subscribed = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'resources/subscribe' && e.upstream));
    const owner = subscribed.find((e) => e.method === 'resources/subscribe').upstream;

    await gate.reloaded(config(['ev-b', 'ev-a']));

    const got = await client.request(
      { method: 'tasks/get', params: { taskId } },
      GetTaskResultSchema,
    );
    assert.equal(got.taskId, taskId);
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tasks/get' && e.name === taskId));
    const ev = events.find((e) => e.method === 'tasks/get' && e.name === taskId);
    assert.equal(ev.upstream, 'ev-b', 'the task call went to the upstream that minted it');
    assert.equal(ev.upstreamCalls, 1, 'pinned: no probe after the reorder');

    // The subscription is still held at its owner: its updates still reach the client.
    const toggle = `${owner === 'ev-a' ? 'a' : 'b'}__toggle-subscriber-updates`;
    await client.callTool({ name: toggle, arguments: {} });
    try {
      await eventually(() => updated.includes(uri), { timeoutMs: 20_000, what: 'resources/updated after the reorder' });
    } finally {
      await client.callTool({ name: toggle, arguments: {} });
    }
  });
});
