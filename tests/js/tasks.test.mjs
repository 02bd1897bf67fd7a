// Tasks through gate (spec rule 10): server-everything upstreams `a` and `b` mint tasks
// (simulate-research-query runs as a task), and an SDK task server `t` holds tasks gate has
// never seen minted. Pinning, the probe path, merged tasks/list, and the anonymous owner.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, eventually, openEventStream, openRawSession, post, rpc, startEverything, startGate, startTaskServer, startTaskServerV2 } from './lib/index.mjs';

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

  test('anonymous callers share one task owner, as the spec says; an unknown id is -32002', { timeout: 30_000 }, async () => {
    // Spec, Principal: anonymous callers have no principal fields, so a task minted in one
    // anonymous session is reachable from another (principals are kept apart: auth.test.mjs).
    // gate routes bob's tasks/get to the owner with no probe; what the upstream does with a
    // task of another of its sessions is its own business (server-everything keeps tasks per
    // session and answers its own error, passed through verbatim, not gate's -32002).
    const id = await mint(alice, 'a', 'shared');
    const shared = await call(bob, 'tasks/get', { taskId: id });
    assert.notEqual(shared.error?.code, -32002, JSON.stringify(shared));
    const [ev] = await auditFor((e) => e.method === 'tasks/get' && e.name === id);
    assert.equal(ev.upstream, 'ev-a');
    assert.equal(ev.upstreamCalls, 1, 'pinned for every anonymous caller: no probe');
    const unknown = await call(bob, 'tasks/get', { taskId: 'no-such-task' });
    assert.equal(unknown.error.code, -32002);
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

// The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): a CreateTaskResult is
// pinned like a 2025-11-25 task, and tasks/get, tasks/update and tasks/cancel reach its owner.
// Every answer through gate is checked against @modelcontextprotocol/ext-tasks' V2 schemas.
describe('the 2026-07-28 tasks extension through gate', { timeout: 120_000 }, () => {
  const MODERN = '2026-07-28';
  const EXTENSION = 'io.modelcontextprotocol/tasks';
  let v2;
  let ev;
  let gate;
  let schemas;

  /** The body and headers of a 2026-07-28 request; `extension` declares the tasks extension. */
  const envelope = (method, params, extension) => {
    const named = params.name ?? params.taskId;
    return [
      {
        jsonrpc: '2.0',
        id: 7,
        method,
        params: {
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': extension ? { extensions: { [EXTENSION]: {} } } : {},
          },
        },
      },
      {
        'mcp-protocol-version': MODERN,
        'mcp-method': method,
        ...(named !== undefined && method !== 'server/discover' ? { 'mcp-name': named } : {}),
      },
    ];
  };
  /** A 2026-07-28 request through gate, answered with HTTP `status`. */
  const modern = async (method, params, { extension = true, status = 200 } = {}) => {
    const res = await post(gate.url, ...envelope(method, params, extension));
    assert.equal(res.status, status, `${method}: HTTP ${res.status} ${res.text}`);
    return res.json;
  };
  /** A listen through gate, read frame by frame: { next(): the next message, close() }. */
  const openListen = async (notifications) => {
    const stream = await openEventStream(gate.url, ...envelope('subscriptions/listen', { notifications }, true));
    return { next: async () => (await stream.next()).json, close: stream.close };
  };

  before(async () => {
    schemas = await import('@modelcontextprotocol/ext-tasks/core/v2');
    [v2, ev] = await Promise.all([startTaskServerV2(), startEverything()]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev', url: ev.url, namespace: 'ev' },
          { id: 'v2', url: v2.url, namespace: 't2', protocol: MODERN },
        ],
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([v2?.stop(), ev?.stop()]);
  });

  test('discovery offers the extension', async () => {
    const r = await modern('server/discover', {});
    assert.deepEqual(r.result.capabilities.extensions, { [EXTENSION]: {}, 'io.modelcontextprotocol/ui': {} }, 'beside MCP Apps');
    assert.equal(r.result.capabilities.tasks, undefined, "the 2025-11-25 capability is not this revision's");
  });

  test('a task is created, polled to completion, updated and cancelled at its owner', { timeout: 30_000 }, async () => {
    const created = await modern('tools/call', { name: 't2__report', arguments: { topic: 'q3' } });
    const task = schemas.CreateTaskResultV2Schema.parse(created.result);
    assert.ok(v2.tasks.has(task.taskId), 'the id is the upstream\'s own, not rewritten');
    let got;
    await eventually(
      async () => {
        got = schemas.GetTaskResultV2Schema.parse((await modern('tasks/get', { taskId: task.taskId })).result);
        return got.status === 'completed';
      },
      { what: 'the task completing' },
    );
    assert.deepEqual(got.result, { content: [{ type: 'text', text: 'report on q3' }] });
    const updated = await modern('tasks/update', { taskId: task.taskId, inputResponses: { who: { action: 'accept', content: { name: 'alice' } } } });
    schemas.UpdateTaskResultV2Schema.parse(updated.result);
    assert.deepEqual(v2.tasks.get(task.taskId).updates, [{ who: { action: 'accept', content: { name: 'alice' } } }]);

    const second = schemas.CreateTaskResultV2Schema.parse((await modern('tools/call', { name: 't2__report', arguments: { topic: 'q4' } })).result);
    schemas.CancelTaskResultV2Schema.parse((await modern('tasks/cancel', { taskId: second.taskId })).result);
    assert.equal(v2.tasks.get(second.taskId).status, 'cancelled');
    // The owner's own refusal comes back as it sent it.
    const again = await modern('tasks/cancel', { taskId: second.taskId });
    assert.equal(again.error.code, -32602);
    assert.match(again.error.message, /already cancelled/);
    // Pinned: every task request went to the owner once, no probe of the other upstream.
    const taskRequests = v2.requests.filter((r) => r.body.method?.startsWith('tasks/'));
    assert.ok(taskRequests.every((r) => r.headers['mcp-name'] === r.body.params.taskId), 'Mcp-Name mirrors taskId upstream');
  });

  test('no task for a caller that did not declare the extension: a 2026-07-28 request without it, or a 2025-11-25 session', { timeout: 30_000 }, async () => {
    const plain = await modern('tools/call', { name: 't2__report', arguments: { topic: 'now' } }, { extension: false });
    assert.deepEqual(plain.result.content, [{ type: 'text', text: 'report on now' }]);
    assert.notEqual(plain.result.resultType, 'task');
    const session = await openRawSession(gate.url);
    try {
      const r = await post(gate.url, rpc('tools/call', { name: 't2__report', arguments: { topic: 'legacy' } }), session.headers);
      assert.deepEqual(r.json.result.content, [{ type: 'text', text: 'report on legacy' }]);
      assert.equal(r.json.result.taskId, undefined);
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  test('an id no upstream holds is probed at every upstream, then answered -32602 (the extension; -32002 is retired)', { timeout: 30_000 }, async () => {
    const probes = () => v2.requests.filter((r) => r.body.method === 'tasks/get' && r.body.params.taskId === 'v2-never-made').length;
    const r = await modern('tasks/get', { taskId: 'v2-never-made' });
    assert.equal(r.error.code, -32602, JSON.stringify(r));
    assert.match(r.error.message, /unknown task: v2-never-made/);
    assert.equal(probes(), 1, 'the 2026-07-28 upstream was asked, with the envelope');
    // A mutating method never goes out on a guess.
    const cancel = await modern('tasks/cancel', { taskId: 'v2-never-made' });
    assert.equal(cancel.error.code, -32602);
    assert.equal(v2.requests.filter((x) => x.body.method === 'tasks/cancel' && x.body.params.taskId === 'v2-never-made').length, 0);
  });

  test('tasks/result and tasks/list are not methods of the extension: 404 and -32601', async () => {
    for (const method of ['tasks/result', 'tasks/list']) {
      const r = await modern(method, method === 'tasks/list' ? {} : { taskId: 'v2-x' }, { status: 404 });
      assert.equal(r.error.code, -32601, JSON.stringify(r));
      assert.match(r.error.message, new RegExp(`${method} does not exist in 2026-07-28`));
    }
    assert.equal(v2.requests.filter((x) => x.body.method === 'tasks/result' || x.body.method === 'tasks/list').length, 0);
  });

  test('a caller that did not declare the extension gets -32021 naming it, for task methods and task listens', async () => {
    const required = { requiredCapabilities: { extensions: { [EXTENSION]: {} } } };
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const r = await modern(method, { taskId: 'v2-x', ...(method === 'tasks/update' ? { inputResponses: {} } : {}) }, { extension: false, status: 400 });
      assert.equal(r.error.code, -32021, JSON.stringify(r));
      assert.deepEqual(r.error.data, required);
      assert.match(r.error.message, new RegExp(`${method} needs the tasks extension`));
    }
    const listen = await modern('subscriptions/listen', { notifications: { taskIds: ['v2-x'] } }, { extension: false, status: 400 });
    assert.equal(listen.error.code, -32021);
    assert.deepEqual(listen.error.data, required);
  });

  test('a listen for a task hears its notifications/tasks from the owner, and only for tasks the caller holds', { timeout: 30_000 }, async () => {
    const created = schemas.CreateTaskResultV2Schema.parse((await modern('tools/call', { name: 't2__report', arguments: { topic: 'pushed' } })).result);
    const listen = await openListen({ taskIds: [created.taskId, 'v2-nobody-minted'] });
    try {
      const ack = await listen.next();
      assert.equal(ack.method, 'notifications/subscriptions/acknowledged');
      assert.deepEqual(ack.params.notifications, { taskIds: [created.taskId] }, 'an id gate knows no owner of is left out');
      assert.equal(ack.params._meta['io.modelcontextprotocol/subscriptionId'], 7);
      // gate holds the task in its own listen at the owner.
      await eventually(() => [...v2.listens].some((l) => l.taskIds.has(created.taskId)), { what: "gate's listen at the owner holding the task" });
      v2.finish(created.taskId);
      const news = schemas.TaskStatusNotificationV2Schema.parse(await listen.next());
      assert.equal(news.params.taskId, created.taskId);
      assert.equal(news.params.status, 'completed');
      assert.deepEqual(news.params.result, { content: [{ type: 'text', text: 'report on pushed' }] });
      assert.equal(news.params._meta['io.modelcontextprotocol/subscriptionId'], 7, "stamped with the client's listen, not gate's");
    } finally {
      listen.close();
    }
    // The listener left: gate stops asking the owner about the task.
    await eventually(() => ![...v2.listens].some((l) => l.taskIds.has(created.taskId)), { what: 'the task released at the owner' });
  });
});
