// Every configuration field gate accepts does what it says, against the real binary and real
// MCP servers (tests/unit/config_support_test.cpp names these tests field by field); every
// field it does not enforce yet stops it at start instead of being ignored.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  connectClient,
  expectMcpError,
  get,
  initializeRequest,
  post,
  rawRequest,
  runGate,
  startEverything,
  startGate,
  startRecordingProxy,
  startSilentServer,
} from './lib/index.mjs';

const echo = (client, name, message = 'x') => client.callTool({ name, arguments: { message } });

describe('configuration fields, end to end', { timeout: 180_000 }, () => {
  let everything;
  before(async () => {
    everything = await startEverything();
  });
  after(async () => {
    await everything?.stop();
  });

  test('replicas: new sessions alternate between the urls', async () => {
    const a = await startRecordingProxy(everything.url);
    const b = await startRecordingProxy(everything.url);
    const gate = await startGate({ config: { upstreams: [{ id: 'r', urls: [a.url, b.url] }] } });
    const clients = [];
    try {
      for (let i = 0; i < 4; i++) {
        const c = await connectClient(gate.url);
        clients.push(c);
        assert.deepEqual((await echo(c, 'echo', `n${i}`)).content, [{ type: 'text', text: `Echo: n${i}` }]);
      }
      // The root session and four bridged sessions, handed out in turn.
      const inits = [a.count('initialize'), b.count('initialize')];
      assert.ok(inits[0] + inits[1] >= 5, `initializes ${inits}`);
      assert.ok(inits[0] >= 2 && inits[1] >= 2, `both replicas take new sessions: ${inits}`);

      // A dead replica is skipped: new sessions land on the live one, no client sees an error.
      await b.stop();
      const before = a.count('initialize');
      for (let i = 0; i < 3; i++) {
        const c = await connectClient(gate.url);
        clients.push(c);
        assert.deepEqual((await echo(c, 'echo', `m${i}`)).content, [{ type: 'text', text: `Echo: m${i}` }]);
      }
      assert.equal(a.count('initialize') - before, 3, 'every new session landed on the live replica');
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await gate.stop();
      await a.stop();
      await b.stop();
    }
  });

  test('owner and labels appear in /health', async () => {
    const gate = await startGate({
      config: {
        upstreams: [
          {
            id: 'owned',
            url: everything.url,
            owner: { org: 'acme', team: 'tools', contact: 'tools@acme.example' },
            labels: { tier: 'gold', region: 'eu' },
          },
        ],
      },
    });
    try {
      const r = await get(`${gate.base}/health`);
      assert.equal(r.status, 200, r.text);
      const [u] = JSON.parse(r.text).upstreams;
      assert.equal(u.id, 'owned');
      assert.deepEqual(u.owner, { org: 'acme', team: 'tools', contact: 'tools@acme.example' });
      assert.deepEqual(u.labels, { tier: 'gold', region: 'eu' });
    } finally {
      await gate.stop();
    }
  });

  test('an upstream auth of strategy none sends no credential', async () => {
    const proxy = await startRecordingProxy(everything.url);
    const gate = await startGate({ config: { upstreams: [{ id: 'plain', url: proxy.url, auth: { strategy: 'none' } }] } });
    const client = await connectClient(gate.url, {
      requestInit: { headers: { authorization: 'Bearer client-secret-token' } },
    });
    try {
      await echo(client, 'echo');
      assert.ok(proxy.seen.length >= 2, 'the upstream was called');
      for (const r of proxy.seen) assert.equal(r.headers.authorization, undefined, JSON.stringify(r.headers));
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
      await proxy.stop();
    }
  });

  test('timeouts.connectMs bounds a connect that never completes', async () => {
    const silent = await startSilentServer();
    const gate = await startGate({
      config: {
        upstreams: [
          { id: 'live', url: everything.url, namespace: 'a' },
          { id: 'silent', url: `https://127.0.0.1:${silent.port}/mcp`, namespace: 's', timeouts: { connectMs: 300 } },
        ],
      },
    });
    const client = await connectClient(gate.url);
    try {
      const err = await expectMcpError(() => echo(client, 's__echo'));
      assert.equal(err.code, -32041, err.message);
      assert.match(err.message, /silent/);
      assert.match(err.message, /connect timeout after 300 ms/);
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
      await silent.close();
    }
  });

  test('cacheTtlMs: a list is served from the cache while fresh and fetched again once expired', async () => {
    const kept = await startRecordingProxy(everything.url);
    const expired = await startRecordingProxy(everything.url);
    const gate = await startGate({
      config: {
        upstreams: [
          { id: 'kept', url: kept.url, namespace: 'k', cacheTtlMs: 600000 },
          { id: 'expired', url: expired.url, namespace: 'e', cacheTtlMs: 0 },
        ],
      },
    });
    const client = await connectClient(gate.url);
    try {
      for (let i = 0; i < 2; i++) await client.listTools({});
      assert.equal(kept.count('tools/list'), 1, 'fresh: the second list came from the cache');
      assert.equal(expired.count('tools/list'), 2, 'expired at once: fetched for each list');
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
      await kept.stop();
      await expired.stop();
    }
  });

  test('auth.mode disabled serves callers anonymously', async () => {
    const gate = await startGate({
      config: { upstreams: [{ id: 'solo', url: everything.url }], auth: { mode: 'disabled' }, audit: { sinks: [{ type: 'stdout' }] } },
    });
    const client = await connectClient(gate.url);
    try {
      await echo(client, 'echo');
      const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tools/call'));
      const call = events.find((e) => e.method === 'tools/call');
      assert.equal(call.outcome, 'ok');
      assert.equal(call.principal, undefined);
      assert.equal(call.issuer, undefined);
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
    }
  });

  test('server.mcpPath moves the MCP endpoint', async () => {
    const gate = await startGate({ config: { upstreams: [{ id: 'solo', url: everything.url }], server: { mcpPath: '/v1/mcp' } } });
    try {
      assert.equal(gate.url, `${gate.base}/v1/mcp`);
      const client = await connectClient(gate.url);
      await echo(client, 'echo');
      await client.close();
      const old = await post(`${gate.base}/mcp`, initializeRequest());
      assert.equal(old.status, 404);
    } finally {
      await gate.stop();
    }
  });

  test('server.allowedHosts replaces the localhost set', async () => {
    const gate = await startGate({ config: { upstreams: [{ id: 'solo', url: everything.url }], server: { allowedHosts: ['gate.example'] } } });
    try {
      const body = JSON.stringify(initializeRequest());
      const named = await rawRequest(gate.url, { headers: { host: `gate.example:${gate.port}` }, body });
      assert.equal(named.status, 200, named.text);
      for (const host of [`localhost:${gate.port}`, `127.0.0.1:${gate.port}`]) {
        const r = await rawRequest(gate.url, { headers: { host }, body });
        assert.equal(r.status, 403, `${host}: ${r.text}`);
      }
    } finally {
      await gate.stop();
    }
  });

  test('server.maxBodyBytes sets the body cap', async () => {
    const gate = await startGate({ config: { upstreams: [{ id: 'solo', url: everything.url }], server: { maxBodyBytes: 4096 } } });
    try {
      const padded = (size) => {
        const msg = initializeRequest();
        msg.params.clientInfo.padding = '';
        const base = JSON.stringify(msg).length;
        msg.params.clientInfo.padding = 'x'.repeat(size - base);
        return JSON.stringify(msg);
      };
      const small = await rawRequest(gate.url, { body: padded(4096) });
      assert.equal(small.status, 200, small.text);
      const big = await rawRequest(gate.url, { body: padded(4097) });
      assert.equal(big.status, 413, big.text);
    } finally {
      await gate.stop();
    }
  });

  test('introspection and console disabled answer 404', async () => {
    const gate = await startGate({
      config: { upstreams: [{ id: 'solo', url: everything.url }], server: { introspection: { enabled: false }, console: { enabled: false } } },
    });
    try {
      for (const p of ['/api/federation', '/api/auth-hint', '/console/']) {
        const r = await get(`${gate.base}${p}`);
        assert.equal(r.status, 404, `${p}: ${r.text}`);
      }
    } finally {
      await gate.stop();
    }
  });

  test('routing.namespaceSeparator joins namespace and name', async () => {
    const gate = await startGate({
      config: {
        upstreams: [
          { id: 'one', url: everything.url, namespace: 'a' },
          { id: 'two', url: everything.url, namespace: 'b' },
        ],
        routing: { namespaceSeparator: '::' },
      },
    });
    const client = await connectClient(gate.url);
    try {
      const names = (await client.listTools({})).tools.map((t) => t.name);
      assert.ok(names.includes('a::echo') && names.includes('b::echo'), names.join(','));
      assert.ok(names.every((n) => n.startsWith('a::') || n.startsWith('b::')), names.join(','));
      assert.deepEqual((await echo(client, 'b::echo', 'sep')).content, [{ type: 'text', text: 'Echo: sep' }]);
      const err = await expectMcpError(() => echo(client, 'b__echo'));
      assert.equal(err.code, -32043, err.message);
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
    }
  });

  test('an empty tenants list is accepted and changes nothing', async () => {
    const gate = await startGate({ config: { upstreams: [{ id: 'solo', url: everything.url }], tenants: [] } });
    const client = await connectClient(gate.url);
    try {
      assert.ok((await client.listTools({})).tools.length > 0);
      await echo(client, 'echo');
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
    }
  });
});
