// A `roots/list` a 2025-era upstream asks on the standalone stream of gate's shared root
// session, where a 2026-07-28 client's calls run: no client stands behind that session, so
// gate answers it with an error the server can tell from "no roots" (-32601, saying it is
// bridged only during a client's call), never with a made-up empty list
// (docs/sessions.md, "Server-initiated requests"). A session client is asked on its own
// bridged session as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, modernRequest, post, startGate } from './lib/index.mjs';
import { startRootsAskingServer } from './lib/roots-asking-server.mjs';

const textOf = (result) => result.content.map((c) => c.text).join('\n');

describe("roots/list on gate's shared root session", { timeout: 120_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startRootsAskingServer();
    gate = await startGate({ config: { upstreams: [{ id: 'r', url: up.url, namespace: 'r' }] } });
  });

  after(async () => {
    await gate?.stop();
    await up?.stop();
  });

  test('a 2026-07-28 client\'s call: the server is refused -32601, not answered []', { timeout: 30_000 }, async () => {
    const { body, headers } = modernRequest('tools/call', { name: 'r__whose-roots', arguments: {} }, { capabilities: { roots: {} } });
    const r = await post(gate.url, body, headers);
    assert.equal(r.status, 200);
    const text = textOf(r.json.result);
    assert.doesNotMatch(text, /^roots: \[\]/, 'no made-up empty list');
    assert.match(text, /^refused: -32601 .*roots\/list is bridged only during a client's call/);
    assert.equal(up.asked.at(-1).code, -32601);
  });

  test("a 2025-11-25 session client is asked on its own session and its roots reach the server", { timeout: 30_000 }, async () => {
    const client = await connectClient(gate.url, { capabilities: { roots: {} } });
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [{ uri: 'file:///work/mine', name: 'mine' }] }));
    try {
      const r = await client.callTool({ name: 'r__whose-roots', arguments: {} });
      assert.equal(textOf(r), 'roots: [{"uri":"file:///work/mine","name":"mine"}]');
    } finally {
      await client.close();
    }
  });
});
