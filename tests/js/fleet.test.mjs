// A fleet of two real gate instances sharing one real Redis (server.redisUrl): one global rate
// limit and one budget across both, one breaker, cursors that page on either, a task minted
// through one and fetched through the other (and by nobody else), a 2026-07-28 call parked
// (input_required) through one resumed through the other by its caller only, an ID-JAG's jti redeemed
// once fleet-wide; Redis frozen in the middle of a load (every request still answered, the
// outage counted and logged once, the recovery too); a store that does not answer at start
// stops gate. Each test has a Redis database of its own (redis://…/N), so no state leaks
// between them.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import { SignJWT } from 'jose';

import {
  connectClient,
  eventually,
  expectMcpError,
  get,
  openRawSession,
  post,
  rpc,
  runGate,
  startEverything,
  startGate,
  startHaproxy,
  startIdp,
  startRecordingProxy,
  startRedis,
  startTaskServerV2,
} from './lib/index.mjs';
import { metric } from './lib/metrics.mjs';
import { startClassicWaitServer } from './lib/wait-servers.mjs';

const RESOURCE = 'https://gate.example/mcp';
const MODERN = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const echo = (c, name, message = 'x') => c.callTool({ name, arguments: { message } });

describe('a fleet of two instances over one Redis', { timeout: 180_000 }, () => {
  let redis;
  let everything;
  let idp;
  let db = 0;
  const started = [];

  // Two instances of the same document on a fresh database of the shared Redis.
  const pair = async (config, env = {}) => {
    const url = `${redis.url}/${++db}`;
    const gates = await Promise.all([0, 1].map(() => startGate({ config: { ...config, server: { ...config.server, redisUrl: url } }, env })));
    started.push(...gates);
    return gates;
  };

  before(async () => {
    [redis, everything, idp] = await Promise.all([startRedis(), startEverything(), startIdp()]);
  });
  after(async () => {
    await Promise.all(started.map((g) => g.stop()));
    await Promise.all([redis?.stop(), everything?.stop(), idp?.stop()]);
  });

  test('fleet: one global limit and one budget across two instances sharing a real Redis', async () => {
    const [a, b] = await pair({
      upstreams: [{ id: 'alpha', url: everything.url, namespace: 'a', budget: { period: 'day', upstreamCalls: 3 } }],
      server: { rateLimit: { requestsPerMinute: 10 } },
    });
    const sa = await openRawSession(a.url); // 2 requests: initialize and its notification (not counted)
    const sb = await openRawSession(b.url);
    // 2 of 10 spent on the two initializes; the budget of 3 calls spent across both.
    const call = (g, s) => post(g.url, rpc('tools/call', { name: 'a__echo', arguments: { message: 'm' } }), s.headers);
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      const [g, s] = i % 2 ? [b, sb] : [a, sa];
      const r = await call(g, s);
      assert.equal(r.status, 200, r.text);
      outcomes.push(r.json.error?.code ?? 'ok');
    }
    assert.deepEqual(outcomes, ['ok', 'ok', 'ok', -32044, -32044], 'three calls a day, whichever instance takes them');
    // 7 of 10 spent: three more pings are admitted across both, then 429 on either.
    const codes = [];
    for (let i = 0; i < 5; i++) {
      const [g, s] = i % 2 ? [a, sa] : [b, sb];
      codes.push((await post(g.url, rpc('ping'), s.headers)).status);
    }
    assert.deepEqual(codes, [200, 200, 200, 429, 429]);
    const limited = await post(a.url, rpc('ping'), sa.headers);
    assert.match(JSON.parse(limited.text).error, /global rate limit of 10 requests per minute reached/);
    for (const g of [a, b]) {
      const m = (await get(`${g.base}/metrics`)).text;
      assert.equal(metric(m, 'gate_shared_state_up', {}), 1);
      assert.equal(metric(m, 'gate_budget_degraded_total', {}), 0);
    }
  });

  test('fleet: a cursor minted by one instance pages on the other', async () => {
    const [a, b] = await pair({
      upstreams: [{ id: 'alpha', url: everything.url, namespace: 'a' }],
      routing: { pageSize: 4 },
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    });
    // One principal's sessions on each instance (a cursor is bound to its caller).
    const bearer = { authorization: `Bearer ${await idp.mint({ sub: 'alice', aud: RESOURCE })}` };
    const [sa, sb] = [await openRawSession(a.url, bearer), await openRawSession(b.url, bearer)];
    const first = await post(a.url, rpc('tools/list', {}), sa.headers);
    const cursor = first.json.result.nextCursor;
    assert.ok(cursor, 'a second page');
    const second = await post(b.url, rpc('tools/list', { cursor }), sb.headers);
    assert.ok(second.json.result, second.text);
    const names = (r) => r.json.result.tools.map((t) => t.name);
    assert.equal(names(second).length, 4);
    assert.ok(names(second).every((n) => !names(first).includes(n)), 'the next page, not the first again');
    // Another principal cannot use it on either instance.
    const bob = await openRawSession(b.url, { authorization: `Bearer ${await idp.mint({ sub: 'bob', aud: RESOURCE })}` });
    assert.equal((await post(b.url, rpc('tools/list', { cursor }), bob.headers)).json.error?.code, -32602);
  });

  test('fleet: a list one instance fetched is served by the other from the shared cache', async () => {
    const proxy = await startRecordingProxy(everything.url);
    try {
      const [a, b] = await pair({
        upstreams: [{ id: 'alpha', url: proxy.url, namespace: 'a' }],
        audit: { sinks: [{ type: 'stdout' }] },
      });
      const [ca, cb] = [await connectClient(a.url), await connectClient(b.url)];
      try {
        const lists = () => proxy.seen.filter((r) => r.rpcMethod === 'tools/list').length;
        const fromA = (await ca.listTools({})).tools.map((t) => t.name);
        const fetched = lists();
        assert.ok(fetched >= 1, 'the first instance asked the upstream');
        const fromB = (await cb.listTools({})).tools.map((t) => t.name);
        assert.deepEqual(fromB, fromA);
        assert.equal(lists(), fetched, 'the second instance did not ask the upstream');
        const [ev] = (await b.waitForAudit((evs) => evs.some((e) => e.method === 'tools/list'))).filter((e) => e.method === 'tools/list');
        assert.equal(ev.upstreamCalls, 0, 'no upstream invocation, so nothing charged');
      } finally {
        await Promise.all([ca.close(), cb.close()]);
      }
    } finally {
      await proxy.stop();
    }
  });

  test('fleet: failures counted on both instances open one breaker', async () => {
    const proxy = await startRecordingProxy(everything.url);
    try {
      const [a, b] = await pair({
        upstreams: [{ id: 'flaky', url: proxy.url, namespace: 'f', circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 } }],
      });
      const [ca, cb] = [await connectClient(a.url), await connectClient(b.url)];
      try {
        proxy.failWith({ status: 500, body: '{"error":"boom"}' });
        // One failure on each: neither instance alone reached the threshold of 2.
        for (const c of [ca, cb]) assert.match((await expectMcpError(() => echo(c, 'f__echo'))).message, /upstream flaky unavailable/);
        const posts = () => proxy.seen.filter((r) => r.httpMethod === 'POST').length;
        for (const [c, g] of [[cb, b], [ca, a]]) {
          // Open on both (the first instance learns it from the store within a poll).
          await eventually(async () => {
            const before = posts();
            const err = await expectMcpError(() => echo(c, 'f__echo'));
            return err.code === -32041 && /circuit open/.test(err.message) && posts() === before;
          }, { timeoutMs: 5000, everyMs: 50, what: `the breaker open at ${g.base}` });
          const m = (await get(`${g.base}/metrics`)).text;
          assert.equal(metric(m, 'gate_upstream_breaker_state', { upstream: 'flaky' }), 2);
        }
      } finally {
        await Promise.all([ca.close(), cb.close()]);
      }
    } finally {
      await proxy.stop();
    }
  });

  test('fleet: a task minted through one instance is fetched through the other, and by nobody else', async () => {
    // A 2026-07-28 task server keeps its tasks whoever asks; without the fleet's record the
    // other instance would probe both upstreams, and would not know whose the task is.
    const v2 = await startTaskServerV2();
    try {
      const [a, b] = await pair({
        upstreams: [
          { id: 'ev', url: everything.url, namespace: 'ev' },
          { id: 'v2', url: v2.url, namespace: 't2', protocol: MODERN },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        audit: { sinks: [{ type: 'stdout' }] },
      });
      const modern = async (g, sub, method, params) => {
        const res = await post(
          g.url,
          {
            jsonrpc: '2.0',
            id: 1,
            method,
            params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } } } },
          },
          { authorization: `Bearer ${await idp.mint({ sub, aud: RESOURCE })}`, 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': params.name ?? params.taskId },
        );
        assert.equal(res.status, 200, res.text);
        return res.json;
      };
      const created = await modern(a, 'alice', 'tools/call', { name: 't2__report', arguments: { topic: 'fleet' } });
      const taskId = created.result?.taskId;
      assert.ok(taskId, JSON.stringify(created));
      const got = await modern(b, 'alice', 'tasks/get', { taskId });
      assert.equal(got.result?.taskId, taskId, JSON.stringify(got));
      const [ev] = (await b.waitForAudit((evs) => evs.some((e) => e.method === 'tasks/get'))).filter((e) => e.method === 'tasks/get');
      assert.equal(ev.upstreamCalls, 1, 'the fleet knew its owner: no probe');
      assert.equal(ev.upstream, 'v2');
      const foreign = await modern(b, 'bob', 'tasks/get', { taskId });
      assert.equal(foreign.error?.code, -32602, JSON.stringify(foreign));
    } finally {
      await v2.stop();
    }
  });

  test('fleet: a 2026-07-28 call parked through one instance is resumed through the other, by its caller only', async () => {
    const [a, b] = await pair({
      upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    });
    const bearer = async (sub) => ({ authorization: `Bearer ${await idp.mint({ sub, aud: RESOURCE })}` });
    const [alice, bob] = [await bearer('alice'), await bearer('bob')];
    // everything's sampling tool asks the client; a 2026-07-28 client is asked by input_required.
    const call = (g, who, id, prompt, extra = {}) =>
      post(
        g.url,
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'ev__trigger-sampling-request',
            arguments: { prompt },
            ...extra,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': MODERN,
              'io.modelcontextprotocol/clientCapabilities': { sampling: {} },
              'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
            },
          },
        },
        { ...who, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'ev__trigger-sampling-request' },
      );
    const parked = async (prompt) => {
      const r = await call(a, alice, 1, prompt);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.result.resultType, 'input_required', r.text);
      return r.json.result;
    };
    const sampled = (key, text) => ({ [key]: { role: 'assistant', model: 'm', content: { type: 'text', text } } });

    // Parked through A, resumed through B: B answers the upstream session that asked, and the
    // call A still runs answers through B under the retry's id.
    const first = await parked('one');
    const [key] = Object.keys(first.inputRequests);
    const stolen = await call(b, bob, 2, 'one', { requestState: first.requestState, inputResponses: sampled(key, 'from bob') });
    assert.equal(stolen.status, 400, stolen.text);
    assert.equal(stolen.json.error.code, -32602);
    assert.match(stolen.json.error.message, /issued to another caller/);
    const resumed = await call(b, alice, 3, 'one', { requestState: first.requestState, inputResponses: sampled(key, 'sampled through b') });
    assert.equal(resumed.status, 200, resumed.text);
    assert.equal(resumed.json.id, 3);
    assert.match(JSON.stringify(resumed.json.result.content), /sampled through b/);

    // A retry through B without answers is asked the same question again; its answer completes
    // the call.
    const second = await parked('two');
    const [again] = Object.keys(second.inputRequests);
    const bare = await call(b, alice, 4, 'two', { requestState: second.requestState });
    assert.equal(bare.status, 200, bare.text);
    assert.equal(bare.json.id, 4);
    assert.equal(bare.json.result.resultType, 'input_required', bare.text);
    assert.deepEqual(bare.json.result.inputRequests, second.inputRequests, 'the same question, asked again');
    assert.notEqual(bare.json.result.requestState, second.requestState);
    const done = await call(b, alice, 5, 'two', { requestState: bare.json.result.requestState, inputResponses: sampled(again, 'at last') });
    assert.equal(done.status, 200, done.text);
    assert.equal(done.json.id, 5);
    assert.match(JSON.stringify(done.json.result.content), /at last/);
    for (const g of [a, b])
      assert.equal(metric((await get(`${g.base}/metrics`)).text, 'gate_shared_state_degraded_total', { state: 'parked' }), 0);
  });

  test('fleet: a call resumed through the other instance streams its progress as it comes, and closing that stream cancels it where it runs', async (t) => {
    const waiter = await startClassicWaitServer();
    t.after(() => waiter.stop());
    const [a, b] = await pair({
      upstreams: [{ id: 'w', url: waiter.url, namespace: 'w' }],
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    });
    const alice = { authorization: `Bearer ${await idp.mint({ sub: 'alice', aud: RESOURCE })}` };
    const LONG = 60_000; // the call waits this long unless cancelled
    const arrived = async (pred, what) => {
      await eventually(() => waiter.events.some(pred), { what });
      return waiter.events.find(pred);
    };
    const request = (id, extra = {}) => ({
      body: {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'w__ask-then-wait',
          arguments: { ms: LONG },
          ...extra,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': MODERN,
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
            progressToken: 'p-1',
          },
        },
      },
      headers: { ...alice, 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'w__ask-then-wait' },
    });
    // Parked through A: the upstream asked for elicitation.
    const first = request(1);
    const parked = await post(a.url, first.body, first.headers);
    assert.equal(parked.json?.result?.resultType, 'input_required', parked.text);
    const [key] = Object.keys(parked.json.result.inputRequests);
    // Resumed through B with an event stream: the progress the call reports at A arrives
    // while the call still runs (it waits a minute), not with its answer.
    const retry = request(2, { requestState: parked.json.result.requestState, inputResponses: { [key]: { action: 'accept', content: { go: true } } } });
    const abort = new AbortController();
    const res = await fetch(b.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...retry.headers },
      body: JSON.stringify(retry.body),
      signal: abort.signal,
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /text\/event-stream/);
    const reader = res.body.getReader();
    let seen = '';
    while (!/notifications\/progress/.test(seen)) {
      const { value, done } = await reader.read();
      assert.ok(!done, `the stream ended before any progress: ${seen}`);
      seen += Buffer.from(value).toString('utf8');
    }
    assert.match(seen, /"progressToken":"p-1"/);
    assert.doesNotMatch(seen, /asked, then waited/, 'the answer has not come: the call still runs');
    await arrived((e) => e.outcome === 'answered' && e.content?.go === true, 'the answer reached the upstream');
    // Closing B's stream cancels the call at A, which runs it: the upstream hears
    // notifications/cancelled.
    abort.abort();
    const cancelled = await arrived((e) => e.outcome === 'cancelled', 'the call cancelled at the upstream');
    assert.match(cancelled.reason, /closed its stream at another instance/);
    for (const g of [a, b])
      assert.equal(metric((await get(`${g.base}/metrics`)).text, 'gate_shared_state_degraded_total', { state: 'parked' }), 0);
  });

  test('fleet: an ID-JAG redeemed through one instance is refused by the other', async () => {
    const key = execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'], { encoding: 'utf8' });
    const [a, b] = await pair(
      {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        auth: {
          mode: 'required',
          resource: RESOURCE,
          issuers: [{ issuer: idp.issuer, mode: 'exchange' }],
          ema: { idpIssuer: idp.issuer, signingKeyRef: 'GATE_SIGNING_KEY', tokenTtlSec: 120 },
        },
      },
      { GATE_SIGNING_KEY: key },
    );
    const now = Math.floor(Date.now() / 1000);
    const k = idp.keys[0];
    const assertion = await new SignJWT({ iss: idp.issuer, sub: 'alice', aud: 'https://gate.example', resource: RESOURCE, client_id: 'c', jti: randomUUID(), iat: now, exp: now + 120 })
      .setProtectedHeader({ alg: k.alg, kid: k.kid, typ: 'oauth-id-jag+jwt' })
      .sign(k.privateKey);
    const redeem = async (g) => {
      const res = await fetch(`${g.base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }).toString(),
      });
      return { status: res.status, body: await res.json() };
    };
    assert.equal((await redeem(a)).status, 200);
    const again = await redeem(b);
    assert.equal(again.status, 400);
    assert.match(again.body.error_description, /already redeemed/);
  });

  test('fleet: an SDK client behind a round-robin haproxy calls 100 times across both instances, and sampling answers cross them', async () => {
    const [a, b] = await pair({ upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }], audit: { sinks: [{ type: 'stdout' }] } });
    const lb = await startHaproxy([a.base, b.base]);
    try {
      let sampled = 0;
      const client = await connectClient(lb.url, { capabilities: { sampling: {} }, onSampling: () => sampled++ });
      try {
        for (let i = 0; i < 100; i++) {
          const r = await echo(client, 'ev__echo', `m${i}`);
          assert.deepEqual(r.content, [{ type: 'text', text: `Echo: m${i}` }]);
        }
        for (const g of [a, b]) {
          const m = (await get(`${g.base}/metrics`)).text;
          assert.ok(metric(m, 'gate_requests_total', { method: 'tools/call', outcome: 'ok' }) >= 25, `${g.base} took its share of the calls`);
        }
        // The upstream asks on the call's stream (one instance); the client's answer is its
        // next request, which the balancer sends to the other.
        for (let i = 0; i < 4; i++) {
          const r = await client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: `p${i}`, maxTokens: 5 } });
          assert.match(JSON.stringify(r.content), /stub/);
        }
        assert.equal(sampled, 4);
        // Each answer is audited once, on the instance that took it (after its 202, so the
        // last may still be on its way).
        const countsOf = () =>
          [a, b].map((g) => {
            const evs = g.auditEvents();
            return {
              calls: evs.filter((e) => e.method === 'tools/call' && /trigger-sampling/.test(e.name ?? '')).length,
              answers: evs.filter((e) => e.method === 'response' && e.outcome === 'ok').length,
            };
          });
        let counts;
        await eventually(() => {
          counts = countsOf();
          return counts[0].answers + counts[1].answers === 4 && counts[0].calls + counts[1].calls === 4;
        }, { timeoutMs: 5000, what: 'four calls and four answers audited' });
        assert.equal(counts[0].answers + counts[1].answers, 4, JSON.stringify(counts));
        assert.ok(counts.some((c) => c.calls !== c.answers), `some answers crossed instances: ${JSON.stringify(counts)}`);
      } finally {
        await client.close();
      }
      // Ended through the balancer: neither instance knows the session any more.
      const raw = await openRawSession(lb.url);
      const del = await fetch(lb.url, { method: 'DELETE', headers: raw.headers });
      assert.equal(del.status, 200);
      for (const g of [a, b])
        await eventually(async () => (await post(g.url, rpc('ping'), raw.headers)).status === 404, { timeoutMs: 5000, everyMs: 50, what: `the session ended at ${g.base}` });
    } finally {
      await lb.stop();
    }
  });

  test('fleet: a session ended to make room answers 404 on every instance, and an adopted one counts against the share where it is held', async () => {
    const [a, b] = await pair({ upstreams: [{ id: 'alpha', url: everything.url, namespace: 'a' }], server: { sessions: { max: 10, perPrincipal: 2 } } });
    const ping = async (g, s) => (await post(g.url, rpc('ping'), s.headers)).status;
    const ended = (g, s, what) => eventually(async () => (await ping(g, s)) === 404, { timeoutMs: 5000, everyMs: 50, what });
    // One anonymous address, a share of 2 on each instance. b adopts the second.
    const first = await openRawSession(a.url);
    const second = await openRawSession(a.url);
    assert.equal(await ping(b, second), 200);
    // A third on a: the first, least recently used, makes room, and no instance takes it back
    // from the fleet's store.
    await openRawSession(a.url);
    await ended(a, first, 'the evicted session gone at a');
    await ended(b, first, 'the evicted session unknown at b');
    // Two opened on b: with the adopted one, more than its share there; the adopted one, the
    // least recently used on b, ends, at a too (where it was opened).
    const onB = [await openRawSession(b.url), await openRawSession(b.url)];
    await ended(b, second, 'the adopted session evicted at b');
    await ended(a, second, "the adopted session's end followed at a");
    for (const s of onB) assert.equal(await ping(b, s), 200);
  });

  test('fleet: Redis frozen mid-load: every request answered, the outage counted and logged once, then shared again', async () => {
    const own = await startRedis();
    const gates = await Promise.all([0, 1].map(() => startGate({ config: { upstreams: [{ id: 'alpha', url: everything.url, namespace: 'a' }], server: { rateLimit: { requestsPerMinute: 100_000 } } }, env: { REDIS_URL: own.url } })));
    started.push(...gates);
    try {
      const sessions = await Promise.all(gates.map((g) => openRawSession(g.url)));
      const load = async (n) => {
        const statuses = await Promise.all(
          Array.from({ length: n }, (_, i) => post(gates[i % 2].url, rpc('tools/call', { name: 'a__echo', arguments: { message: String(i) } }), sessions[i % 2].headers)),
        );
        return statuses.map((r) => (r.status === 200 && r.json.result ? 'ok' : `${r.status} ${r.text}`));
      };
      assert.deepEqual(new Set(await load(20)), new Set(['ok']));
      own.pause();
      // Past the batches already granted, each instance asks the frozen store: within 500 ms it
      // fails open to its own window.
      const during = await load(400);
      assert.deepEqual(new Set(during), new Set(['ok']));
      for (const g of gates) {
        // How soon an instance asks past its batch depends on the rate it measured (batches are
        // sized by demand): more load until it has, every request still answered.
        await eventually(async () => {
          const m = (await get(`${g.base}/metrics`)).text;
          if (metric(m, 'gate_shared_state_degraded_total', { state: 'rate_limit' }) >= 1) return true;
          assert.deepEqual(new Set(await load(100)), new Set(['ok']));
          return false;
        }, { timeoutMs: 20_000, everyMs: 50, what: `the fallback counted at ${g.base}` });
        const m = (await get(`${g.base}/metrics`)).text;
        assert.equal(metric(m, 'gate_shared_state_up', {}), 0);
        assert.equal(g.stderrLines.filter((l) => /shared store .* failed/.test(l)).length, 1, 'logged once');
      }
      own.resume();
      for (const g of gates) {
        await eventually(async () => {
          await load(2);
          return metric((await get(`${g.base}/metrics`)).text, 'gate_shared_state_up', {}) === 1;
        }, { timeoutMs: 10_000, everyMs: 200, what: 'the store answering again' });
        assert.equal(g.stderrLines.filter((l) => /shared store .* answers again/.test(l)).length, 1, g.stderrLines.filter((l) => /shared store/.test(l)).join('\n'));
      }
    } finally {
      own.resume();
      await own.stop();
    }
  });

  test('fleet: Redis killed mid-load: every request answered; started again on its port, the fleet shares again', async () => {
    const own = await startRedis();
    const gates = await Promise.all([0, 1].map(() => startGate({ config: { upstreams: [{ id: 'alpha', url: everything.url, namespace: 'a' }], server: { rateLimit: { requestsPerMinute: 100_000 } } }, env: { REDIS_URL: own.url } })));
    started.push(...gates);
    let again;
    try {
      const sessions = await Promise.all(gates.map((g) => openRawSession(g.url)));
      const load = async (n) => {
        const replies = await Promise.all(
          Array.from({ length: n }, (_, i) => post(gates[i % 2].url, rpc('tools/call', { name: 'a__echo', arguments: { message: String(i) } }), sessions[i % 2].headers)),
        );
        return new Set(replies.map((r) => (r.status === 200 && r.json.result ? 'ok' : `${r.status} ${r.text}`)));
      };
      assert.deepEqual(await load(20), new Set(['ok']));
      own.proc.kill('SIGKILL');
      await own.proc.exited;
      assert.deepEqual(await load(300), new Set(['ok']), 'every request answered while the store is gone');
      again = await startRedis({ port: own.port });
      const cli = (...args) => execFileSync('redis-cli', ['-p', String(own.port), ...args], { encoding: 'utf8' }).trim();
      for (const g of gates)
        await eventually(async () => {
          await load(4);
          return metric((await get(`${g.base}/metrics`)).text, 'gate_shared_state_up', {}) === 1;
        }, { timeoutMs: 10_000, everyMs: 200, what: `${g.base} sharing again` });
      // The fresh store holds the fleet's window again, and the cursor key the instances use.
      await eventually(async () => {
        await load(4);
        return cli('EXISTS', 'gate:window:global') === '1' && cli('EXISTS', 'gate:fleet:cursor-key') === '1';
      }, { timeoutMs: 10_000, everyMs: 200, what: 'the fleet state in the new Redis' });
    } finally {
      await again?.stop();
      await own.stop();
    }
  });

  test('a shared store that does not answer at start stops gate, naming it without its password', async () => {
    const dead = await startRedis();
    const port = dead.port;
    await dead.stop();
    const config = JSON.stringify({ upstreams: [{ id: 'a', url: everything.url }] });
    const r = await runGate([], { env: { GATE_CONFIG: config, REDIS_URL: `redis://:s3cret@127.0.0.1:${port}/2` } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`the shared store redis://127\\.0\\.0\\.1:${port}/2 does not answer`));
    assert.ok(!r.stderr.includes('s3cret'), 'the password is never printed');
    const bad = await runGate([], { env: { GATE_CONFIG: config, REDIS_URL: 'http://127.0.0.1:1' } });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /REDIS_URL\) is not usable: the scheme must be redis:\/\//);
  });
});
