// One upstream without a namespace: passthrough mode, no rewriting.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  FULL_CLIENT_CAPABILITIES,
  LIST_KINDS,
  connectClient,
  fetchAllLists,
  itemKey,
  listAll,
  startEverything,
  startGate,
} from './lib/index.mjs';

const names = (kind, items) => items.map((i) => itemKey(kind, i));
const sorted = (xs) => [...xs].sort();

describe('passthrough: one upstream, no namespace', { timeout: 180_000 }, () => {
  let up;
  let gate;
  let client;
  let direct;
  let bare;
  let full;

  before(async () => {
    up = await startEverything();
    [bare, full] = await Promise.all([fetchAllLists(up.url), fetchAllLists(up.url, FULL_CLIENT_CAPABILITIES)]);
    gate = await startGate({ config: { upstreams: [{ id: 'everything', url: up.url }] } });
    client = await connectClient(gate.url);
    direct = await connectClient(up.url);
  });

  after(async () => {
    for (const c of [client, direct]) await c?.close().catch(() => {});
    await gate?.stop();
    await up?.stop();
  });

  test('lists are the upstream lists, names unchanged', { timeout: 30_000 }, async () => {
    for (const kind of LIST_KINDS) {
      const got = (await listAll(client, kind)).items;
      const gotNames = names(kind, got);
      assert.equal(new Set(gotNames).size, gotNames.length, `${kind}: no duplicates`);
      if (kind === 'tools') {
        // server-everything adds tools for clients declaring roots/sampling/elicitation;
        // which of those gate's upstream session declares is gate's choice.
        const lo = names(kind, bare.tools);
        const hi = names(kind, full.tools);
        assert.ok(lo.every((n) => gotNames.includes(n)), `missing tools: ${lo.filter((n) => !gotNames.includes(n))}`);
        assert.ok(gotNames.every((n) => hi.includes(n)), `tools not listed upstream: ${gotNames.filter((n) => !hi.includes(n))}`);
        for (const t of got) {
          const ref = full.tools.find((d) => d.name === t.name);
          assert.deepEqual(t, ref, `tool ${t.name} passes through unchanged`);
        }
      } else {
        assert.deepEqual(sorted(gotNames), sorted(names(kind, bare[kind])), kind);
        const byKey = (items) => new Map(items.map((i) => [itemKey(kind, i), i]));
        assert.deepEqual(byKey(got), byKey(bare[kind]), `${kind} pass through unchanged`);
      }
    }
  });

  test('tools/call returns the upstream result unchanged', { timeout: 30_000 }, async () => {
    const args = { message: 'passthrough' };
    assert.deepEqual(await client.callTool({ name: 'echo', arguments: args }), await direct.callTool({ name: 'echo', arguments: args }));
    assert.deepEqual(
      await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
      await direct.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }),
    );
  });

  test('an unknown tool is the upstream answer, verbatim', { timeout: 30_000 }, async () => {
    // server-everything answers an unknown tool with an isError result
    const viaGate = await client.callTool({ name: 'no-such-tool', arguments: {} });
    const viaUp = await direct.callTool({ name: 'no-such-tool', arguments: {} });
    assert.equal(viaUp.isError, true);
    assert.deepEqual(viaGate, viaUp);
  });

  test('prompts/get, resources/read, completion/complete and ping', { timeout: 30_000 }, async () => {
    assert.deepEqual(
      await client.getPrompt({ name: 'args-prompt', arguments: { city: 'Bergen' } }),
      await direct.getPrompt({ name: 'args-prompt', arguments: { city: 'Bergen' } }),
    );
    const uri = bare.resources[0].uri;
    assert.deepEqual(await client.readResource({ uri }), await direct.readResource({ uri }));
    const c = await client.complete({
      ref: { type: 'ref/prompt', name: 'completable-prompt' },
      argument: { name: 'department', value: 'S' },
    });
    assert.deepEqual(c.completion.values, ['Sales', 'Support']);
    assert.deepEqual(await client.ping(), {});
  });
});
