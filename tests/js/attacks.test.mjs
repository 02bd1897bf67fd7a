// Issue 32, attacked as an attacker would, against the real gate: what a hostile client puts in
// a method name never reaches an upstream's request head; task methods reach only the
// upstreams the caller's tenant sees, are charged against budgets and decided by the policy;
// a probe never takes a task from anyone.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, notification, openRawSession, post, rpc, startGate, startIdp, startModernServer, startRecordingProxy, startTaskServer } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

const SMUGGLED =
  'x/y\r\nX-Injected: 1\r\nContent-Length: 0\r\n\r\nDELETE /admin/everything HTTP/1.1\r\nHost: internal-admin\r\nX-Pad: z';

// Method names that are not MCP method names: each is refused at the door with -32600.
const HOSTILE_METHODS = [
  SMUGGLED,
  'tools/call\nX-Injected: 1',
  'x\u0000y',
  'x y',
  'tools/cäll',
  'a'.repeat(257),
  '',
];

describe('method names never reach a header (issue 32, item 1)', { timeout: 120_000 }, () => {
  let up;
  let proxy;
  let gate;

  before(async () => {
    up = await startModernServer({ legacy: 'reject' });
    proxy = await startRecordingProxy(up.url);
    gate = await startGate({
      config: {
        // Passthrough (one upstream, no namespace), a 2026-07-28 upstream holding a secret,
        // and a deny-by-default policy that grants one tool.
        upstreams: [{ id: 'up', url: proxy.url, protocol: '2026-07-28', auth: { strategy: 'static', secretRef: 'ATTACK_UP_SECRET' } }],
        policy: {
          rules: [
            { id: 'echo-only', allow: [{ server: 'up', methods: ['tools/call'], names: ['echo'] }] },
            { id: 'one-extension-method', allow: [{ server: 'up', methods: ['x/granted'] }] },
          ],
        },
      },
      env: { ATTACK_UP_SECRET: 'the-upstream-secret' },
    });
  });

  after(async () => {
    await gate?.stop();
    await proxy?.stop();
    await up?.stop();
  });

  test('a smuggled request in a method name is refused with -32600 and nothing reaches the upstream', async () => {
    const session = await openRawSession(gate.url);
    try {
      const seenBefore = proxy.seen.length;
      for (const method of HOSTILE_METHODS) {
        for (const body of [rpc(method, {}), notification(method, {})]) {
          const r = await post(gate.url, body, session.headers);
          assert.equal(r.status, 400, `${JSON.stringify(method).slice(0, 40)}: ${r.text}`);
          assert.equal(r.json.error.code, -32600);
          assert.match(r.json.error.message, /not an MCP method name/);
          assert.ok(!r.text.includes('X-Injected'), 'the refusal does not echo the method');
        }
      }
      // A 2026-07-28 (stateless) client is refused the same way.
      const modern = await post(
        gate.url,
        { ...rpc(SMUGGLED, { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }) },
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'x/y' },
      );
      assert.equal(modern.status, 400);
      assert.equal(modern.json.error.code, -32600);
      // gate's own upkeep (the listen its root session opens at start) may land meanwhile.
      const upkeep = ['server/discover', 'subscriptions/listen'];
      const reached = proxy.seen.slice(seenBefore).filter((r) => !upkeep.includes(r.rpcMethod));
      assert.deepEqual(reached, [], 'no request of the attack reached the upstream');
      assert.ok(!proxy.seen.some((r) => r.httpMethod === 'DELETE' && r.headers.host === 'internal-admin'));
      assert.ok(!proxy.seen.some((r) => 'x-injected' in r.headers));
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  test('passthrough forwards a well-formed unknown method only when the policy grants it', async () => {
    const session = await openRawSession(gate.url);
    try {
      const before = proxy.count('x/custom');
      const r = await post(gate.url, rpc('x/custom', {}), session.headers);
      assert.equal(r.json.error.code, -32042, r.text);
      assert.match(r.json.error.message, /policy denied x\/custom on up/);
      assert.equal(proxy.count('x/custom'), before, 'the denied method never left gate');
      const granted = await post(gate.url, rpc('x/granted', {}), session.headers);
      assert.notEqual(granted.json?.error?.code, -32042, granted.text);
      assert.equal(proxy.count('x/granted'), 1, 'a granted unknown method is forwarded, once');
      // The granted tool still works, and its method is mirrored in Mcp-Method as it is.
      const ok = await post(gate.url, rpc('tools/call', { name: 'echo', arguments: { message: 'hi' } }), session.headers);
      assert.equal(ok.json.result.content[0].text, 'Echo: hi', ok.text);
      const call = proxy.seen.findLast((s) => s.rpcMethod === 'tools/call');
      assert.equal(call.headers['mcp-method'], 'tools/call');
      assert.equal(call.headers.authorization, 'Bearer the-upstream-secret');
    } finally {
      await closeRawSession(gate.url, session);
    }
  });
});

describe('task methods keep to tenants, policy and budgets (issue 32, items 2, 3 and 6)', { timeout: 120_000 }, () => {
  let idp;
  let alpha;
  let beta;
  let gate;
  const sessions = [];

  const as = async (sub, claims = {}) => {
    const token = await idp.mint({ sub, aud: RESOURCE, ...claims });
    const s = await openRawSession(gate.url, { authorization: `Bearer ${token}` });
    sessions.push(s);
    return async (method, params) => (await post(gate.url, rpc(method, params), s.headers)).json;
  };
  const taskCalls = (server, from) => server.requests.slice(from).filter((m) => m.startsWith('tasks/'));
  const config = (extra = {}) => ({
    upstreams: [
      { id: 'alpha', url: alpha.url, namespace: 'alpha' },
      { id: 'beta', url: beta.url, namespace: 'beta' },
    ],
    auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    tenants: [{ id: 'a-team', subjects: { claims: { org: 'a' } }, upstreams: ['alpha'] }],
    policy: {
      rules: [
        { id: 'everything', subjects: { subs: ['alice', 'bob', 'dave'] }, allow: [{ server: 'alpha' }, { server: 'beta' }] },
        { id: 'carol-reads', subjects: { subs: ['carol'] }, allow: [{ server: 'alpha', methods: ['tasks/get'] }] },
      ],
    },
    ...extra,
  });

  before(async () => {
    idp = await startIdp();
    [alpha, beta] = await Promise.all([startTaskServer(['alpha-task']), startTaskServer(['beta-task'])]);
    gate = await startGate({ config: config() });
  });

  after(async () => {
    for (const s of sessions) await closeRawSession(gate?.url, s);
    await gate?.stop();
    await Promise.all([alpha?.stop(), beta?.stop(), idp?.stop()]);
  });

  test('a tenant that sees alpha alone neither lists nor reaches beta\'s tasks', async () => {
    const alice = await as('alice', { org: 'a' });
    const seen = beta.requests.length;
    const listed = await alice('tasks/list', {});
    assert.deepEqual(listed.result.tasks.map((t) => t.taskId), ['alpha-task']);
    for (const method of ['tasks/get', 'tasks/result', 'tasks/cancel']) {
      const r = await alice(method, { taskId: 'beta-task' });
      assert.equal(r.error?.code, -32002, `${method}: ${JSON.stringify(r)}`);
    }
    assert.deepEqual(taskCalls(beta, seen), [], 'beta heard nothing of alice\'s task methods');
    // Her own tenant's task is hers to read.
    assert.equal((await alice('tasks/get', { taskId: 'alpha-task' })).result.taskId, 'alpha-task');
    // Outside the tenant, the same task is reachable (the probe works).
    const bob = await as('bob');
    assert.equal((await bob('tasks/get', { taskId: 'beta-task' })).result.taskId, 'beta-task');
  });

  test('the policy decides task methods: a grant of tasks/get alone reads, and cancels nothing', async () => {
    const carol = await as('carol');
    const seenAlpha = alpha.requests.length;
    const seenBeta = beta.requests.length;
    assert.equal((await carol('tasks/get', { taskId: 'alpha-task' })).result.taskId, 'alpha-task');
    const cancel = await carol('tasks/cancel', { taskId: 'alpha-task' });
    assert.equal(cancel.error?.code, -32042, JSON.stringify(cancel));
    assert.match(cancel.error.message, /policy denied tasks\/cancel of alpha-task on alpha for carol/);
    const listed = await carol('tasks/list', {});
    assert.deepEqual(listed.result.tasks, [], 'tasks/list is not granted anywhere');
    assert.deepEqual(taskCalls(alpha, seenAlpha), ['tasks/get'], 'only the granted read reached alpha');
    assert.deepEqual(taskCalls(beta, seenBeta), [], 'beta is not granted to carol at all');
  });

  test('a probe does not take a task from anyone: both principals reach a task without a record', async () => {
    // No record (gate never saw it minted, as after a restart without the fleet's store):
    // whoever probes first must not become its owner.
    const bob = await as('bob');
    const dave = await as('dave');
    assert.equal((await dave('tasks/get', { taskId: 'beta-task' })).result.taskId, 'beta-task');
    const got = await bob('tasks/result', { taskId: 'beta-task' });
    assert.match(JSON.stringify(got.result), /payload of beta-task/, JSON.stringify(got));
    assert.equal((await dave('tasks/result', { taskId: 'beta-task' })).result.content[0].text, 'payload of beta-task');
  });

  test('task methods, probes and tasks/list fan-outs are charged to the budgets, and refused once spent', async () => {
    const budgeted = await startGate({ config: config({ server: { budget: { period: 'day', upstreamCalls: 2 } } }) });
    try {
      const token = await idp.mint({ sub: 'bob', aud: RESOURCE });
      const s = await openRawSession(budgeted.url, { authorization: `Bearer ${token}` });
      const call = async (method, params) => (await post(budgeted.url, rpc(method, params), s.headers)).json;
      const [seenAlpha, seenBeta] = [alpha.requests.length, beta.requests.length];
      const reached = () => [...taskCalls(alpha, seenAlpha), ...taskCalls(beta, seenBeta)].length;
      // A probe of an unknown id asks both upstreams: two invocations, the whole budget.
      assert.equal((await call('tasks/get', { taskId: 'nobody-has-it' })).error?.code, -32002);
      assert.equal(reached(), 2);
      // From now on nothing reaches an upstream: not a list, not a probe, not a result.
      for (const [method, params] of [
        ['tasks/list', {}],
        ['tasks/get', { taskId: 'alpha-task' }],
        ['tasks/result', { taskId: 'beta-task' }],
        ['tasks/cancel', { taskId: 'nobody-has-it' }],
      ]) {
        const r = await call(method, params);
        assert.equal(r.error?.code, -32044, `${method}: ${JSON.stringify(r)}`);
        assert.match(r.error.message, /budget exhausted: 2 upstream calls per day for the server/);
      }
      assert.equal(reached(), 2, 'no upstream request once the budget is spent');
      await closeRawSession(budgeted.url, s);
    } finally {
      await budgeted.stop();
    }
  });
});
