// Tasks through gate (spec rule 10): server-everything upstreams `a` and `b` mint tasks
// (simulate-research-query runs as a task), and an SDK task server `t` holds tasks gate has
// never seen minted. Pinning, the probe path, merged tasks/list, and another caller's task.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, eventually, openRawSession, post, rpc, startEverything, startGate, startTaskServer } from './lib/index.mjs';

describe('tasks across upstreams', { timeout: 240_000 }, () => {
  let a;
  let b;
  let t;
  let gate;
  let alice;
  let bob;

  const call = async (session, method, params) => {
    const res = await post(gate.url, rpc(method, params), session.headers);
    assert.equal(res.status, 200, `${method}: HTTP ${res.status} ${res.text}`);
    return res.json;
  };
  const mint = async (session, ns, topic) => {
    const r = await call(session, 'tools/call', {
      name: `${ns}__simulate-research-query`,
      arguments: { topic },
      task: { ttl: 60_000 },
    });
    assert.ok(r.result?.task?.taskId, `a task is minted: ${JSON.stringify(r)}`);
    return r.result.task.taskId;
  };
  const auditFor = (pred) => gate.waitForAudit((evs) => evs.some(pred)).then((evs) => evs.filter(pred));

  before(async () => {
    [a, b, t] = await Promise.all([startEverything(), startEverything(), startTaskServer(['held-elsewhere'])]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev-a', url: a.url, namespace: 'a' },
          { id: 'ev-b', url: b.url, namespace: 'b' },
          { id: 'tasks', url: t.url, namespace: 't' },
        ],
        routing: { pageSize: 1 },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    [alice, bob] = await Promise.all([openRawSession(gate.url), openRawSession(gate.url)]);
  });

  after(async () => {
    for (const s of [alice, bob]) await closeRawSession(gate?.url, s);
    await gate?.stop();
    await Promise.all([a?.stop(), b?.stop(), t?.stop()]);
  });

  test('a minted task is pinned to its upstream: get and result go there alone', { timeout: 60_000 }, async () => {
    const id = await mint(alice, 'b', 'pinning');
    const got = await call(alice, 'tasks/get', { taskId: id });
    assert.equal(got.result.taskId, id, 'the id is passed through unchanged');
    const [ev] = await auditFor((e) => e.method === 'tasks/get' && e.name === id);
    assert.equal(ev.upstream, 'ev-b');
    assert.equal(ev.upstreamCalls, 1, 'no probe for a pinned task');
    await eventually(async () => (await call(alice, 'tasks/get', { taskId: id })).result.status === 'completed', {
      timeoutMs: 30_000,
      everyMs: 250,
    });
    const result = await call(alice, 'tasks/result', { taskId: id });
    assert.match(JSON.stringify(result.result.content), /Research Report: pinning/);
  });

  test('another caller gets -32002 for it, exactly like an unknown id', { timeout: 30_000 }, async () => {
    const id = await mint(alice, 'a', 'private');
    const foreign = await call(bob, 'tasks/get', { taskId: id });
    const unknown = await call(bob, 'tasks/get', { taskId: 'no-such-task' });
    assert.equal(foreign.error.code, -32002);
    assert.equal(unknown.error.code, -32002);
    assert.equal(
      foreign.error.message.replace(id, '<id>'),
      unknown.error.message.replace('no-such-task', '<id>'),
      'no existence leak in the message',
    );
    for (const m of ['tasks/result', 'tasks/cancel']) {
      const r = await call(bob, m, { taskId: id });
      assert.equal(r.error.code, -32002, m);
    }
    // alice still has it.
    assert.equal((await call(alice, 'tasks/get', { taskId: id })).result.taskId, id);
  });

  test('a task with no record is found by a tasks/get probe, then pinned', { timeout: 30_000 }, async () => {
    const before = t.requests.length;
    const got = await call(alice, 'tasks/get', { taskId: 'held-elsewhere' });
    assert.equal(got.result.taskId, 'held-elsewhere');
    const [probe] = await auditFor((e) => e.method === 'tasks/get' && e.name === 'held-elsewhere');
    assert.equal(probe.upstream, 'tasks');
    assert.equal(probe.upstreamCalls, 3, 'the probe asked all three upstreams');
    // The mutating method goes to the one owner only, and the probe is not repeated.
    const afterProbe = t.requests.length;
    const payload = await call(alice, 'tasks/result', { taskId: 'held-elsewhere' });
    assert.match(JSON.stringify(payload.result), /payload of held-elsewhere/);
    const [res] = await auditFor((e) => e.method === 'tasks/result' && e.name === 'held-elsewhere');
    assert.equal(res.upstream, 'tasks');
    assert.equal(res.upstreamCalls, 1, 'pinned by the probe');
    assert.deepEqual(t.requests.slice(afterProbe).filter((m) => m.startsWith('tasks/')), ['tasks/result']);
    assert.ok(t.requests.slice(before, afterProbe).includes('tasks/get'));
    // The owner's own error passes through verbatim.
    const cancel = await call(alice, 'tasks/cancel', { taskId: 'held-elsewhere' });
    assert.equal(cancel.error.code, -32602);
    assert.match(cancel.error.message, /Task not found: held-elsewhere/);
  });

  test('an unknown task is probed everywhere and answered -32002', { timeout: 30_000 }, async () => {
    const r = await call(alice, 'tasks/result', { taskId: 'nobody-has-this' });
    assert.equal(r.error.code, -32002);
    const bad = await call(alice, 'tasks/get', { taskId: 42 });
    assert.equal(bad.error.code, -32602);
    assert.match(bad.error.message, /taskId must be a non-empty string/);
  });

  test('tasks/list merges every upstream in id order and pages', { timeout: 60_000 }, async () => {
    const mine = [await mint(alice, 'a', 'list one'), await mint(alice, 'b', 'list two')];
    const ids = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
      const r = await call(alice, 'tasks/list', cursor ? { cursor } : {});
      assert.ok(r.result, JSON.stringify(r));
      assert.ok(r.result.tasks.length <= 1, 'pageSize 1');
      ids.push(...r.result.tasks.map((x) => x.taskId));
      cursor = r.result.nextCursor;
      if (!cursor) break;
    }
    for (const id of [...mine, 'held-elsewhere']) assert.ok(ids.includes(id), `${id} listed`);
    assert.deepEqual(ids, [...ids].sort(), 'deterministic id order');
    // bob's list has none of alice's tasks from the everything servers.
    const bobs = (await call(bob, 'tasks/list', {})).result;
    const bobIds = [];
    let c = bobs;
    for (;;) {
      bobIds.push(...c.tasks.map((x) => x.taskId));
      if (!c.nextCursor) break;
      c = (await call(bob, 'tasks/list', { cursor: c.nextCursor })).result;
    }
    for (const id of mine) assert.ok(!bobIds.includes(id));
    // A cursor of alice's list is not bob's.
    const first = await call(alice, 'tasks/list', {});
    const stolen = await call(bob, 'tasks/list', { cursor: first.result.nextCursor });
    assert.equal(stolen.error.code, -32602);
  });
});
