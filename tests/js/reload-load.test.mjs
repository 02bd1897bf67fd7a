// Reload under load with the real binary: SDK clients call and list without pause while the
// upstream set changes ten times (added, renamed, retired, back), by SIGHUP and by --watch. Not one request fails, every
// client hears list_changed for each reload, and a call in flight on an upstream a reload
// retires finishes (the retired upstream drains).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, startEverything, startGate } from './lib/index.mjs';

describe('reload under load', { timeout: 240_000 }, () => {
  let a;
  let b;
  before(async () => {
    [a, b] = await Promise.all([startEverything(), startEverything()]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('ten changes of the upstream set under load: zero failures, list_changed, retired upstreams drain', async () => {
    const base = { id: 'a', url: a.url, namespace: 'a' };
    // The ten documents: each changes the upstream set (ids, namespaces, URLs).
    const sets = [
      [base, { id: 'b', url: b.url, namespace: 'b' }],
      [base, { id: 'b', url: b.url, namespace: 'b2' }],
      [base],
      [base, { id: 'c', url: b.url, namespace: 'c' }],
      [base, { id: 'c', url: b.url, namespace: 'c' }, { id: 'd', url: a.url, namespace: 'd' }],
      [base, { id: 'd', url: a.url, namespace: 'd' }],
      [base, { id: 'b', url: b.url, namespace: 'b' }],
      [base, { id: 'b', url: a.url, namespace: 'b' }],
      [base, { id: 'b', url: a.url, namespace: 'b' }, { id: 'e', url: b.url, namespace: 'e' }],
      [base],
    ];
    // --watch as well as SIGHUP: even reloads are a signal, odd ones only a rewritten file.
    const gate = await startGate({ config: { upstreams: [base, { id: 'slow', url: b.url, namespace: 'slow' }] }, args: ['--watch'] });
    const clients = [];
    const heard = [];
    let stop = false;
    const failures = [];
    let calls = 0;
    try {
      for (let i = 0; i < 6; i++) {
        const c = await connectClient(gate.url);
        heard.push(0);
        c.setNotificationHandler(ToolListChangedNotificationSchema, () => heard[i]++);
        clients.push(c);
      }
      // A call in flight on `slow`, which the first reload retires.
      let progressed;
      const inFlight = new Promise((r) => (progressed = r));
      const draining = clients[0].callTool({ name: 'slow__trigger-long-running-operation', arguments: { duration: 2, steps: 4 } }, undefined, {
        onprogress: () => progressed(),
        timeout: 60_000,
      });
      await inFlight; // the upstream is working on it

      const drive = async (c, i) => {
        for (let n = 0; !stop; n++) {
          try {
            const r = await c.callTool({ name: 'a__echo', arguments: { message: `c${i}-${n}` } });
            assert.deepEqual(r.content, [{ type: 'text', text: `Echo: c${i}-${n}` }]);
            calls++;
            const tools = (await c.listTools()).tools;
            assert.ok(tools.some((t) => t.name === 'a__echo'), 'the unchanged upstream is always listed');
          } catch (e) {
            failures.push(String(e?.message ?? e));
          }
        }
      };
      const load = clients.slice(1).map((c, i) => drive(c, i + 1));

      for (let r = 0; r < sets.length; r++) {
        const before = calls;
        const heardBefore = [...heard];
        if (r % 2 === 0) gate.reload({ upstreams: sets[r] });
        else gate.writeConfig({ upstreams: sets[r] }); // --watch sees the new modification time
        await eventually(() => gate.stderrLines.filter((l) => /reload applied/.test(l)).length === r + 1, { what: `reload ${r + 1} applied`, timeoutMs: 15_000 });
        assert.ok(gate.stderrLines.some((l) => new RegExp(`reload applied: ${sets[r].length} upstreams? \\(0 discovered\\)`).test(l)));
        // Every client hears list_changed for this reload (announcements within 20 ms are one).
        await eventually(() => heard.every((n, i) => n > heardBefore[i]), { what: `list_changed after reload ${r + 1}: ${heard}` });
        // Load kept flowing across this reload before the next one.
        await eventually(() => calls > before + 10, { what: `calls after reload ${r + 1}`, timeoutMs: 15_000 });
      }
      const drained = await draining;
      assert.match(JSON.stringify(drained.content), /Long running operation completed/i, 'the retired upstream\'s call finished');
      stop = true;
      await Promise.all(load);
      assert.deepEqual(failures, [], `${failures.length} failed requests of ${calls}`);
      assert.ok(calls > 100, `${calls} calls during ten reloads`);
      await eventually(() => heard.every((n) => n >= sets.length), { what: `list_changed per reload at every client: ${heard}` });
      // The last document's upstreams are what is served.
      const last = (await clients[1].listTools()).tools.map((t) => t.name);
      assert.ok(last.includes('a__echo') && !last.some((n) => /^(b|b2|c|d|e|slow)__/.test(n)), JSON.stringify(last));
    } finally {
      stop = true;
      for (const c of clients) await c.close().catch(() => {});
      await gate.stop();
    }
  });
});
