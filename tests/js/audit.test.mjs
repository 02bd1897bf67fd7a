// Audit: with a stdout sink, every terminal response yields exactly one JSON line on
// gate's stdout; pre-MCP refusals are audited with method `http`.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, openRawSession, post, rawRequest, rpc, startEverything, startGate } from './lib/index.mjs';

const OUTCOMES = ['ok', 'error', 'denied', 'rate_limited', 'unauthenticated', 'upstream_down', 'forbidden', 'budget_exhausted'];

const count = (events, method) => events.filter((e) => e.method === method).length;

describe('audit to stdout', { timeout: 120_000 }, () => {
  let up;
  let gate;
  let quiet;

  before(async () => {
    up = await startEverything();
    const upstreams = [{ id: 'ev', url: up.url, namespace: 'a' }];
    // The owner surfaces in audit (the spec's table); only the fields set are written.
    const owned = [{ ...upstreams[0], owner: { org: 'acme', team: 'tools' } }];
    gate = await startGate({ config: { upstreams: owned, audit: { sinks: [{ type: 'stdout' }] } } });
    quiet = await startGate({ config: { upstreams } });
  });

  after(async () => {
    await Promise.all([gate?.stop(), quiet?.stop()]);
    await up?.stop();
  });

  test('one JSON line per response, with the documented fields', { timeout: 60_000 }, async () => {
    const s = await openRawSession(gate.url);
    const list = await post(gate.url, rpc('tools/list'), s.headers);
    assert.equal(list.status, 200, list.text);
    const nTools = list.json.result.tools.length;
    const call = await post(gate.url, rpc('tools/call', { name: 'a__echo', arguments: { message: 'audited' } }), s.headers);
    assert.equal(call.status, 200, call.text);
    assert.deepEqual(call.json.result, { content: [{ type: 'text', text: 'Echo: audited' }] });
    assert.equal((await post(gate.url, rpc('prompts/list'), s.headers)).status, 200);
    assert.equal((await post(gate.url, rpc('ping'), s.headers)).status, 200);
    const denied = await rawRequest(gate.url, {
      headers: { ...s.headers, host: 'evil.example' },
      body: JSON.stringify(rpc('ping')),
    });
    assert.equal(denied.status, 403);

    const want = ['initialize', 'tools/list', 'tools/call', 'prompts/list', 'ping', 'http'];
    await gate.waitForAudit((ev) => want.every((m) => count(ev, m) >= 1));
    // A last request, so that any duplicate of the earlier events has had time to appear.
    assert.equal((await post(gate.url, rpc('ping'), s.headers)).status, 200);
    const events = await gate.waitForAudit((ev) => count(ev, 'ping') >= 2);

    for (const line of gate.stdoutLines) {
      assert.doesNotThrow(() => JSON.parse(line), `stdout holds only JSON audit lines: ${line}`);
    }
    for (const m of ['initialize', 'tools/list', 'tools/call', 'prompts/list', 'http']) {
      assert.equal(count(events, m), 1, `exactly one ${m} event:\n${gate.stdoutLines.join('\n')}`);
    }
    assert.equal(count(events, 'ping'), 2);
    const others = events.filter((e) => !want.includes(e.method));
    // The 202 answer to notifications/initialized may be audited (once) or not at all.
    assert.ok(
      others.length === 0 || (others.length === 1 && others[0].method === 'notifications/initialized'),
      `unexpected events: ${JSON.stringify(others)}`,
    );

    for (const e of events) {
      assert.equal(typeof e.time, 'string', JSON.stringify(e));
      assert.ok(!Number.isNaN(Date.parse(e.time)), `time parses: ${e.time}`);
      assert.match(e.time, /(Z|[+-]00:?00)$/, `time is UTC: ${e.time}`);
      assert.ok(OUTCOMES.includes(e.outcome), `outcome ${e.outcome}`);
      assert.equal(typeof e.latencyMs, 'number');
      assert.ok(e.latencyMs >= 0);
      assert.equal(e.principal, undefined, 'no principal when auth is disabled');
      assert.equal(e.issuer, undefined, 'no issuer when auth is disabled');
    }
    const callEv = events.find((e) => e.method === 'tools/call');
    assert.equal(callEv.name, 'a__echo');
    assert.equal(callEv.upstream, 'ev');
    assert.deepEqual(callEv.owner, { org: 'acme', team: 'tools' });
    assert.equal(callEv.outcome, 'ok');
    assert.equal(events.find((e) => e.method === 'http').owner, undefined, 'no upstream, no owner');
    const listEv = events.find((e) => e.method === 'tools/list');
    assert.equal(listEv.outcome, 'ok');
    assert.equal(listEv.itemsServed, nTools, 'itemsServed = tools handed to the caller');
    const httpEv = events.find((e) => e.method === 'http');
    assert.equal(httpEv.outcome, 'forbidden');
    await closeRawSession(gate.url, s);
  });

  test('a body over the cap is audited as an http rejection', { timeout: 30_000 }, async () => {
    const s = await openRawSession(gate.url);
    const before_ = count(gate.auditEvents(), 'http');
    const r = await rawRequest(gate.url, { headers: s.headers, body: JSON.stringify(rpc('ping', { pad: 'x'.repeat(1 << 20) })) });
    assert.equal(r.status, 413);
    await gate.waitForAudit((ev) => count(ev, 'http') === before_ + 1);
    await closeRawSession(gate.url, s);
  });

  test('an unknown namespace is audited once, with an error outcome', { timeout: 30_000 }, async () => {
    const s = await openRawSession(gate.url);
    const r = await post(gate.url, rpc('tools/call', { name: 'zz__echo', arguments: {} }), s.headers);
    assert.equal(r.json?.error?.code, -32043, r.text);
    const ev = await gate.waitForAudit((evs) => evs.some((e) => e.method === 'tools/call' && e.name === 'zz__echo'));
    const mine = ev.filter((e) => e.method === 'tools/call' && e.name === 'zz__echo');
    assert.equal(mine.length, 1);
    assert.notEqual(mine[0].outcome, 'ok');
    await closeRawSession(gate.url, s);
  });

  test('session refusals (missing, unknown) are audited once under the method', { timeout: 30_000 }, async () => {
    const before_ = count(gate.auditEvents(), 'tools/list');
    const missing = await post(gate.url, rpc('tools/list'), {});
    assert.equal(missing.status, 400, missing.text);
    const unknown = await post(gate.url, rpc('tools/list'), { 'mcp-session-id': 'no-such-session' });
    assert.equal(unknown.status, 404, unknown.text);
    const ev = await gate.waitForAudit((evs) => count(evs, 'tools/list') >= before_ + 2);
    const refused = ev.filter((e) => e.method === 'tools/list').slice(before_);
    assert.equal(refused.length, 2);
    for (const e of refused) {
      assert.equal(e.outcome, 'error');
      assert.match(e.error, /session/i);
    }
  });

  test('without an audit section nothing is written to stdout', { timeout: 30_000 }, async () => {
    const s = await openRawSession(quiet.url);
    assert.equal((await post(quiet.url, rpc('tools/list'), s.headers)).status, 200);
    assert.equal((await post(quiet.url, rpc('tools/call', { name: 'a__echo', arguments: { message: 'q' } }), s.headers)).status, 200);
    await closeRawSession(quiet.url, s);
    // Stop it and read its stdout to the end (operational logs belong on stderr).
    await quiet.stop();
    assert.deepEqual(quiet.stdoutLines, []);
  });

  test('a reload adds and removes the audit section live', { timeout: 30_000 }, async () => {
    const upstreams = [{ id: 'ev', url: up.url, namespace: 'a' }];
    const live = await startGate({ config: { upstreams } });
    try {
      const s = await openRawSession(live.url);
      const call = (message) => post(live.url, rpc('tools/call', { name: 'a__echo', arguments: { message } }), s.headers);
      await call('before');
      await live.reloaded({ upstreams, audit: { sinks: [{ type: 'stdout' }] } });
      await call('audited');
      const [ev] = (await live.waitForAudit((evs) => evs.some((e) => e.method === 'tools/call'))).filter((e) => e.method === 'tools/call');
      assert.equal(ev.name, 'a__echo');
      await live.reloaded({ upstreams });
      await call('after');
      await closeRawSession(live.url, s);
      await live.stop();
      const calls = live.auditEvents().filter((e) => e.method === 'tools/call');
      assert.equal(calls.length, 1, 'only the call made while the section was there');
      assert.ok(live.stdoutLines.every((l) => l.startsWith('{')), 'nothing but audit lines on stdout');
    } finally {
      await live.stop();
    }
  });
});

