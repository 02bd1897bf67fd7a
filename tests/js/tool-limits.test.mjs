// upstreams[].toolLimits against the real binary and a real SDK server (server-everything): the
// calls of a matching tool past its allowance are refused -32040 naming the upstream, the tool
// and the limit, never reaching the upstream, while another tool of the same upstream still
// works; counted and audited as rate_limited. Each principal's own allowance, and a fleet of two
// instances over a real Redis sharing the window.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, expectMcpError, get, startEverything, startGate, startIdp, startRedis } from './lib/index.mjs';
import { metric as metricOr } from './lib/metrics.mjs';

const metric = (text, name, labels) => metricOr(text, name, labels, undefined);

describe('upstreams[].toolLimits', { timeout: 60_000 }, () => {
  let everything;
  let gate;
  let client;

  before(async () => {
    everything = await startEverything();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url, toolLimits: [{ names: ['ech*'], requestsPerMinute: 2 }] }],
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await everything?.stop();
  });

  test('a tool past its everyone limit is refused -32040 while another tool still works', async () => {
    for (let i = 0; i < 2; i++) await client.callTool({ name: 'echo', arguments: { message: `n${i}` } });
    const err = await expectMcpError(() => client.callTool({ name: 'echo', arguments: { message: 'x' } }));
    assert.equal(err.code, -32040, err.message);
    assert.match(err.message, /upstream solo rate limit exceeded: rate limit of 2 calls per minute of tool echo \(toolLimits\/0\) reached for everyone; retry in \d+ s/);
    assert.equal(err.data.tool, 'echo');
    assert.equal(err.data.limit, 'everyone');
    assert.ok(err.data.retryAfterMs > 0 && err.data.retryAfterMs <= 60_000, JSON.stringify(err.data));
    const sum = await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    assert.ok(!sum.isError, JSON.stringify(sum));
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_tool_limit_refusals_total', { upstream: 'solo', limit: 'everyone' }), 1);
    assert.equal(metric(m, 'gate_upstream_requests_total', { upstream: 'solo', outcome: 'rate_limited' }), 1);
    const events = await gate.waitForAudit((ev) => ev.filter((e) => e.method === 'tools/call').length >= 4);
    const calls = events.filter((e) => e.method === 'tools/call');
    assert.deepEqual(calls.map((e) => e.outcome), ['ok', 'ok', 'rate_limited', 'ok']);
  });

  test('a reload that changes the limits applies them at once; one that removes them lifts them', async () => {
    const reload = (toolLimits) => gate.reloaded({ upstreams: [{ id: 'solo', url: everything.url, toolLimits }], audit: { sinks: [{ type: 'stdout' }] } });
    await reload([{ names: ['echo', 'get-sum'], requestsPerMinute: 1 }]);
    await client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } });
    const err = await expectMcpError(() => client.callTool({ name: 'echo', arguments: { message: 'x' } }));
    assert.equal(err.code, -32040, err.message);
    assert.match(err.message, /rate limit of 1 call per minute of tool echo \(toolLimits\/0\)/, 'the new entry counts both tools');
    await reload(undefined);
    for (let i = 0; i < 4; i++) {
      const r = await client.callTool({ name: 'echo', arguments: { message: `free ${i}` } });
      assert.ok(!r.isError, JSON.stringify(r));
    }
  });
});

describe('upstreams[].toolLimits per principal and across a fleet', { timeout: 120_000 }, () => {
  const RESOURCE = 'https://gate.example/mcp';
  let everything;
  let idp;
  let redis;
  const started = [];
  const clients = [];

  before(async () => {
    [everything, idp, redis] = await Promise.all([startEverything(), startIdp(), startRedis()]);
  });

  after(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await Promise.all(started.map((g) => g.stop()));
    await Promise.all([redis?.stop(), everything?.stop(), idp?.stop()]);
  });

  const config = (toolLimits) => ({
    upstreams: [{ id: 'solo', url: everything.url, toolLimits }],
    auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
  });
  const as = async (gate, sub) => {
    const token = await idp.mint({ sub, aud: RESOURCE });
    const c = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    clients.push(c);
    return c;
  };
  const echo = (c) => c.callTool({ name: 'echo', arguments: { message: 'x' } });

  test('each principal gets its own allowance', async () => {
    const gate = await startGate({ config: config([{ names: ['echo'], perPrincipalPerMinute: 2 }]) });
    started.push(gate);
    const alice = await as(gate, 'alice');
    const bob = await as(gate, 'bob');
    await echo(alice);
    await echo(alice);
    const err = await expectMcpError(() => echo(alice));
    assert.equal(err.code, -32040, err.message);
    assert.match(err.message, /tool echo \(toolLimits\/0\) reached for alice/);
    assert.equal(err.data.limit, 'principal');
    await echo(bob);
    await echo(bob);
    assert.equal((await expectMcpError(() => echo(bob))).code, -32040);
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_tool_limit_refusals_total', { upstream: 'solo', limit: 'principal' }), 2);
  });

  test('two instances over one Redis share the window', async () => {
    const url = `${redis.url}/7`;
    const cfg = config([{ names: ['echo'], requestsPerMinute: 3 }]);
    const gates = await Promise.all([0, 1].map(() => startGate({ config: { ...cfg, server: { redisUrl: url } } })));
    started.push(...gates);
    const a = await as(gates[0], 'alice');
    const b = await as(gates[1], 'bob');
    await echo(a);
    await echo(b);
    await echo(a);
    const err = await expectMcpError(() => echo(b));
    assert.equal(err.code, -32040, err.message);
    assert.equal(err.data.limit, 'everyone');
    assert.equal((await expectMcpError(() => echo(a))).code, -32040);
  });
});
