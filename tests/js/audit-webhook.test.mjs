// The audit webhook sink against a real receiver: events leave in batches (JSON arrays) with
// the configured headers and an idempotency key, off the request path; a receiver that is
// down, failing, slow and then up ends with every event exactly once; a batch the receiver
// refuses is dropped and counted; SIGTERM delivers what the sink still holds. And `usage`
// from an upstream result's `_meta` reaches the audit event verbatim.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  eventually,
  get,
  openRawSession,
  post,
  rpc,
  startAuditReceiver,
  startEverything,
  startGate,
  startMeteredServer,
} from './lib/index.mjs';
import { freePort } from './lib/free-port.mjs';
import { startRawUpstream } from './lib/raw-upstream.mjs';
import { metric } from './lib/metrics.mjs';

const key = (e) => JSON.stringify(e);

// Every event of `stdout` appears among `delivered` exactly as many times as it was audited
// (two pings in the same millisecond with the same latency make identical events), and
// nothing else does.
function assertSameEvents(delivered, stdout) {
  const counts = new Map();
  for (const e of delivered) counts.set(key(e), (counts.get(key(e)) ?? 0) + 1);
  const audited = new Map();
  for (const e of stdout) audited.set(key(e), (audited.get(key(e)) ?? 0) + 1);
  for (const [k, n] of audited) {
    assert.equal(counts.get(k), n, `delivered exactly as often as audited: ${k}`);
    counts.delete(k);
  }
  assert.deepEqual([...counts.keys()], [], 'nothing delivered that was not audited');
}

describe('audit webhook sink', { timeout: 180_000 }, () => {
  let up;
  before(async () => {
    up = await startEverything();
  });
  after(async () => {
    await up?.stop();
  });

  const start = (receiverUrl, headers = {}) =>
    startGate({
      config: {
        upstreams: [{ id: 'ev', url: up.url, namespace: 'a' }],
        audit: { sinks: [{ type: 'webhook', url: receiverUrl, headers }, { type: 'stdout' }] },
      },
    });

  test('batches carry the configured headers, an idempotency key and every event once', async () => {
    const receiver = await startAuditReceiver();
    const gate = await start(receiver.url, { 'X-Audit-Team': 'security', Authorization: 'Bearer receiver-token' });
    try {
      const s = await openRawSession(gate.url);
      assert.equal((await post(gate.url, rpc('tools/list'), s.headers)).status, 200);
      // At once, so that the events of several calls fall within one batch's linger however slow
      // each call is (a sanitizer build).
      const calls = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post(gate.url, rpc('tools/call', { name: 'a__echo', arguments: { message: `m${i}` } }), s.headers)),
      );
      for (const call of calls) assert.equal(call.status, 200, call.text);
      await eventually(() => receiver.events().filter((e) => e.method === 'tools/call').length === 12, { what: '12 tools/call events delivered' });
      const stdout = await gate.waitForAudit((ev) => ev.filter((e) => e.method === 'tools/call').length === 12);
      await eventually(() => receiver.events().length === gate.auditEvents().length, { what: 'as many events delivered as audited' });
      assertSameEvents(receiver.events(), gate.auditEvents());
      assert.ok(stdout.length >= 14);
      assert.ok(receiver.accepted.length < receiver.events().length, `batched: ${receiver.accepted.length} POSTs for ${receiver.events().length} events`);
      const keys = new Set();
      for (const b of receiver.accepted) {
        assert.ok(Array.isArray(b.events) && b.events.length >= 1 && b.events.length <= 100);
        assert.match(b.headers['content-type'], /^application\/json/);
        assert.equal(b.headers['x-audit-team'], 'security');
        assert.equal(b.headers.authorization, 'Bearer receiver-token');
        assert.match(b.headers['idempotency-key'] ?? '', /^[0-9a-f]{16}-\d+$/);
        keys.add(b.headers['idempotency-key']);
      }
      assert.equal(keys.size, receiver.accepted.length, 'a key per batch');
      // gate counts a batch delivered when the receiver's answer is back, which may be a
      // moment after the receiver has the events.
      const delivered = async () =>
        metric((await get(`${gate.base}/metrics`)).text, 'gate_audit_webhook_events_total', { outcome: 'delivered' });
      await eventually(async () => (await delivered()) === receiver.events().length, { what: 'every delivered event counted' });
      const m = (await get(`${gate.base}/metrics`)).text;
      assert.equal(metric(m, 'gate_audit_webhook_events_total', { outcome: 'delivered' }), receiver.events().length);
      assert.equal(metric(m, 'gate_audit_events_dropped_total', {}), 0);
    } finally {
      await gate.stop();
      await receiver.stop();
    }
  });

  test('a receiver that is down, failing, slow, then up ends with every event exactly once', async () => {
    const port = await freePort(); // nothing listens there yet: connections are refused
    const gate = await start(`http://127.0.0.1:${port}/audit`);
    let receiver;
    try {
      const s = await openRawSession(gate.url);
      const ping = async () => assert.equal((await post(gate.url, rpc('ping'), s.headers)).status, 200);
      for (let i = 0; i < 10; i++) await ping();
      await gate.proc.stderr.waitFor(/audit webhook .*delivery failed/, { timeoutMs: 10_000 });
      receiver = await startAuditReceiver({ port, mode: 'fail' });
      await eventually(() => receiver.attempts.length >= 1, { what: 'a retry reaching the failing receiver', timeoutMs: 15_000 });
      for (let i = 0; i < 10; i++) await ping();
      receiver.setMode('slow');
      await eventually(() => receiver.attempts.some((a) => a.mode === 'slow'), { what: 'a retry reaching the slow receiver', timeoutMs: 15_000 });
      receiver.setMode('ok');
      for (let i = 0; i < 10; i++) await ping();
      await gate.waitForAudit((ev) => ev.filter((e) => e.method === 'ping').length === 30);
      await eventually(() => receiver.events().length === gate.auditEvents().length, { what: 'every audited event delivered', timeoutMs: 30_000 });
      assertSameEvents(receiver.events(), gate.auditEvents());
      const m = (await get(`${gate.base}/metrics`)).text;
      assert.ok(metric(m, 'gate_audit_webhook_events_total', { outcome: 'attempt_failed' }) >= 2);
      assert.equal(metric(m, 'gate_audit_events_dropped_total', {}), 0);
      const said = gate.stderrLines.filter((l) => /audit webhook .*delivery failed/.test(l));
      assert.equal(said.length, 1, `the outage is said once:\n${said.join('\n')}`);
      assert.ok(gate.stderrLines.some((l) => /audit webhook .*delivering again/.test(l)));
    } finally {
      await gate.stop();
      await receiver?.stop();
    }
  });

  test('a batch the receiver refuses is dropped and counted, and later batches go', async () => {
    const receiver = await startAuditReceiver({ mode: 'refuse' });
    const gate = await start(receiver.url);
    try {
      const s = await openRawSession(gate.url);
      await eventually(() => receiver.attempts.length >= 1, { what: 'the refused batch' });
      const refused = receiver.attempts[0].events.length;
      await eventually(async () => metric((await get(`${gate.base}/metrics`)).text, 'gate_audit_events_dropped_total', {}) === refused, {
        what: 'the refused events counted as dropped',
      });
      assert.ok(gate.stderrLines.some((l) => /audit webhook .*refused a batch \(HTTP 400\)/.test(l)));
      receiver.setMode('ok');
      assert.equal((await post(gate.url, rpc('ping'), s.headers)).status, 200);
      await eventually(() => receiver.events().some((e) => e.method === 'ping'), { what: 'the next batch delivered' });
      assert.equal(receiver.attempts.length, receiver.accepted.length + 1, 'the refused batch is not sent again');
    } finally {
      await gate.stop();
      await receiver.stop();
    }
  });

  test('SIGTERM delivers what the sink still holds before gate exits', async () => {
    const receiver = await startAuditReceiver();
    const gate = await start(receiver.url);
    try {
      const s = await openRawSession(gate.url);
      assert.equal((await post(gate.url, rpc('ping'), s.headers)).status, 200);
      const exited = gate.proc.exited;
      gate.kill('SIGTERM'); // within the sink's linger: the ping's event is still buffered
      const r = await exited;
      assert.equal(r.code, 0, gate.proc.stderr.text());
      assertSameEvents(receiver.events(), gate.auditEvents());
      assert.ok(receiver.events().some((e) => e.method === 'ping'));
    } finally {
      await gate.stop();
      await receiver.stop();
    }
  });
});

describe('audit usage', { timeout: 60_000 }, () => {
  test("usage numbers are audited as the upstream wrote them, on one line however it spaced them", async () => {
    const usage = '{ "units": 0.50,\n  "big": 18446744073709551617, "costUsd": 1.00000000000000000001, "exp": 1e400, "note": "a b\\n" }';
    const raw = await startRawUpstream({ result: `{"content":[{"type":"text","text":"measured"}],"_meta":{"usage":${usage}}}` });
    const gate = await startGate({ config: { upstreams: [{ id: 'raw', url: raw.url, namespace: 'r' }], audit: { sinks: [{ type: 'stdout' }] } } });
    try {
      const s = await openRawSession(gate.url);
      const call = await post(gate.url, rpc('tools/call', { name: 'r__echo', arguments: {} }), s.headers);
      assert.equal(call.status, 200, call.text);
      // Read as lines: Boost.JSON wrote 1e400 as Infinity, a line no JSON parser reads.
      await eventually(() => gate.stdoutLines.some((l) => l.includes('"method":"tools/call"')), { what: 'the call audited' });
      const line = gate.stdoutLines.find((l) => l.includes('"method":"tools/call"'));
      assert.ok(line.includes('"usage":{"units":0.50,"big":18446744073709551617,"costUsd":1.00000000000000000001,"exp":1e400,"note":"a b\\n"}'), line);
      assert.equal(JSON.parse(line).usage.note, 'a b\n');
    } finally {
      await gate.stop();
      await raw.stop();
    }
  });

  test("an upstream result's _meta.usage is carried verbatim into the audit event", async () => {
    const usage = { inputTokens: 1200, outputTokens: 34, costUsd: 0.0125, model: 'm-1' };
    const metered = await startMeteredServer(usage);
    const gate = await startGate({
      config: { upstreams: [{ id: 'meter', url: metered.url, namespace: 'm' }], audit: { sinks: [{ type: 'stdout' }] } },
    });
    try {
      const s = await openRawSession(gate.url);
      const call = await post(gate.url, rpc('tools/call', { name: 'm__metered', arguments: {} }), s.headers);
      assert.equal(call.status, 200, call.text);
      assert.deepEqual(call.json.result._meta, { usage });
      const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tools/call'));
      const e = events.find((x) => x.method === 'tools/call');
      assert.deepEqual(e.usage, usage);
      // As the SDK server wrote it (JSON.stringify): 0.0125, not Boost.JSON's 1.25E-2.
      const line = gate.stdoutLines.find((l) => l.includes('"method":"tools/call"'));
      assert.ok(line.includes(`"usage":${JSON.stringify(usage)}`), line);
      assert.equal(e.outcome, 'ok');
      assert.ok(events.filter((x) => x.method !== 'tools/call').every((x) => !('usage' in x)), 'only where an upstream reported it');
    } finally {
      await gate.stop();
      await metered.stop();
    }
  });
});
