// Stage 6, the upstream guards, against the real binary and real MCP servers: the circuit
// breaker (opening, refusing every path to the upstream while open, recovering after
// halfOpenAfterMs), the per-upstream rate limit, and replicas ejected on a connect failure.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  connectClient,
  eventually,
  expectMcpError,
  get,
  notification,
  openRawSession,
  post,
  rpc,
  runGate,
  startEverything,
  startGate,
  startIdp,
  startRecordingProxy,
} from './lib/index.mjs';
import { metric as metricOr } from './lib/metrics.mjs';

const metric = (text, name, labels) => metricOr(text, name, labels, undefined);

const echo = (client, name, message = 'x') => client.callTool({ name, arguments: { message } });


describe('the circuit breaker', { timeout: 120_000 }, () => {
  let everything;
  let proxy;
  let gate;
  let client;
  const HALF_OPEN_MS = 5000;

  before(async () => {
    everything = await startEverything();
    proxy = await startRecordingProxy(everything.url);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'flaky', url: proxy.url, namespace: 'f', circuitBreaker: { failureThreshold: 3, halfOpenAfterMs: HALF_OPEN_MS } },
          { id: 'steady', url: everything.url, namespace: 's' },
        ],
      },
    });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await proxy?.stop();
    await everything?.stop();
  });

  test('an upstream that keeps failing opens its breaker, refuses every path while open, and recovers', async () => {
    assert.deepEqual((await echo(client, 'f__echo', 'before')).content, [{ type: 'text', text: 'Echo: before' }]);

    // HTTP 500 with a JSON body that is not JSON-RPC: a failed call, not an answer to pass on.
    proxy.failWith({ status: 500, body: '{"error":"boom"}' });
    for (let i = 0; i < 3; i++) {
      const err = await expectMcpError(() => echo(client, 'f__echo'));
      assert.equal(err.code, -32041, err.message);
      assert.match(err.message, /upstream flaky unavailable: .*not a JSON-RPC response/);
    }
    let m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_upstream_breaker_state', { upstream: 'flaky' }), 2, 'open');
    assert.equal(metric(m, 'gate_upstream_breaker_state', { upstream: 'steady' }), 0);

    // Open: nothing reaches the upstream, whichever path asks. What gate sends are its requests
    // and notifications (a method); its answers to the upstream's own requests are not calls
    // and still go (the everything server asks gate's root session roots/list 350 ms after it
    // opened, whenever that falls).
    const posts = () => proxy.seen.filter((r) => r.httpMethod === 'POST' && r.rpcMethod !== null);
    const before = posts().length;
    const open = await expectMcpError(() => echo(client, 'f__echo'));
    assert.equal(open.code, -32041);
    assert.match(open.message, /circuit open/);
    assert.ok(open.data?.retryAfterMs > 0 && open.data.retryAfterMs <= HALF_OPEN_MS, JSON.stringify(open.data));
    const tools = (await client.listTools({})).tools.map((t) => t.name);
    assert.ok(tools.length > 0 && tools.every((n) => n.startsWith('s__')), `the open upstream is left out: ${tools.slice(0, 5)}`);
    const prompt = await expectMcpError(() => client.getPrompt({ name: 'f__simple-prompt' }));
    assert.equal(prompt.code, -32041);
    const completion = await expectMcpError(() =>
      client.complete({ ref: { type: 'ref/prompt', name: 'f__complex-prompt' }, argument: { name: 'temperature', value: '1' } }),
    );
    assert.equal(completion.code, -32041);
    await client.setLoggingLevel('debug'); // answered by gate; not propagated to the open one
    // Reads and subscribes route to the upstream that listed the URI: not to the open one,
    // whose lists are left out while it is open.
    const uri = 'demo://resource/static/document/architecture.md';
    await client.readResource({ uri }).catch((err) => assert.notEqual(err.code, undefined, String(err)));
    await client.subscribeResource({ uri }).catch((err) => assert.notEqual(err.code, undefined, String(err)));
    // A new client's first call would open its bridged session there: refused before that.
    const late = await connectClient(gate.url);
    const lateErr = await expectMcpError(() => echo(late, 'f__echo'));
    assert.equal(lateErr.code, -32041);
    await late.close();
    // A task nobody pinned is looked for by a probe of every upstream: not of the open one.
    const task = await expectMcpError(() => client.request({ method: 'tasks/get', params: { taskId: 'nope' } }, EmptyResultSchema));
    assert.equal(task.code, -32002, task.message);
    const health = JSON.parse((await get(`${gate.base}/health`)).text);
    const flaky = health.upstreams.find((u) => u.id === 'flaky');
    assert.equal(flaky.status, 'down');
    assert.equal(flaky.breaker, 'open');
    assert.match(flaky.error, /circuit open/);
    assert.deepEqual(
      posts().slice(before).map((r) => r.rpcMethod),
      [],
      'no request reached the upstream while its circuit was open',
    );
    m = (await get(`${gate.base}/metrics`)).text;
    assert.ok(metric(m, 'gate_upstream_requests_total', { upstream: 'flaky', outcome: 'circuit_open' }) >= 2);

    // Healthy again: after halfOpenAfterMs one probe goes through and closes the circuit.
    proxy.failWith(null);
    await eventually(
      async () => {
        try {
          await echo(client, 'f__echo', 'after');
          return true;
        } catch (err) {
          assert.equal(err.code, -32041, err.message);
          return false;
        }
      },
      { timeoutMs: HALF_OPEN_MS + 15_000, everyMs: 250, what: 'the breaker closing' },
    );
    m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_upstream_breaker_state', { upstream: 'flaky' }), 0, 'closed');
    const logs = gate.proc.stderr.text();
    assert.equal(logs.match(/upstream flaky circuit open after 3 consecutive failures/g)?.length, 1, logs);
    assert.match(logs, /upstream flaky circuit closed: the probe succeeded/);
  });
});

describe('upstreams[].rateLimit', { timeout: 60_000 }, () => {
  let everything;
  let gate;
  let client;

  before(async () => {
    everything = await startEverything();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url, rateLimit: { requestsPerMinute: 3 } }],
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

  test('upstreams[].rateLimit refuses calls over it with -32040 and a retry hint', async () => {
    for (let i = 0; i < 3; i++) await echo(client, 'echo', `n${i}`);
    const err = await expectMcpError(() => echo(client, 'echo'));
    assert.equal(err.code, -32040, err.message);
    assert.match(err.message, /upstream solo rate limit exceeded: rate limit of 3 requests per minute reached; retry in \d+ s/);
    assert.ok(err.data.retryAfterMs > 0 && err.data.retryAfterMs <= 60_000, JSON.stringify(err.data));
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_upstream_requests_total', { upstream: 'solo', outcome: 'rate_limited' }), 1);
    assert.equal(metric(m, 'gate_upstream_requests_total', { upstream: 'solo', outcome: 'ok' }), 3);
    const events = await gate.waitForAudit((ev) => ev.filter((e) => e.method === 'tools/call').length >= 4);
    const calls = events.filter((e) => e.method === 'tools/call');
    assert.deepEqual(calls.map((e) => e.outcome), ['ok', 'ok', 'ok', 'rate_limited']);
    // The limit is the upstream's own: gate's health ping still reaches it.
    assert.equal((await get(`${gate.base}/health`)).status, 200);
  });
});

describe('replicas', { timeout: 60_000 }, () => {
  test('a replica that refuses connections is ejected once and shown out of rotation', async () => {
    const everything = await startEverything();
    const a = await startRecordingProxy(everything.url);
    const b = await startRecordingProxy(everything.url);
    const gate = await startGate({
      config: { upstreams: [{ id: 'r', urls: [a.url, b.url], circuitBreaker: { failureThreshold: 100, halfOpenAfterMs: 600000 } }] },
    });
    const clients = [];
    try {
      await b.stop();
      for (let i = 0; i < 4; i++) {
        const c = await connectClient(gate.url);
        clients.push(c);
        assert.deepEqual((await echo(c, 'echo', `n${i}`)).content, [{ type: 'text', text: `Echo: n${i}` }]);
      }
      const logs = gate.proc.stderr.text();
      const ejected = logs.split('\n').filter((l) => l.includes(`endpoint ${b.url} ejected`));
      assert.equal(ejected.length, 1, logs);
      const health = JSON.parse((await get(`${gate.base}/health`)).text);
      assert.deepEqual(health.upstreams[0].endpoints, [
        { inRotation: true, url: a.url },
        { inRotation: false, url: b.url },
      ]);
      const m = (await get(`${gate.base}/metrics`)).text;
      assert.equal(metric(m, 'gate_upstream_endpoint_healthy', { upstream: 'r', endpoint: a.url }), 1);
      assert.equal(metric(m, 'gate_upstream_endpoint_healthy', { upstream: 'r', endpoint: b.url }), 0);
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await gate.stop();
      await a.stop();
      await everything.stop();
    }
  });
});

// Two real replicas (a server-everything each) behind a recording proxy each, so a test can
// kill one and see what reached which.
const startReplicas = async () => {
  const servers = [await startEverything(), await startEverything()];
  const proxies = [await startRecordingProxy(servers[0].url), await startRecordingProxy(servers[1].url)];
  return {
    proxies,
    stop: async () => {
      for (const p of proxies) await p.stop();
      for (const e of servers) await e.stop();
    },
  };
};

describe('sessions on a replica that dies move to one that answers', { timeout: 90_000 }, () => {
  // Sessions open round-robin: gate's own root session (which /health and lists use) on the
  // first replica, the clients' bridged sessions on both. Then a replica dies (refusing
  // connections) or hangs; every call after that must be served by the other, and the breaker
  // (three failures) must not open over calls that never reached anything.
  const scenario = async (kill, upstream) => {
    const replicas = await startReplicas();
    const [dying, live] = replicas.proxies;
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'r', urls: [dying.url, live.url], circuitBreaker: { failureThreshold: 3, halfOpenAfterMs: 600000 }, ...upstream }],
      },
    });
    const clients = [];
    try {
      for (let i = 0; i < 4; i++) {
        const c = await connectClient(gate.url, { capabilities: { sampling: {} } });
        clients.push(c);
        assert.deepEqual((await echo(c, 'echo', `before${i}`)).content, [{ type: 'text', text: `Echo: before${i}` }]);
      }
      const callsBefore = dying.count('tools/call');
      assert.ok(callsBefore >= 1, 'a client session is on the replica that dies');
      assert.equal((await get(`${gate.base}/health`)).status, 200);
      await kill(dying, gate);
      const health = JSON.parse((await get(`${gate.base}/health`)).text);
      assert.equal(health.upstreams[0].status, 'up', JSON.stringify(health));
      for (const [i, c] of clients.entries())
        assert.deepEqual((await echo(c, 'echo', `after${i}`)).content, [{ type: 'text', text: `Echo: after${i}` }]);
      const fresh = await connectClient(gate.url);
      clients.push(fresh);
      const listed = (await fresh.listTools()).tools.map((t) => t.name);
      assert.ok(listed.includes('echo') && listed.length > 5, listed.join(','));
      assert.equal(dying.count('tools/call'), callsBefore, 'no call reached the dead replica after it died');
      assert.equal(live.count('tools/call'), 8 - callsBefore);
      const m = (await get(`${gate.base}/metrics`)).text;
      assert.equal(metric(m, 'gate_upstream_breaker_state', { upstream: 'r' }), 0, 'the breaker stayed closed');
      assert.equal(metric(m, 'gate_upstream_endpoint_healthy', { upstream: 'r', endpoint: dying.url }), 0);
      assert.equal(metric(m, 'gate_requests_total', { method: 'tools/call', outcome: 'ok' }), 8);
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await gate.stop();
      await replicas.stop();
    }
  };

  test('a replica that dies: the calls of the sessions on it go to the other, none lost', async () => {
    await scenario(async (dying) => dying.stop(), {});
  });

  test('a replica that hangs: once its probe ejects it, the sessions on it move before their next call', async () => {
    await scenario(
      async (hung, gate) => {
        hung.failWith({ hang: true });
        await eventually(
          async () =>
            metric((await get(`${gate.base}/metrics`)).text, 'gate_upstream_endpoint_healthy', { upstream: 'r', endpoint: hung.url }) === 0,
          { timeoutMs: 20_000, what: 'the hung replica ejected' },
        );
      },
      // A call sent to the hung replica would wait out requestMs, failing the test's budget.
      { healthCheck: { intervalMs: 1000 }, timeouts: { requestMs: 30_000 } },
    );
  });
});

describe('server.rateLimit, the global limit', { timeout: 60_000 }, () => {
  let everything;
  let gate;

  before(async () => {
    everything = await startEverything();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url }],
        server: { rateLimit: { requestsPerMinute: 4 } },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await everything?.stop();
  });

  test('server.rateLimit answers 429 with Retry-After and one audit event', async () => {
    const session = await openRawSession(gate.url); // initialize: the first request counted
    for (let i = 0; i < 3; i++) {
      const r = await post(gate.url, rpc('ping'), session.headers);
      assert.equal(r.status, 200, r.text);
    }
    const refused = await post(gate.url, rpc('ping'), session.headers);
    assert.equal(refused.status, 429, refused.text);
    const retry = Number(refused.headers['retry-after']);
    assert.ok(Number.isInteger(retry) && retry >= 1 && retry <= 60, `Retry-After: ${refused.headers['retry-after']}`);
    assert.match(JSON.parse(refused.text).error, /global rate limit of 4 requests per minute reached; retry in \d+ s/);
    // A notification finishes work already admitted: never refused.
    const note = await post(gate.url, notification('notifications/cancelled', { requestId: 999 }), session.headers);
    assert.equal(note.status, 202, note.text);

    const events = await gate.waitForAudit((ev) => ev.some((e) => e.outcome === 'rate_limited'));
    const limited = events.filter((e) => e.outcome === 'rate_limited');
    assert.equal(limited.length, 1, JSON.stringify(limited));
    assert.equal(limited[0].method, 'http');
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_http_rejections_total', { reason: 'rate_limited' }), 1);
    assert.equal(metric(m, 'gate_requests_total', { method: 'ping', outcome: 'ok' }), 3);
  });
});

describe('a burst under the rate limits', { timeout: 60_000 }, () => {
  test('concurrent requests within the limits are all admitted: slots are asked for one batch at a time', async () => {
    const everything = await startEverything();
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url, namespace: 's', rateLimit: { requestsPerMinute: 60 } }],
        server: { rateLimit: { requestsPerMinute: 100 } },
      },
    });
    try {
      const session = await openRawSession(gate.url);
      // 45 pings and 45 calls at once: within both limits, with room to spare for a batch
      // dropped at a second's end. Were every waiting request to take a batch of its own, the
      // window would drain and some would be refused while slots sat unspent.
      const call = (i) => rpc('tools/call', { name: 's__echo', arguments: { message: `m${i}` } });
      const results = await Promise.all([
        ...Array.from({ length: 45 }, () => post(gate.url, rpc('ping'), session.headers)),
        ...Array.from({ length: 45 }, (_, i) => post(gate.url, call(i), session.headers)),
      ]);
      const refused = results.filter((r) => r.status !== 200 || r.text.includes('"error"'));
      assert.deepEqual(refused.map((r) => `${r.status} ${r.text.slice(0, 200)}`), []);
    } finally {
      await gate.stop();
      await everything.stop();
    }
  });
});

describe('active health (healthCheck.intervalMs)', { timeout: 90_000 }, () => {
  test('an active probe ejects a hung replica before traffic does, and restores it at once', async () => {
    const everything = await startEverything();
    const live = await startRecordingProxy(everything.url);
    const hung = await startRecordingProxy(everything.url);
    hung.failWith({ hang: true });
    // requestMs stays at its 60 s default: a session sent to the hung replica would hang.
    const gate = await startGate({
      config: { upstreams: [{ id: 'r', urls: [live.url, hung.url], healthCheck: { intervalMs: 1000 } }] },
    });
    const clients = [];
    const healthy = async (url) =>
      metric((await get(`${gate.base}/metrics`)).text, 'gate_upstream_endpoint_healthy', { upstream: 'r', endpoint: url });
    try {
      await eventually(async () => (await healthy(hung.url)) === 0, { timeoutMs: 20_000, what: 'the hung replica ejected' });
      assert.equal(await healthy(live.url), 1);
      const before = hung.seen.filter((r) => r.rpcMethod !== 'initialize').length;
      for (let i = 0; i < 4; i++) {
        const c = await connectClient(gate.url);
        clients.push(c);
        assert.deepEqual((await echo(c, 'echo', `n${i}`)).content, [{ type: 'text', text: `Echo: n${i}` }]);
      }
      assert.equal(hung.seen.filter((r) => r.rpcMethod !== 'initialize').length, before, 'no client traffic reached the hung replica');

      hung.failWith(null);
      await eventually(async () => (await healthy(hung.url)) === 1, { timeoutMs: 20_000, what: 'the recovered replica restored' });
      const logs = gate.proc.stderr.text();
      assert.equal(logs.match(new RegExp(`endpoint ${hung.url} ejected by health probe`, 'g'))?.length, 1, logs);
      assert.equal(logs.match(new RegExp(`endpoint ${hung.url} restored by health probe`, 'g'))?.length, 1, logs);
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await gate.stop();
      await live.stop();
      await hung.stop();
      await everything.stop();
    }
  });
});

describe('server.rateLimit.perPrincipalPerMinute', { timeout: 60_000 }, () => {
  const RESOURCE = 'https://gate.example/mcp';
  let everything;
  let idp;
  let gate;

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'solo', url: everything.url, namespace: 's' }],
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        server: { rateLimit: { perPrincipalPerMinute: 3 } },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test('perPrincipalPerMinute: each principal is limited alone', async () => {
    const as = async (sub) => ({ authorization: `Bearer ${await idp.mint({ sub, aud: RESOURCE })}` });
    const alice = await openRawSession(gate.url, await as('alice')); // initialize: 1 of 3
    for (let i = 0; i < 2; i++) assert.equal((await post(gate.url, rpc('ping'), alice.headers)).status, 200);
    const refused = await post(gate.url, rpc('ping'), alice.headers);
    assert.equal(refused.status, 429, refused.text);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.match(JSON.parse(refused.text).error, /rate limit of 3 requests per minute for alice reached; retry in \d+ s/);
    // Another principal has its own window; a new token of alice's does not.
    const bob = await openRawSession(gate.url, await as('bob'));
    assert.equal((await post(gate.url, rpc('ping'), bob.headers)).status, 200);
    const again = await post(gate.url, rpc('ping'), { ...alice.headers, ...(await as('alice')) });
    assert.equal(again.status, 429, again.text);
    const events = await gate.waitForAudit((ev) => ev.filter((e) => e.outcome === 'rate_limited').length === 2);
    for (const e of events.filter((x) => x.outcome === 'rate_limited')) assert.equal(e.principal, 'alice');
  });

  test('perPrincipalPerMinute without auth.mode required is refused', async () => {
    const config = { upstreams: [{ id: 'a', url: 'http://127.0.0.1:1/mcp' }], server: { rateLimit: { perPrincipalPerMinute: 5 } } };
    const r = await runGate(['--validate'], { env: { GATE_CONFIG: JSON.stringify(config) } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\/server\/rateLimit\/perPrincipalPerMinute: needs auth.mode "required"/);
  });
});
