// Tool names through a federation against the specification's rule (1 to 128 characters of
// A-Z a-z 0-9 _ - .): a tool whose namespaced name breaks it is left out of the lists, said on
// stderr and counted (gate_tools_dropped_total), served by a real SDK server that lists such
// names; `--validate` warns about a namespace that leaves common names no room under 64.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import * as z from 'zod';

import { connectClient, get, metric, runGate, startGate } from './lib/index.mjs';
import { startStatelessServer } from './lib/stateless-server.mjs';

const NS = 'tools';
// `tools__` is 7 characters: 121 more make 128, the most a name may have.
const LONGEST = 'l'.repeat(121);
const TOO_LONG = 'x'.repeat(122);

describe('tool names through gate', { timeout: 60_000 }, () => {
  let upstream;
  let gate;

  // The SDK warns of these names on every request it serves (they are the point here).
  const warn = console.warn;
  before(async () => {
    console.warn = () => {};
    upstream = await startStatelessServer('names', { capabilities: { tools: {} } }, (server) => {
      for (const name of ['fine', LONGEST, TOO_LONG, 'has space', 'emoji😀'])
        server.registerTool(name, { description: name.slice(0, 8), inputSchema: { q: z.string().optional() } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }));
    });
    gate = await startGate({ config: { upstreams: [{ id: 'names', url: upstream.url, namespace: NS }] } });
  });

  after(async () => {
    await gate?.stop();
    await upstream?.stop();
    console.warn = warn;
  });

  test('a name clients would refuse is left out, said and counted; 128 characters is served', async () => {
    const client = await connectClient(gate.url);
    try {
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, [`${NS}__${LONGEST}`, `${NS}__fine`].sort());
      assert.equal(`${NS}__${LONGEST}`.length, 128);
    } finally {
      await client.close();
    }
    const text = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(text, 'gate_tools_dropped_total', { upstream: 'names', reason: 'too_long' }), 1);
    assert.equal(metric(text, 'gate_tools_dropped_total', { upstream: 'names', reason: 'charset' }), 2);
    const said = gate.stderrLines.filter((l) => /upstream names: tool .* left out of tools\/list/.test(l));
    assert.ok(said.some((l) => /129 characters as tools__\.\.\.\) left out of tools\/list: over the specification's 128 characters/.test(l)), said.join('\n'));
    assert.ok(said.some((l) => /tool emoji\?\?\?\? /.test(l)), 'non-ASCII shown as ?, never written raw to the log');
  });

  test('--validate warns about a namespace that leaves common names no room under 64', async () => {
    const doc = (namespace, routing) => JSON.stringify({ upstreams: [{ id: 'names', url: upstream.url, namespace }], ...(routing ? { routing } : {}) });
    const crowded = await runGate(['--validate'], { env: { GATE_CONFIG: doc('a-very-long-namespace-for-names-x') } });
    assert.equal(crowded.code, 0, crowded.stderr);
    assert.match(crowded.stderr, /gate: warning: upstreams\[0\]\.namespace "a-very-long-namespace-for-names-x" with the separator "__" takes 35 characters of every tool name: a tool name over 29 characters/);
    const slash = await runGate(['--validate'], { env: { GATE_CONFIG: doc('files', { namespaceSeparator: '/' }) } });
    assert.match(slash.stderr, /outside the specification's \(A-Z a-z 0-9 _ - \.\)/);
    const fine = await runGate(['--validate'], { env: { GATE_CONFIG: doc(NS) } });
    assert.doesNotMatch(fine.stderr, /warning/);
  });
});
