// A hung upstream (accepts connections, never answers) degrades alone: merged lists leave it
// out once its request timeout passes, calls to it fail with -32041, the other upstream keeps
// answering meanwhile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, get, startEverything, startGate, startSilentServer as startHungServer } from './lib/index.mjs';

describe('a hung upstream degrades alone', { timeout: 120_000 }, () => {
  let up;
  let hung;
  let gate;
  let client;

  before(async () => {
    up = await startEverything();
    hung = await startHungServer();
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'live', url: up.url, namespace: 'a' },
          { id: 'hung', url: hung.url, namespace: 'h', timeouts: { requestMs: 800 } },
        ],
      },
    });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await hung?.close();
    await up?.stop();
  });

  test('the merged list holds the live upstream only, after the hung one times out', async () => {
    const started = performance.now(); // monotonic, like gate's timer
    const tools = (await client.listTools({})).tools.map((t) => t.name);
    const took = performance.now() - started;
    assert.ok(tools.length > 0 && tools.every((n) => n.startsWith('a__')), tools.join(','));
    // Left out once its 800 ms passed (not dropped before it had its time), not the default 60 s.
    assert.ok(took >= 800, `the list came back after ${took} ms, before the hung upstream's requestMs`);
    assert.ok(took < 10_000, `bounded by requestMs, not the default 60 s (${took} ms)`);
  });

  test('a call to the hung upstream fails with -32041 while the live one answers', async () => {
    const [hungCall, liveCall] = await Promise.allSettled([
      client.callTool({ name: 'h__echo', arguments: { message: 'x' } }),
      client.callTool({ name: 'a__echo', arguments: { message: 'alive' } }),
    ]);
    assert.equal(hungCall.status, 'rejected');
    assert.equal(hungCall.reason.code, -32041, hungCall.reason.message);
    assert.match(hungCall.reason.message, /hung/);
    assert.equal(liveCall.status, 'fulfilled', String(liveCall.reason));
    assert.deepEqual(liveCall.value.content, [{ type: 'text', text: 'Echo: alive' }]);
  });
});

describe('/health with a hung upstream answers within its 5 s budget', { timeout: 120_000 }, () => {
  let up;
  let hung;
  let gate;

  before(async () => {
    up = await startEverything();
    hung = await startHungServer();
    // Default timeouts (requestMs 60000): only the health budget bounds the probe.
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'live', url: up.url, namespace: 'a' },
          { id: 'hung', url: hung.url, namespace: 'h' },
        ],
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await hung?.close();
    await up?.stop();
  });

  test('200 with the live upstream up and the hung one down, after about 5 s', async () => {
    const started = performance.now(); // monotonic, like gate's timer
    const r = await get(`${gate.base}/health`, {}, { timeoutMs: 20_000 });
    const took = performance.now() - started;
    assert.equal(r.status, 200, r.text);
    const byId = Object.fromEntries(JSON.parse(r.text).upstreams.map((u) => [u.id, u]));
    assert.equal(byId.live.status, 'up');
    assert.equal(byId.hung.status, 'down');
    // Down after waiting out the budget (a probe that gave up at once would not be "about
    // 5 s"), and not much longer. Gate's timer starts after this clock's, so 5 s is a floor.
    assert.ok(took >= 5_000, `answered after ${took} ms, before the 5 s budget ran out`);
    assert.ok(took < 9_000, `bounded by the 5 s budget (${took} ms)`);
    // Reused for 1 s: an immediate second probe does not wait again.
    const again = Date.now();
    assert.equal((await get(`${gate.base}/health`)).status, 200);
    assert.ok(Date.now() - again < 1_000);
  });
});
