// Lists match what each client can call: server-everything registers some tools only for
// clients that sample, elicit or answer roots, so through gate each client must be listed
// exactly what server-everything lists it directly, whatever another client declared before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, startEverything, startGate } from './lib/index.mjs';

const PROFILES = [
  ['nothing', {}],
  ['sampling', { sampling: {} }],
  ['elicitation', { elicitation: {} }],
  ['roots', { roots: {} }],
  ['everything', { sampling: {}, elicitation: {}, roots: {} }],
];

async function toolNames(url, capabilities, strip = '') {
  const client = await connectClient(url, { capabilities });
  try {
    const names = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
    } while (cursor);
    return names.map((n) => (n.startsWith(strip) ? n.slice(strip.length) : n)).sort();
  } finally {
    await client.close().catch(() => {});
  }
}

describe('lists per client capability profile', { timeout: 120_000 }, () => {
  let everything;
  let gate;

  before(async () => {
    everything = await startEverything();
    gate = await startGate({
      config: { upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }], routing: { pageSize: 5 } },
    });
  });

  after(async () => {
    await gate?.stop();
    await everything?.stop();
  });

  test('each client is listed what the upstream lists it directly', async () => {
    const direct = {};
    for (const [name, caps] of PROFILES) direct[name] = await toolNames(everything.url, caps);
    assert.ok(direct.everything.length > direct.nothing.length, 'the upstream lists by capability');
    // Twice over, in an order that puts a fuller profile's cached list first.
    for (const order of [[...PROFILES].reverse(), PROFILES]) {
      for (const [name, caps] of order) {
        assert.deepEqual(await toolNames(gate.url, caps, 'ev__'), direct[name], `a client declaring ${name}`);
      }
    }
  });
});
