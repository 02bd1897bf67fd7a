// Supervision against the real binary: an upstream's actor killed (through the test-only
// fault hook, GATE_TEST_FAULT_HOOKS=1) is respawned by the supervisor while a concurrent load
// keeps calling both upstreams, and no call of that load fails: the other upstream's actor
// never stops, and the killed one's calls fail open until its successor answers. Past its
// restart intensity (5 within 60 s) an upstream is refused with -32041 until a reload; the
// supervisor's own death ends gate with a non-zero status. The breaker actor, holding every
// upstream's circuit, killed the same way is respawned with every circuit closed, counts again
// from there, and a load on another upstream never notices.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, eventually, get, post, startEverything, startGate } from './lib/index.mjs';

const echo = (client, name, message) => client.callTool({ name, arguments: { message } });

describe('supervision of upstream actors', { timeout: 120_000 }, () => {
  let everything;
  let gate;
  const clients = [];

  before(async () => {
    everything = await startEverything();
    gate = await startGate({
      env: { GATE_TEST_FAULT_HOOKS: '1' },
      config: {
        upstreams: [
          // A limit high enough never to trip: its calls still ask the actor for slots.
          { id: 'a', url: everything.url, namespace: 'a', rateLimit: { requestsPerMinute: 1000000 } },
          { id: 'b', url: everything.url, namespace: 'b' },
        ],
      },
    });
    for (let i = 0; i < 4; i++) clients.push(await connectClient(gate.url));
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await gate?.stop();
    await everything?.stop();
  });

  test('without the variable the hook does not exist', async () => {
    const plain = await startGate({ config: { upstreams: [{ id: 'a', url: everything.url }] } });
    try {
      const r = await post(`${plain.base}/_test/kill-upstream-actor/a`, {});
      assert.equal(r.status, 404);
      assert.doesNotMatch(plain.proc.stderr.text(), /fault hook/);
    } finally {
      await plain.stop();
    }
  });

  test('a killed upstream actor is respawned while both upstreams answer every call of a load', async () => {
    assert.match(gate.proc.stderr.text(), /test-only fault hooks are enabled/);
    const done = { a: 0, b: 0 };
    const failures = [];
    let stop = false;
    const worker = async (client, w) => {
      for (let n = 0; !stop; n++) {
        for (const ns of ['a', 'b']) {
          const text = `${ns}-${w}-${n}`;
          try {
            const r = await echo(client, `${ns}__echo`, text);
            assert.deepEqual(r.content, [{ type: 'text', text: `Echo: ${text}` }]);
            done[ns]++;
          } catch (err) {
            failures.push(`${ns}: ${err.message}`);
          }
        }
      }
    };
    const load = clients.map((c, w) => worker(c, w));
    try {
      await eventually(() => done.a > 50 && done.b > 50, { what: 'the load running' });
      for (let k = 1; k <= 3; k++) {
        const before = { ...done };
        const r = await post(`${gate.base}/_test/kill-upstream-actor/a`, {});
        assert.equal(r.status, 202, r.text);
        const respawns = () => (gate.proc.stderr.text().match(/upstream actor a stopped \(.*\); respawned/g) ?? []).length;
        await eventually(() => respawns() >= k, { what: `respawn ${k}` });
        assert.equal(respawns(), k);
        // The load goes on through the respawn, on both upstreams.
        await eventually(() => done.a > before.a + 50 && done.b > before.b + 50, { what: 'the load going on' });
      }
    } finally {
      stop = true;
      await Promise.all(load);
    }
    assert.deepEqual(failures, []);
    const logs = gate.proc.stderr.text();
    assert.doesNotMatch(logs, /upstream actor b stopped/);
    // The respawned actor owns a's guards: they answer on /metrics as a fresh closed circuit.
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.match(m, /gate_upstream_breaker_state\{upstream="a"\} 0/);
    assert.match(m, /gate_actor_restarts_total\{actor="upstream"\} 3\n/);
    assert.match(m, /gate_actor_given_up_total\{actor="upstream"\} 0\n/);
    const unknown = await post(`${gate.base}/_test/kill-upstream-actor/nope`, {});
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /no upstream nope/);
  });

  test('past its restart intensity an upstream answers -32041 until a reload', async () => {
    const config = { upstreams: [{ id: 'a', url: everything.url, namespace: 'a' }, { id: 'b', url: everything.url, namespace: 'b' }] };
    const g = await startGate({ env: { GATE_TEST_FAULT_HOOKS: '1' }, config });
    const client = await connectClient(g.url);
    try {
      const respawns = () => (g.proc.stderr.text().match(/upstream actor a stopped \(.*\); respawned/g) ?? []).length;
      for (let k = 1; k <= 5; k++) {
        assert.equal((await post(`${g.base}/_test/kill-upstream-actor/a`, {})).status, 202);
        await eventually(() => respawns() >= k, { what: `respawn ${k}` }); // after 0, 100, ... 800 ms
      }
      assert.equal((await post(`${g.base}/_test/kill-upstream-actor/a`, {})).status, 202);
      await eventually(() => /upstream actor a stopped .* after 5 restarts within 60 s; gate stops restarting it/.test(g.proc.stderr.text()), { what: 'the give-up' });
      const err = await echo(client, 'a__echo', 'x').then(() => null, (e) => e);
      assert.equal(err?.code, -32041, err?.message);
      assert.match(err.message, /gave up restarting/);
      assert.deepEqual((await echo(client, 'b__echo', 'y')).content, [{ type: 'text', text: 'Echo: y' }]);
      const m = (await get(`${g.base}/metrics`)).text;
      assert.match(m, /gate_actor_restarts_total\{actor="upstream"\} 5\n/);
      assert.match(m, /gate_actor_given_up_total\{actor="upstream"\} 1\n/);
      assert.match(m, /gate_upstream_breaker_state\{upstream="a"\} 2/);
      g.reload(config);
      await eventually(() => /upstream a: its actor gets a fresh start with the reload/.test(g.proc.stderr.text()), { what: 'the fresh start' });
      assert.deepEqual((await echo(client, 'a__echo', 'z')).content, [{ type: 'text', text: 'Echo: z' }]);
    } finally {
      await client.close().catch(() => {});
      await g.stop();
    }
  });

  test('a killed breaker actor is respawned with every circuit closed while a load goes on', async () => {
    const config = {
      upstreams: [
        { id: 'a', url: everything.url, namespace: 'a' },
        // Nothing listens there: its first exchange (the warm-up) opens its circuit.
        { id: 'down', url: 'http://127.0.0.1:9/mcp', namespace: 'down', circuitBreaker: { failureThreshold: 1, halfOpenAfterMs: 600000 } },
      ],
    };
    const g = await startGate({ env: { GATE_TEST_FAULT_HOOKS: '1' }, config });
    const client = await connectClient(g.url);
    const metric = async (re) => re.exec((await get(`${g.base}/metrics`)).text)?.[1];
    try {
      await eventually(async () => (await metric(/gate_upstream_breaker_state\{upstream="down"\} (\d)/)) === '2', { what: "down's circuit open" });
      const refused = await echo(client, 'down__echo', 'x').then(() => null, (e) => e);
      assert.equal(refused?.code, -32041, refused?.message);
      assert.match(refused.message, /circuit open/);
      let stop = false;
      let answered = 0;
      const failures = [];
      const load = (async () => {
        while (!stop) {
          try {
            await echo(client, 'a__echo', 'y');
            answered++;
          } catch (err) {
            failures.push(err.message);
          }
        }
      })();
      try {
        await eventually(() => answered > 20, { what: 'the load running' });
        const r = await post(`${g.base}/_test/kill-breaker-actor`, {});
        assert.equal(r.status, 202, r.text);
        await eventually(() => /actor breaker stopped \(.*\); respawned from snapshot/.test(g.proc.stderr.text()), { what: 'the respawn' });
        const before = answered;
        await eventually(() => answered > before + 20, { what: 'the load going on' });
      } finally {
        stop = true;
        await load;
      }
      assert.deepEqual(failures, []);
      assert.equal(await metric(/gate_actor_restarts_total\{actor="breaker"\} (\d+)/), '1');
      // Every circuit starts closed; the fresh actor counts from there: down's next call is
      // tried, fails, and opens it again, so the call after it is refused by the circuit.
      assert.equal(await metric(/gate_upstream_breaker_state\{upstream="down"\} (\d)/), '0');
      const tried = await echo(client, 'down__echo', 'x').then(() => null, (e) => e);
      assert.ok(tried, 'a call to an upstream nothing listens for fails');
      assert.doesNotMatch(tried.message, /circuit open/);
      const again = await echo(client, 'down__echo', 'x').then(() => null, (e) => e);
      assert.equal(again?.code, -32041, again?.message);
      assert.match(again.message, /circuit open/);
      assert.equal(await metric(/gate_upstream_breaker_state\{upstream="down"\} (\d)/), '2');
    } finally {
      await client.close().catch(() => {});
      await g.stop();
    }
  });

  test('the death of the supervisor ends gate with a non-zero status', async () => {
    const g = await startGate({ env: { GATE_TEST_FAULT_HOOKS: '1' }, config: { upstreams: [{ id: 'a', url: everything.url }] } });
    try {
      assert.equal((await post(`${g.base}/_test/kill-supervisor`, {})).status, 202);
      const { code } = await g.proc.exited;
      assert.equal(code, 70);
      assert.match(g.proc.stderr.text(), /the supervisor stopped \(.*\) and its actors with it: gate stops serving and exits with status 70/);
    } finally {
      await g.stop({ expectExit: { code: 70 } }); // checked like every stop: 70, as documented
    }
  });
});
