// upstreams[].toolLimits against the real binary and a real SDK server (server-everything): the
// calls of a matching tool past its allowance are refused -32040 naming the upstream, the tool
// and the limit, never reaching the upstream, while another tool of the same upstream still
// works; counted and audited as rate_limited.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, expectMcpError, get, startEverything, startGate } from './lib/index.mjs';
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
});
