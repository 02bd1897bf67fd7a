// A list change an upstream announces on a call's own stream, as SDK servers (and FastMCP) do
// when a tool call adds a tool: the notification reaches the calling client on its call, and
// gate drops that upstream's cached lists, so the tools/list the news prompts shows the new
// tool at once instead of the cached list for up to cacheTtlMs (docs/protocol-eras.md, "Lists").
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, modernRequest, post, startGate } from './lib/index.mjs';
import { startGrowingServer } from './lib/growing-server.mjs';

const toolNames = async (client) => (await client.listTools()).tools.map((t) => t.name);

describe("list_changed on a call's stream", { timeout: 120_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startGrowingServer();
    // A long TTL: only the news can make the cached list go.
    gate = await startGate({ config: { upstreams: [{ id: 'grow', url: up.url, namespace: 'g', cacheTtlMs: 600_000 }] } });
  });

  after(async () => {
    await gate?.stop();
    await up?.stop();
  });

  test('drops the upstream\'s cached tools: the calling client and another one list the added tool at once', { timeout: 60_000 }, async () => {
    const caller = await connectClient(gate.url, { name: 'caller' });
    const other = await connectClient(gate.url, { name: 'other' });
    try {
      let heard = 0;
      caller.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heard += 1;
      });
      assert.deepEqual(await toolNames(caller), ['g__grow'], 'the list is cached before the call');
      assert.deepEqual(await toolNames(other), ['g__grow']);
      const grown = await caller.callTool({ name: 'g__grow', arguments: { name: 'sprout' } });
      assert.deepEqual(grown.content, [{ type: 'text', text: 'added sprout' }]);
      await eventually(() => heard > 0, { what: 'the list_changed relayed to the caller' });
      assert.deepEqual(await toolNames(caller), ['g__grow', 'g__sprout']);
      assert.deepEqual(await toolNames(other), ['g__grow', 'g__sprout']);
      // A 2026-07-28 client, listed on the same cache, sees it too.
      const modern = modernRequest('tools/list');
      const listed = await post(gate.url, modern.body, modern.headers);
      assert.equal(listed.status, 200);
      assert.deepEqual(
        listed.json.result.tools.map((t) => t.name),
        ['g__grow', 'g__sprout'],
      );
    } finally {
      await Promise.all([caller.close(), other.close()]);
    }
  });
});
