// The embedding API (gate::embedded, gateway/program/embedded.hpp) through its sample program
// (simulations/embedded_sample, built beside gate): a gateway started inside another program
// from a configuration value serves MCP clients, takes a new document (a second upstream
// appears, with list_changed to the connected client), refuses a bad one without a change,
// and stops when the program asks.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, gateBin, spawnTracked, startEverything } from './lib/index.mjs';

describe('embedding gate in another program', { timeout: 60_000 }, () => {
  let everything;
  before(async () => {
    everything = await startEverything();
  });
  after(async () => {
    await everything?.stop();
  });

  test('the sample starts a gateway, reloads it, refuses a bad document and stops', async () => {
    const sample = path.join(path.dirname(gateBin()), 'simulations', 'embedded_sample');
    const proc = spawnTracked(sample, [everything.url], { name: 'embedded_sample', stdin: 'pipe' });
    const [, url] = await proc.stdout.waitFor(/^listening (http:\/\/\S+)$/, { timeoutMs: 15_000 });
    const client = await connectClient(url);
    try {
      const names = async () => (await client.listTools({})).tools.map((t) => t.name);
      assert.ok((await names()).every((n) => n.startsWith('first__')));
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed++);

      const both = { upstreams: [{ id: 'first', url: everything.url, namespace: 'first' }, { id: 'second', url: everything.url, namespace: 'second' }] };
      proc.child.stdin.write(`${JSON.stringify(both)}\n`);
      await proc.stdout.waitFor(/^reloaded$/, { timeoutMs: 15_000 });
      await eventually(() => changed > 0, { what: 'list_changed after the reload' });
      const after = await names();
      assert.ok(after.some((n) => n.startsWith('second__')), JSON.stringify(after));

      proc.child.stdin.write('{"upstreams":[{"id":"x","url":"ftp://nowhere"}]}\n');
      const refused = await proc.stdout.waitFor(/^refused: .*$/, { timeoutMs: 15_000 });
      assert.match(refused[0], /config error at \/upstreams\/0\/url/);
      assert.deepEqual(await names(), after, 'the running document still serves');
    } finally {
      await client.close();
    }
    proc.child.stdin.end();
    await proc.stdout.waitFor(/^stopped$/, { timeoutMs: 15_000 });
    const exited = await proc.exited;
    assert.equal(exited.code, 0);
  });
});
