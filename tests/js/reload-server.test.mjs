// The server section on reload: everything but server.budget and server.redisUrl changes live
// (rate limits, host allowlist, body cap, MCP path, introspection, the session table's bounds),
// applied to requests read from then on; a document that changes the budget is refused
// whole, naming why, and the running one keeps serving.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { get, initializeRequest, metric, rawRequest, startEverything, startGate } from './lib/index.mjs';

describe('the server section on reload', { timeout: 120_000 }, () => {
  let everything;
  before(async () => {
    everything = await startEverything();
  });
  after(async () => {
    await everything?.stop();
  });

  test('rate limits, allowed hosts, body cap, MCP path, introspection and session shares change live; the budget does not', async () => {
    const upstreams = [{ id: 'ev', url: everything.url, namespace: 'ev' }];
    const gate = await startGate({ config: { upstreams, server: { rateLimit: { requestsPerMinute: 1000 } } } });
    const init = (path, host = '127.0.0.1') =>
      rawRequest(`${gate.base}${path}`, {
        headers: { host, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify(initializeRequest()),
      });
    try {
      assert.equal((await init('/mcp')).status, 200);
      assert.equal((await init('/mcp', 'gate.internal')).status, 403);
      assert.equal((await get(`${gate.base}/api/auth-hint`)).status, 404);

      await gate.reloaded({
        upstreams,
        server: {
          mcpPath: '/v2/mcp',
          allowedHosts: ['127.0.0.1', 'gate.internal'],
          maxBodyBytes: 2000,
          rateLimit: { requestsPerMinute: 3 },
          introspection: { enabled: true },
          sessions: { max: 10, perPrincipal: 1 },
        },
      });
      assert.equal((await init('/mcp')).status, 404, 'the old path is gone');
      assert.equal((await init('/v2/mcp', 'gate.internal')).status, 200, 'the new host and path');
      assert.equal((await get(`${gate.base}/api/auth-hint`)).status, 200, 'introspection on');
      const big = await rawRequest(`${gate.base}/v2/mcp`, {
        headers: { host: '127.0.0.1', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ ...initializeRequest(), pad: 'x'.repeat(3000) }),
      });
      assert.equal(big.status, 413, 'the new body cap');
      // Three requests a minute now: the initialize above spent one (the 404 and the 413 were
      // refused before the limit), two more pass, the next is refused.
      assert.equal((await init('/v2/mcp')).status, 200);
      assert.equal((await init('/v2/mcp')).status, 200);
      const limited = await init('/v2/mcp');
      assert.equal(limited.status, 429, limited.text);
      // One session per caller now: each of the three initializes since the reload ended this
      // address's previous session (the one opened before it included).
      const metrics = (await get(`${gate.base}/metrics`)).text;
      assert.equal(metric(metrics, 'gate_session_evictions_total', { reason: 'principal_share' }), 3);
      assert.equal(metric(metrics, 'gate_downstream_sessions', {}), 1);

      const refused = await gate.reloaded({ upstreams, server: { mcpPath: '/v2/mcp', budget: { period: 'day', upstreamCalls: 10 } } }, { expect: 'rejected' });
      assert.match(refused, /reload rejected \(SIGHUP\): server.budget cannot change without a restart/);
      // A document that fails validation is refused too, and never taken for applied.
      await assert.rejects(gate.reloaded({ upstreams: [{ id: 'ev', url: 'not a url' }] }), /reload rejected, expected applied;[^]*\/upstreams\/0\/url/);
      assert.equal((await get(`${gate.base}/api/auth-hint`)).status, 200, 'the running document keeps serving');
    } finally {
      await gate.stop();
    }
  });
});
