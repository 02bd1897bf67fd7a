// policy.decisionHook against the real binary, a real SDK server (server-everything), SDK
// clients and a real HTTP decision service started by the test: asked only about what gate's
// rules allow, with the documented description; its denials (before the call, on the result,
// on an upstream's request to a client) answered -32042 with its reason; every failure (slow,
// down, garbage, an error status, too many questions out) handled as onError says and told
// without the hook's address; answers remembered for cacheTtlMs; decisions, errors and latency
// counted and audited; and a fleet of two gates over a real Redis, with tokens of a real
// identity provider, each asking the hook with its bearer token.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  FULL_CLIENT_CAPABILITIES,
  closeRawSession,
  connectClient,
  eventually,
  openRawSession,
  post,
  rpc,
  expectMcpError,
  get,
  modernRequest,
  runGate,
  startDecisionService,
  startEverything,
  startGate,
  startIdp,
  startModernServer,
  startRedis,
  startTaskServerV2,
} from './lib/index.mjs';
import { startRawUpstream } from './lib/raw-upstream.mjs';
import { metric as metricOr } from './lib/metrics.mjs';

const metric = (text, name, labels) => metricOr(text, name, labels, undefined);
const metricsOf = async (gate) => (await get(`${gate.base}/metrics`)).text;
const echo = (c, message) => c.callTool({ name: 'echo', arguments: { message } });

const policyWith = (upstream, decisionHook) => ({
  defaultDecision: 'deny',
  rules: [
    {
      id: 'tools',
      allow: [{ server: upstream, methods: ['tools/call'], names: ['echo', 'get-sum', 'trigger-sampling-request', 'simulate-research-query'] }],
    },
    { id: 'sampling', allow: [{ server: upstream, methods: ['sampling/createMessage'] }] },
    { id: 'tasks', allow: [{ server: upstream, methods: ['tasks/get', 'tasks/result'] }] },
  ],
  decisionHook,
});

describe('policy.decisionHook before calls', { timeout: 60_000 }, () => {
  let everything;
  let hook;
  let gate;
  let client;

  before(async () => {
    everything = await startEverything();
    hook = await startDecisionService((d) =>
      d.upstreamName === 'get-sum' ? { decision: 'deny', reason: 'sums are audited elsewhere' } : { decision: 'allow' },
    );
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url }],
        policy: policyWith('solo', { url: hook.url, include: ['arguments'] }),
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await Promise.all([everything?.stop(), hook?.stop()]);
  });

  test('what the rules allow is described to the hook and goes on when it allows', async () => {
    const r = await echo(client, 'hi');
    assert.match(r.content[0].text, /hi/);
    const d = hook.of('call').at(-1);
    assert.deepEqual(d, {
      version: 1,
      stage: 'call',
      principal: null,
      tenant: null,
      method: 'tools/call',
      name: 'echo',
      upstream: 'solo',
      upstreamName: 'echo',
      rule: 'tools',
      arguments: { message: 'hi' },
    });
    assert.equal(hook.asked.at(-1).headers['content-type'], 'application/json');
    assert.equal(hook.asked.at(-1).headers.authorization, undefined);
  });

  test('its denial is -32042 with its reason; the policy decision and the hook verdict are audited', async () => {
    const err = await expectMcpError(() => client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }));
    assert.equal(err.code, -32042, err.message);
    assert.match(err.message, /the decision hook denied tools\/call of get-sum on solo: sums are audited elsewhere/);
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.name === 'get-sum'));
    const e = events.find((x) => x.name === 'get-sum');
    assert.equal(e.outcome, 'denied');
    assert.equal(e.decision, 'allow');
    assert.equal(e.ruleId, 'tools');
    assert.deepEqual(e.hook, { stage: 'call', verdict: 'deny', reason: 'sums are audited elsewhere' });
    const allowed = events.find((x) => x.name === 'echo');
    assert.deepEqual(allowed.hook, { stage: 'call', verdict: 'allow' });
  });

  test('what the rules deny never reaches the hook', async () => {
    const before = hook.asked.length;
    const err = await expectMcpError(() => client.callTool({ name: 'get-env', arguments: {} }));
    assert.equal(err.code, -32042);
    assert.match(err.message, /: policy denied tools\/call of get-env/);
    assert.equal(hook.asked.length, before);
  });

  test('decisions and latency are counted', async () => {
    const m = await metricsOf(gate);
    assert.equal(metric(m, 'gate_decision_hook_decisions_total', { stage: 'call', decision: 'allow', source: 'hook' }), 1);
    assert.equal(metric(m, 'gate_decision_hook_decisions_total', { stage: 'call', decision: 'deny', source: 'hook' }), 1);
    assert.equal(metric(m, 'gate_decision_hook_duration_seconds_count', { stage: 'call' }), 2);
  });

  test('questions share one kept connection, and one the hook closed is replaced at once', async () => {
    const opened = hook.connections;
    await echo(client, 'one');
    await echo(client, 'two');
    assert.equal(hook.connections, opened, 'no new connection per question');
    hook.closeIdle();
    const asked = hook.asked.length;
    assert.match((await echo(client, 'three')).content[0].text, /three/);
    assert.equal(hook.asked.length, asked + 1);
    assert.equal(hook.connections, opened + 1);
  });

  test("each question has an Idempotency-Key of its own, the same when asked again, and the call's trace", async () => {
    const decide = (d) => (d.upstreamName === 'get-sum' ? { decision: 'deny', reason: 'sums are audited elsewhere' } : { decision: 'allow' });
    let dropped = 0;
    // The hook reads the question on a kept connection and hangs up: gate asks again on a
    // fresh one, and the hook can tell it is the same question.
    hook.setDecide((d) => (d.arguments?.message === 'dropped' && dropped++ === 0 ? { drop: true } : decide(d)));
    try {
      await echo(client, 'warm'); // a kept connection for the next question
      const from = hook.asked.length;
      const session = await openRawSession(gate.url);
      const trace = '4bf92f3577b34da6a3ce929d0e0e4736';
      const traceparent = `00-${trace}-00f067aa0ba902b7-01`;
      const r = await post(gate.url, rpc('tools/call', { name: 'echo', arguments: { message: 'dropped' } }), { ...session.headers, traceparent });
      assert.match(r.text, /Echo: dropped/);
      await closeRawSession(gate.url, session);
      const asked = hook.asked.slice(from);
      assert.equal(asked.length, 2, 'asked again after the hang-up');
      const keys = asked.map((a) => a.headers['idempotency-key']);
      assert.match(keys[0], /^[0-9a-f]{32}$/);
      assert.equal(keys[1], keys[0], 'the same question, the same key');
      const others = hook.asked.slice(0, from).map((a) => a.headers['idempotency-key']);
      assert.equal(new Set(others).size, others.length, 'every other question a key of its own');
      assert.ok(!others.includes(keys[0]));
      for (const a of asked) {
        const [, id, parent] = a.headers.traceparent.split('-');
        assert.equal(id, trace, "the hook's span joins the call's trace");
        assert.notEqual(parent, '00f067aa0ba902b7', "gate's span is the parent, not the client's");
      }
    } finally {
      hook.setDecide(decide);
    }
  });
});

describe('policy.decisionHook failures', { timeout: 60_000 }, () => {
  let everything;
  let hook;
  let gate;
  let client;
  const gates = [];

  before(async () => {
    everything = await startEverything();
    hook = await startDecisionService();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url }],
        policy: policyWith('solo', { url: hook.url, timeoutMs: 1000, maxConcurrent: 1 }),
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    gates.push(gate);
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await Promise.all(gates.map((g) => g.stop()));
    await Promise.all([everything?.stop(), hook?.stop()]);
  });

  const refused = async (c, pattern, kind) => {
    const err = await expectMcpError(() => echo(c, 'x'));
    assert.equal(err.code, -32042, err.message);
    assert.match(err.message, /: the decision hook could not decide tools\/call of echo on solo \(/);
    assert.match(err.message, pattern);
    assert.doesNotMatch(err.message, /127\.0\.0\.1|\/decide/, 'the hook\'s address is not the client\'s to see');
    if (kind) assert.ok(metric(await metricsOf(gate), 'gate_decision_hook_errors_total', { stage: 'call', kind }) >= 1, kind);
    return err;
  };

  test('garbage and error statuses deny, saying what was wrong', async () => {
    hook.setDecide(() => ({ status: 200, body: 'yes' }));
    await refused(client, /its answer is not a JSON object/, 'malformed');
    hook.setDecide(() => ({ decision: 'maybe' }));
    await refused(client, /"decision" is not "allow" or "deny"/, 'malformed');
    hook.setDecide(() => ({ decision: 'deny', reason: ['not', 'a', 'string'] }));
    await refused(client, /"reason" is not a string/, 'malformed');
    hook.setDecide(() => ({ status: 500, body: '{"decision":"allow"}' }));
    await refused(client, /it answered HTTP 500/, 'status');
    const events = await gate.waitForAudit((ev) => ev.filter((e) => e.hook?.verdict === 'error').length >= 4);
    const last = events.filter((e) => e.hook?.verdict === 'error').at(-1);
    assert.equal(last.outcome, 'denied');
    assert.match(last.hook.error, /HTTP 500/);
  });

  test('a hook that does not answer in time denies', async () => {
    hook.setDecide(() => ({ hold: true }));
    await refused(client, /it did not answer in time/, 'timeout');
    hook.release();
    const m = await metricsOf(gate);
    assert.equal(metric(m, 'gate_decision_hook_errors_total', { stage: 'call', kind: 'timeout' }), 1);
    assert.ok(metric(m, 'gate_decision_hook_duration_seconds_sum', { stage: 'call' }) >= 1, 'the slow exchange took its timeout');
  });

  test('past maxConcurrent a question waits its turn, and gets it when one is answered', async () => {
    hook.setDecide(() => ({ hold: true }));
    const asked = hook.asked.length;
    const first = echo(client, 'first');
    await eventually(() => hook.asked.length === asked + 1, { what: 'the first question reached the hook' });
    const second = echo(client, 'second');
    await eventually(async () => metric(await metricsOf(gate), 'gate_decision_hook_questions', { state: 'waiting' }) === 1, {
      what: 'the second question waits for a turn',
    });
    assert.equal(hook.asked.length, asked + 1, 'maxConcurrent 1: the second is not out yet');
    hook.setDecide(() => ({ decision: 'allow' }));
    hook.release({ decision: 'allow' });
    const [a, b] = await Promise.all([first, second]);
    assert.match(a.content[0].text, /first/);
    assert.match(b.content[0].text, /second/);
    assert.equal(hook.asked.length, asked + 2);
    assert.equal(hook.maxInFlight, 1);
    const m = await metricsOf(gate);
    assert.equal(metric(m, 'gate_decision_hook_questions', { state: 'waiting' }), 0);
    assert.equal(metric(m, 'gate_decision_hook_questions', { state: 'out' }), 0);
  });

  test('a hook that is down denies by default, and lets calls through under onError allow', async () => {
    const down = await startDecisionService();
    const url = down.url;
    await down.stop();
    await gate.reloaded({
      upstreams: [{ id: 'solo', url: everything.url }],
      policy: policyWith('solo', { url, timeoutMs: 2000 }),
      audit: { sinks: [{ type: 'stdout' }] },
    });
    await refused(client, /it could not be reached/, 'unreachable');
    const lenient = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url }],
        policy: policyWith('solo', { url, timeoutMs: 2000, onError: 'allow' }),
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    gates.push(lenient);
    const c = await connectClient(lenient.url);
    try {
      assert.match((await echo(c, 'through')).content[0].text, /through/);
      const events = await lenient.waitForAudit((ev) => ev.some((e) => e.method === 'tools/call'));
      const e = events.find((x) => x.method === 'tools/call');
      assert.equal(e.outcome, 'ok');
      assert.equal(e.hook.verdict, 'error');
      assert.match(e.hook.error, /127\.0\.0\.1/, 'the audit names what failed');
    } finally {
      await c.close().catch(() => {});
    }
  });
});

describe('policy.decisionHook memory, results and server requests', { timeout: 90_000 }, () => {
  let everything;
  let hook;
  let gate;
  let client;
  let sampled = 0;

  before(async () => {
    everything = await startEverything();
    hook = await startDecisionService((d) => {
      if (d.stage === 'result' && JSON.stringify(d.result ?? {}).includes('secret')) return { decision: 'deny', reason: 'the result names a secret' };
      if (d.stage === 'serverRequest' && d.method === 'sampling/createMessage') return { decision: 'deny', reason: 'no sampling for this upstream' };
      return { decision: 'allow' };
    });
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url }],
        policy: policyWith('solo', {
          url: hook.url,
          stages: ['call', 'result', 'serverRequest'],
          include: ['arguments', 'result'],
          cacheTtlMs: 60_000,
        }),
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    client = await connectClient(gate.url, {
      capabilities: FULL_CLIENT_CAPABILITIES,
      onSampling: () => {
        sampled += 1;
      },
    });
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await Promise.all([everything?.stop(), hook?.stop()]);
  });

  test('an answer is remembered for the same description, not for other arguments', async () => {
    const calls = () => hook.of('call').length;
    const start = calls();
    await echo(client, 'same');
    await echo(client, 'same');
    assert.equal(calls(), start + 1, 'the second call was decided from memory');
    await echo(client, 'other');
    assert.equal(calls(), start + 2);
    const m = await metricsOf(gate);
    assert.equal(metric(m, 'gate_decision_hook_decisions_total', { stage: 'call', decision: 'allow', source: 'cache' }), 1);
    // The audit event carries the last stage's say: here the result's, remembered as well.
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.hook?.cached));
    assert.equal(events.find((e) => e.hook?.cached).hook.verdict, 'allow');
  });

  test('a result the hook denies is withheld after the upstream answered', async () => {
    const err = await expectMcpError(() => echo(client, 'the secret'));
    assert.equal(err.code, -32042, err.message);
    assert.match(err.message, /the decision hook denied the result of tools\/call of echo on solo: the result names a secret/);
    const d = hook.of('result').at(-1);
    assert.equal(d.isError, false);
    assert.equal(d.upstreamName, 'echo');
    assert.deepEqual(d.arguments, { message: 'the secret' });
    assert.match(JSON.stringify(d.result.content), /Echo: the secret/);
    assert.match((await echo(client, 'public')).content[0].text, /public/);
    const m = await metricsOf(gate);
    assert.ok(metric(m, 'gate_decision_hook_decisions_total', { stage: 'result', decision: 'deny', source: 'hook' }) >= 1);
    assert.ok(metric(m, 'gate_upstream_requests_total', { upstream: 'solo', outcome: 'ok' }) >= 4, 'the upstream answered');
  });

  test('a task\'s result the hook denies is withheld at tasks/result', async () => {
    const session = await openRawSession(gate.url);
    try {
      const call = async (method, params) => (await post(gate.url, rpc(method, params), session.headers)).json;
      const minted = await call('tools/call', { name: 'simulate-research-query', arguments: { topic: 'secret plans' }, task: { ttl: 60_000 } });
      const id = minted.result?.task?.taskId;
      assert.ok(id, JSON.stringify(minted));
      await eventually(async () => (await call('tasks/get', { taskId: id })).result?.status === 'completed', { timeoutMs: 30_000, everyMs: 250 });
      const r = await call('tasks/result', { taskId: id });
      assert.equal(r.error?.code, -32042, JSON.stringify(r));
      assert.match(r.error.message, new RegExp(`the decision hook denied the result of task ${id} on solo: the result names a secret`));
      const d = hook.of('result').at(-1);
      assert.equal(d.method, 'tasks/result');
      assert.equal(d.name, id);
      assert.match(JSON.stringify(d.result), /secret plans/);
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  test('an upstream\'s request the hook denies never reaches the client and is answered -32042 upstream', async () => {
    let failed;
    try {
      const r = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
      failed = r.isError ? JSON.stringify(r.content) : undefined;
    } catch (err) {
      failed = err.message;
    }
    assert.ok(failed, 'the tool could not sample');
    assert.equal(sampled, 0, 'the client was never asked');
    const d = hook.of('serverRequest').at(-1);
    assert.equal(d.method, 'sampling/createMessage');
    assert.equal(d.upstream, 'solo');
    assert.match(JSON.stringify(d.arguments.messages), /hello/);
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'sampling/createMessage'));
    const e = events.find((x) => x.method === 'sampling/createMessage');
    assert.equal(e.outcome, 'denied');
    assert.equal(e.upstream, 'solo');
    assert.equal(e.hook.verdict, 'deny');
    assert.match(e.error, /the decision hook denied sampling\/createMessage from upstream solo to this client: no sampling for this upstream/);
  });
});

describe('policy.decisionHook across a fleet of two', { timeout: 90_000 }, () => {
  const RESOURCE = 'https://gate.example/mcp';
  let everything;
  let idp;
  let redis;
  let hook;
  const gates = [];
  const clients = [];

  before(async () => {
    [everything, idp, redis] = await Promise.all([startEverything(), startIdp(), startRedis()]);
    hook = await startDecisionService((d) =>
      d.principal?.subject === 'bob' ? { decision: 'deny', reason: `${d.principal.subject} is on leave` } : { decision: 'allow' },
    );
    const config = {
      upstreams: [{ id: 'solo', url: everything.url }],
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      policy: policyWith('solo', { url: hook.url, bearerSecretRef: 'DECISION_HOOK_TOKEN' }),
      server: { redisUrl: `${redis.url}/5` },
    };
    gates.push(
      ...(await Promise.all([0, 1].map(() => startGate({ config, env: { DECISION_HOOK_TOKEN: 'hook-secret-1' } })))),
    );
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(gates.map((g) => g.stop()));
    await Promise.all([redis?.stop(), everything?.stop(), idp?.stop(), hook?.stop()]);
  });

  const as = async (gate, sub) => {
    const token = await idp.mint({ sub, aud: RESOURCE });
    const c = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    clients.push(c);
    return c;
  };

  test('both instances ask the hook for each principal, with its bearer token', async () => {
    for (const [i, sub] of [[0, 'alice'], [1, 'bob'], [1, 'alice'], [0, 'bob']]) {
      const c = await as(gates[i], sub);
      if (sub === 'alice') {
        assert.match((await echo(c, `from ${i}`)).content[0].text, new RegExp(`from ${i}`));
      } else {
        const err = await expectMcpError(() => echo(c, `from ${i}`));
        assert.equal(err.code, -32042);
        assert.match(err.message, /the decision hook denied tools\/call of echo on solo for bob: bob is on leave/);
      }
    }
    const calls = hook.asked.filter((a) => a.description.stage === 'call');
    assert.deepEqual(calls.map((a) => a.description.principal.subject), ['alice', 'bob', 'alice', 'bob']);
    assert.ok(calls.every((a) => a.headers.authorization === 'Bearer hook-secret-1'));
    assert.ok(calls.every((a) => a.description.principal.issuer === idp.issuer));
    for (const g of gates) {
      const m = await metricsOf(g);
      assert.equal(metric(m, 'gate_decision_hook_decisions_total', { stage: 'call', decision: 'deny', source: 'hook' }), 1);
    }
  });
});

describe('policy.decisionHook refused where it is wrong', { timeout: 30_000 }, () => {
  let dir;
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-hook-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  // --validate reads the document; secrets are the environment's, checked when gate starts.
  const check = async (decisionHook, mode = '--validate') => {
    const file = path.join(dir, 'gate.json');
    writeFileSync(file, JSON.stringify({ upstreams: [{ id: 'solo', url: 'http://127.0.0.1:9/mcp' }], policy: policyWith('solo', decisionHook) }));
    return runGate(mode === '--validate' ? ['--config', file, '--validate'] : ['--config', file, '--port', '0']);
  };

  test('a hook off loopback over http, a bad stage and an unset token are each refused at their pointer', async () => {
    let r = await check({ url: 'http://opa.example/decide' });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /\/policy\/decisionHook\/url: .*https/);
    r = await check({ url: 'http://127.0.0.1:1/decide', stages: ['call', 'egress'] });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /\/policy\/decisionHook\/stages\/1: "egress" is not one of/);
    r = await check({ url: 'http://127.0.0.1:1/decide', bearerSecretRef: 'GATE_TEST_UNSET_HOOK_TOKEN' }, 'start');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /\/policy\/decisionHook\/bearerSecretRef: the environment variable GATE_TEST_UNSET_HOOK_TOKEN is not set/);
  });
});

describe('policy.decisionHook holes an attack found, closed', { timeout: 90_000 }, () => {
  let modernUp;
  let v2;
  let raw;
  let hook;
  let gate;

  before(async () => {
    [modernUp, v2] = await Promise.all([startModernServer(), startTaskServerV2()]);
    raw = await startRawUpstream({ result: '{"content":[{"type":"text","text":"SECRET-123"}],"task":{"taskId":"decoy","status":"working"}}' });
    hook = await startDecisionService((d) => {
      if (d.stage === 'serverRequest') return { decision: 'deny', reason: 'no server requests' };
      if (d.stage === 'result') return { decision: 'deny', reason: 'every result withheld' };
      return { decision: 'allow' };
    });
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'm', url: modernUp.url, namespace: 'm', protocol: '2026-07-28' },
          { id: 't', url: v2.url, namespace: 't', protocol: '2026-07-28' },
          { id: 'raw', url: raw.url, namespace: 'raw' },
        ],
        policy: { defaultDecision: 'allow', rules: [], decisionHook: { url: hook.url, stages: ['call', 'result', 'serverRequest'], include: ['result'] } },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([modernUp?.stop(), v2?.stop(), raw?.stop(), hook?.stop()]);
  });

  test('a 2026-07-28 upstream\'s input request (no id of its own) is asked about at serverRequest', async () => {
    let sampled = 0;
    const client = await connectClient(gate.url, {
      capabilities: FULL_CLIENT_CAPABILITIES,
      onSampling: () => {
        sampled += 1;
      },
    });
    try {
      await client.callTool({ name: 'm__sample', arguments: { prompt: 'hi' } }).catch(() => {});
      assert.equal(sampled, 0, 'the client was never asked');
      assert.equal(hook.of('serverRequest').at(-1)?.method, 'sampling/createMessage');
    } finally {
      await client.close().catch(() => {});
    }
  });

  test('a 2026-07-28 client never gets an input request the hook denies (input_required passed on)', async () => {
    const q = modernRequest('tools/call', { name: 'm__sample', arguments: { prompt: 'passed on' } }, { capabilities: { sampling: {} } });
    const r = await post(gate.url, q.body, q.headers);
    assert.equal(r.json?.error?.code, -31042, r.text);
    assert.match(r.json.error.message, /the decision hook denied sampling\/createMessage from upstream m to this client: no server requests/);
    assert.doesNotMatch(r.text, /passed on|inputRequests/, 'the question itself never reached the client');
    const asked = hook.of('serverRequest').at(-1);
    assert.equal(asked.method, 'sampling/createMessage');
    assert.equal(asked.upstream, 'm');
  });

  test('a 2026-07-28 task\'s result inline in tasks/get is judged as a result', async () => {
    const caps = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
    const q = modernRequest('tools/call', { name: 't__report', arguments: { topic: 'salaries' } }, { capabilities: caps });
    const r = await post(gate.url, q.body, q.headers);
    const taskId = r.json?.result?.taskId;
    assert.ok(taskId, r.text);
    let last;
    await eventually(async () => {
      const g = modernRequest('tasks/get', { taskId }, { id: 10, capabilities: caps });
      last = (await post(gate.url, g.body, g.headers)).json;
      return last.error || last.result?.status === 'completed';
    }, { what: 'the task finished or was withheld' });
    assert.equal(last.error?.code, -31042, JSON.stringify(last));
    assert.doesNotMatch(JSON.stringify(last), /report on salaries/i);
    assert.equal(hook.of('result').at(-1).method, 'tasks/get');
  });

  test('an answer an upstream dresses as a task, unasked, is judged as the result it is', async () => {
    const client = await connectClient(gate.url);
    try {
      const err = await expectMcpError(() => client.callTool({ name: 'raw__echo', arguments: {} }));
      assert.equal(err.code, -32042, err.message);
      assert.doesNotMatch(err.message, /SECRET-123/);
      assert.match(JSON.stringify(hook.of('result').at(-1).result), /SECRET-123/);
    } finally {
      await client.close().catch(() => {});
    }
  });

  test('a hook\'s 1xx answer is a failure, and the answer after it never serves the next question', async () => {
    let late;
    const lateSent = new Promise((r) => {
      late = r;
    });
    let questions = 0;
    const answer = (d) => {
      const b = JSON.stringify({ decision: d });
      return `HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${b.length}\r\n\r\n${b}`;
    };
    // The first question gets a 103, then (as a misbehaving hook might) an allow after it;
    // every later question is denied.
    const server = net.createServer((sock) => {
      // gate closes the connection after the 103; the late answer may then meet a reset.
      sock.on('error', () => {});
      sock.on('data', () => {
        questions += 1;
        if (questions > 1) return sock.write(answer('deny'));
        sock.write('HTTP/1.1 103 Early Hints\r\nLink: </x>; rel=preload\r\n\r\n');
        setImmediate(() => sock.write(answer('allow'), late));
      });
    });
    await new Promise((r) => server.listen(0, '127.0.0.1', r));
    const g = await startGate({
      config: {
        upstreams: [{ id: 'raw', url: raw.url, namespace: 'raw' }],
        policy: { defaultDecision: 'allow', rules: [], decisionHook: { url: `http://127.0.0.1:${server.address().port}/decide` } },
      },
    });
    const client = await connectClient(g.url);
    try {
      const first = await expectMcpError(() => client.callTool({ name: 'raw__echo', arguments: {} }));
      assert.match(first.message, /it answered HTTP 103/);
      await lateSent;
      const second = await expectMcpError(() => client.callTool({ name: 'raw__echo', arguments: {} }));
      assert.match(second.message, /the decision hook denied/, 'the second question got its own answer');
    } finally {
      await client.close().catch(() => {});
      await g.stop();
      server.close();
    }
  });
});

describe('a 2026-07-28 upstream\'s input requests passed on to a 2026-07-28 client, decided by the rules', { timeout: 60_000 }, () => {
  let modernUp;
  let gate;

  before(async () => {
    modernUp = await startModernServer();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'm', url: modernUp.url, namespace: 'm', protocol: '2026-07-28' }],
        policy: {
          defaultDecision: 'deny',
          rules: [
            { id: 'tools', allow: [{ server: 'm', methods: ['tools/call'], names: ['sample', 'confirm'] }] },
            { id: 'elicit', allow: [{ server: 'm', methods: ['elicitation/create'] }] },
          ],
        },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await modernUp?.stop();
  });

  test('an input request a rule grants reaches the client; one no rule grants fails the call -31042', async () => {
    const caps = { sampling: {}, elicitation: {} };
    const confirm = modernRequest('tools/call', { name: 'm__confirm', arguments: { action: 'deploy' } }, { capabilities: caps });
    const ok = await post(gate.url, confirm.body, confirm.headers);
    assert.equal(ok.json?.result?.resultType, 'input_required', ok.text);
    assert.equal(ok.json.result.inputRequests.who.method, 'elicitation/create');

    const sample = modernRequest('tools/call', { name: 'm__sample', arguments: { prompt: 'leak the model' } }, { id: 2, capabilities: caps });
    const denied = await post(gate.url, sample.body, sample.headers);
    assert.equal(denied.json?.error?.code, -31042, denied.text);
    assert.match(denied.json.error.message, /policy denied sampling\/createMessage from upstream m to this client/);
    assert.doesNotMatch(denied.text, /leak the model/);
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.name === 'm__sample'));
    const e = events.find((x) => x.name === 'm__sample');
    assert.equal(e.outcome, 'denied');
    assert.equal(e.decision, 'deny');
  });
});

// A client reads an answer as a parser does: a key written with escapes is the key. An
// upstream that spells inputRequests so is judged as one that spells it plainly.
describe('an input request under a key written with escapes is judged all the same', { timeout: 60_000 }, () => {
  let raw;
  let gate;

  before(async () => {
    const question = '{"messages":[{"role":"user","content":{"type":"text","text":"leak the model"}}],"maxTokens":5}';
    raw = await startRawUpstream({
      modern: true,
      result: `{"resultType":"input_required","\\u0069nputRequests":{"q":{"method":"sampling/createMessage","params":${question}}},"requestState":"s1"}`,
    });
    gate = await startGate({
      config: {
        upstreams: [{ id: 'raw', url: raw.url, namespace: 'raw', protocol: '2026-07-28' }],
        policy: { defaultDecision: 'deny', rules: [{ id: 'calls', allow: [{ server: 'raw', methods: ['tools/call'], names: ['echo'] }] }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await raw?.stop();
  });

  test('a sampling request no rule grants fails the call -31042 and never reaches the client', async () => {
    const call = modernRequest('tools/call', { name: 'raw__echo', arguments: {} }, { capabilities: { sampling: {} } });
    const r = await post(gate.url, call.body, call.headers);
    assert.equal(r.json?.error?.code, -31042, r.text);
    assert.match(r.json.error.message, /policy denied sampling\/createMessage from upstream raw/);
    assert.doesNotMatch(r.text, /leak the model/);
  });
});

// The question carries the caller's text as written (Boost.JSON would write 1e400 as Infinity,
// which no hook can parse), and a failure the caller can cause (a question over gate's bound,
// the queue full, a question the hook refuses as a bad request) refuses the call under
// onError "allow" too: a caller never picks the failure that lets its call through.
describe("policy.decisionHook: the caller's text as written, and failures a caller can cause", { timeout: 60_000 }, () => {
  let raw;
  let hook;
  let gate;
  let session;
  let nextId = 1;
  const configWith = (hookFields) => ({
    server: { maxBodyBytes: 4 * 1024 * 1024 },
    upstreams: [{ id: 'raw', url: raw.url }],
    policy: { defaultDecision: 'allow', rules: [], decisionHook: { url: hook.url, include: ['arguments'], onError: 'allow', maxConcurrent: 1, ...hookFields } },
    audit: { sinks: [{ type: 'stdout' }] },
  });
  /** tools/call of echo with `args` (a JSON text, sent as written); resolves the answer. */
  const call = async (args) => {
    const r = await post(gate.url, `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"echo","arguments":${args}}}`, session.headers);
    assert.equal(r.status, 200, r.text);
    return r.json;
  };
  const calledUpstream = (marker) => raw.bodies.some((b) => b.includes(marker));
  const failedOpen = async () => metric(await metricsOf(gate), 'gate_decision_hook_failed_open_total', { stage: 'call' }) ?? 0;

  before(async () => {
    raw = await startRawUpstream({ result: '{"content":[{"type":"text","text":"done"}]}' });
    hook = await startDecisionService((d) => {
      if (d.unparsable !== undefined) return { status: 400, body: '{"error":"the question is not JSON"}' };
      if (d.arguments?.refuse) return { status: 422, body: '{"error":"cannot judge that"}' };
      if (d.arguments?.crash) return { status: 500, body: '{"error":"the hook failed"}' };
      if (d.arguments?.slow) return { hold: true };
      if (d.arguments?.huge) return { status: 200, body: `{"decision":"allow","reason":"${'x'.repeat(70 * 1024)}"}` };
      if (d.arguments && 'n' in d.arguments) return { decision: 'deny', reason: 'numbers are not for echo' };
      return { decision: 'allow' };
    });
    gate = await startGate({ config: configWith({ timeoutMs: 30_000 }) });
    session = await openRawSession(gate.url);
  });

  after(async () => {
    await closeRawSession(gate?.url, session);
    await gate?.stop();
    await Promise.all([raw?.stop(), hook?.stop()]);
  });

  test('numbers reach the hook as the caller wrote them, and its denial holds under onError allow', async () => {
    const args = '{"n":1e400,"big":123456789012345678901234567890,"half":0.50,"marker":"numbers-1"}';
    const answer = await call(args);
    assert.equal(answer.error?.code, -32042, JSON.stringify(answer));
    assert.match(answer.error.message, /numbers are not for echo/);
    const asked = hook.asked.at(-1);
    assert.equal(asked.description.unparsable, undefined, asked.text.slice(0, 300));
    assert.ok(asked.text.includes(`"arguments":${args}`), asked.text);
    assert.ok(!calledUpstream('numbers-1'), 'the upstream was never called');
  });

  test("the hook reads the call's own arguments, not a same-named member nested in _meta before them", async () => {
    // Beyond 2^53 both numbers parse equal: only their spelling tells the hook what the upstream would get.
    const decoy = '{"n":18446744073709551616,"marker":"decoy-1"}';
    const args = '{"n":18446744073709551617,"marker":"decoy-1"}';
    const r = await post(gate.url, `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"_meta":{"arguments":${decoy}},"name":"echo","arguments":${args}}}`, session.headers);
    assert.equal(r.json.error?.code, -32042, r.text);
    const asked = hook.asked.at(-1);
    assert.ok(asked.text.includes(`"arguments":${args}`), asked.text);
    assert.ok(!asked.text.includes('551616'), asked.text);
    assert.ok(!calledUpstream('decoy-1'), 'the upstream was never called');
  });

  test("a question over gate's bound refuses the call, whatever onError says", async () => {
    const before = await failedOpen();
    const answer = await call(`{"blob":"${'a'.repeat(1_100_000)}","marker":"too-large-1"}`);
    assert.equal(answer.error?.code, -32042, JSON.stringify(answer).slice(0, 300));
    assert.match(answer.error.message, /could not decide tools\/call of echo on raw \(the question would be \d+ bytes, over gate's bound of 1 MiB/);
    assert.ok(!calledUpstream('too-large-1'));
    assert.equal(await failedOpen(), before, 'not counted as let through');
    const events = await gate.waitForAudit((ev) => ev.some((e) => /1 MiB/.test(e.hook?.error ?? '')));
    assert.equal(events.find((e) => /1 MiB/.test(e.hook?.error ?? '')).outcome, 'denied');
  });

  test('a question the hook refuses as a bad request (4xx) refuses the call; its own failure (5xx) is for onError', async () => {
    const refused = await call('{"refuse":true,"marker":"refused-1"}');
    assert.equal(refused.error?.code, -32042, JSON.stringify(refused));
    assert.match(refused.error.message, /it answered HTTP 422/);
    assert.ok(!calledUpstream('refused-1'));
    const before = await failedOpen();
    const through = await call('{"crash":true,"marker":"crash-1"}');
    assert.equal(through.result?.content?.[0]?.text, 'done', JSON.stringify(through));
    assert.ok(calledUpstream('crash-1'));
    assert.equal(await failedOpen(), before + 1);
  });

  test("an answer over 64 KiB is told without the hook's address", async () => {
    await gate.reloaded(configWith({ timeoutMs: 30_000, onError: 'deny' }));
    try {
      const answer = await call('{"huge":true,"marker":"huge-1"}');
      assert.equal(answer.error?.code, -32042, JSON.stringify(answer));
      assert.match(answer.error.message, /could not decide tools\/call of echo on raw \(its answer was more than 65536 bytes\)/);
      assert.doesNotMatch(answer.error.message, /127\.0\.0\.1|\/decide/, "the hook's address is not the client's to see");
      const events = await gate.waitForAudit((ev) => ev.some((e) => /65536/.test(e.hook?.error ?? '')));
      assert.match(events.find((e) => /65536/.test(e.hook?.error ?? '')).hook.error, /127\.0\.0\.1/, 'the audit names the hook');
    } finally {
      await gate.reloaded(configWith({ timeoutMs: 30_000 }));
    }
  });

  test('a call that finds the queue full is refused, whatever onError says', async () => {
    // The held question keeps the one turn for as long as the hook holds it (30 s), however
    // slow the reload below is under a sanitizer.
    const first = call('{"slow":true,"marker":"slow-1"}');
    await eventually(() => hook.asked.some((a) => a.description.arguments?.marker === 'slow-1'), { what: 'the first question is out' });
    // The next question waits 300 ms for the turn the held one keeps (maxConcurrent 1).
    await gate.reloaded(configWith({ timeoutMs: 300 }));
    const before = await failedOpen();
    const queued = await call('{"marker":"queued-1"}');
    assert.equal(queued.error?.code, -32042, JSON.stringify(queued));
    assert.match(queued.error.message, /too many decisions were waiting for it/);
    assert.ok(!calledUpstream('queued-1'));
    assert.equal(await failedOpen(), before);
    hook.release({ decision: 'allow' });
    assert.equal((await first).result?.content?.[0]?.text, 'done');
    await gate.reloaded(configWith({ timeoutMs: 30_000 }));
  });
});
