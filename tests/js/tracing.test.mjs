// Trace export with the real binary and a receiver that decodes every export with the official
// OTLP definitions (@opentelemetry/otlp-transformer's protobufjs root, tests/js/lib/otlp-receiver):
// one server span per MCP request named by its method, with the spec's attributes; one client
// span per upstream call named `upstream <id>`, the parent of what the upstream receives;
// parent-based sampling; export batched off the request path and flushed at SIGTERM; and the
// tracing section changing live on reload.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, connectClient, eventually, expectMcpError, openRawSession, post, rpc, startEverything, startGate, startIdp, startOtlpReceiver, startParamServer, startRecordingProxy } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';
const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

describe('traces', { timeout: 180_000 }, () => {
  let everything;
  let proxy;
  let idp;
  before(async () => {
    everything = await startEverything();
    proxy = await startRecordingProxy(everything.url);
    idp = await startIdp();
  });
  after(async () => {
    await proxy?.stop?.();
    await idp?.stop();
    await everything?.stop();
  });

  const gateWith = (tracing, extra = {}) =>
    startGate({ config: { upstreams: [{ id: 'ev', url: proxy.url, namespace: 'ev' }], tracing, ...extra } });

  test('a server span per request and a client span per upstream call, with the attributes of the spec', async () => {
    const receiver = await startOtlpReceiver();
    const gate = await gateWith(
      { otlpEndpoint: receiver.url, serviceName: 'gate-under-test' },
      {
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        policy: { rules: [{ id: 'alice-echo', subjects: { subs: ['alice'] }, allow: [{ server: 'ev', methods: ['tools/call'], names: ['echo'] }] }] },
      },
    );
    const token = await idp.mint({ aud: RESOURCE, sub: 'alice' });
    const client = await connectClient(gate.url, {
      requestInit: { headers: { authorization: `Bearer ${token}`, traceparent: `00-${TRACE}-${CALLER_SPAN}-01` } },
    });
    try {
      const before = proxy.seen.length;
      await client.callTool({ name: 'ev__echo', arguments: { message: 'traced' } });
      const denied = await expectMcpError(() => client.getPrompt({ name: 'ev__simple-prompt' }));
      assert.equal(denied.code, -32042);

      const spans = await receiver.waitForSpans((all) => all.some((s) => s.name === 'prompts/get') && all.some((s) => s.name === 'upstream ev' && s.attributes['gate.outcome'] === 'ok'));
      const call = spans.find((s) => s.name === 'tools/call');
      assert.ok(call, JSON.stringify(spans.map((s) => s.name)));
      assert.equal(call.kind, 'SPAN_KIND_SERVER');
      assert.equal(call.traceId, TRACE, 'the caller\'s trace continues');
      assert.equal(call.parentSpanId, CALLER_SPAN);
      assert.deepEqual(call.attributes, {
        'mcp.method': 'tools/call',
        'mcp.name': 'ev__echo',
        'gate.upstream': 'ev',
        'gate.outcome': 'ok',
        'gate.policy.decision': 'allow',
        'gate.policy.rule': 'alice-echo',
        'enduser.id': 'alice',
      });
      assert.ok(call.endTimeUnixNano >= call.startTimeUnixNano && call.startTimeUnixNano > 0n);
      assert.equal(call.resource['service.name'], 'gate-under-test');
      assert.equal(call.scope.name, 'gate');

      const upstream = spans.find((s) => s.name === 'upstream ev' && s.parentSpanId === call.spanId);
      assert.ok(upstream, 'the call\'s client span is a child of its server span');
      assert.equal(upstream.kind, 'SPAN_KIND_CLIENT');
      assert.equal(upstream.traceId, TRACE);
      assert.equal(upstream.attributes['gate.outcome'], 'ok');
      assert.ok(upstream.startTimeUnixNano >= call.startTimeUnixNano && upstream.endTimeUnixNano <= call.endTimeUnixNano);
      // What the upstream received continues the client span.
      const sent = proxy.seen.slice(before).find((r) => r.rpcMethod === 'tools/call');
      assert.equal(sent.headers.traceparent, `00-${TRACE}-${upstream.spanId}-01`);

      const refused = spans.find((s) => s.name === 'prompts/get');
      assert.equal(refused.attributes['gate.outcome'], 'denied');
      assert.equal(refused.attributes['gate.policy.decision'], 'deny');
      assert.equal(refused.status.code, 'STATUS_CODE_ERROR');
      assert.ok(!spans.some((s) => s.name === 'upstream ev' && s.parentSpanId === refused.spanId), 'a denied request calls no upstream');

      for (const r of receiver.requests) {
        assert.equal(r.path, '/v1/traces', 'a bare base URL gets /v1/traces');
        assert.equal(r.ok, true, r.error);
        assert.deepEqual(r.unknownFields, []);
      }
    } finally {
      await client.close().catch(() => {});
      await gate.stop();
      await receiver.stop();
    }
  });

  test('parent-based sampling: the caller decides, sampleRatio decides for traces gate roots', async () => {
    const receiver = await startOtlpReceiver();
    const gate = await gateWith({ otlpEndpoint: receiver.url, sampleRatio: 0 });
    try {
      const rooted = await connectClient(gate.url);
      await rooted.callTool({ name: 'ev__echo', arguments: { message: 'not sampled' } });
      const unsampled = await connectClient(gate.url, { requestInit: { headers: { traceparent: `00-${'1'.repeat(32)}-${CALLER_SPAN}-00` } } });
      await unsampled.callTool({ name: 'ev__echo', arguments: { message: 'caller said no' } });
      const sampled = await connectClient(gate.url, { requestInit: { headers: { traceparent: `00-${'2'.repeat(32)}-${CALLER_SPAN}-01` } } });
      await sampled.callTool({ name: 'ev__echo', arguments: { message: 'caller said yes' } });
      const spans = await receiver.waitForSpans((all) => all.some((s) => s.name === 'tools/call'));
      await sampled.close();
      await unsampled.close();
      await rooted.close();
      await gate.stop(); // flushes: anything else recorded would be exported now
      const all = receiver.spans();
      assert.ok(spans.length > 0);
      assert.ok(all.every((s) => s.traceId === '2'.repeat(32)), `only the sampled caller's trace: ${JSON.stringify(all.map((s) => [s.name, s.traceId]))}`);
    } finally {
      await gate.stop();
      await receiver.stop();
    }
  });

  test('export is batched, and SIGTERM flushes what is buffered before gate exits', async () => {
    const receiver = await startOtlpReceiver();
    const gate = await gateWith({ otlpEndpoint: receiver.url });
    try {
      const client = await connectClient(gate.url);
      for (let i = 0; i < 5; i++) await client.callTool({ name: 'ev__echo', arguments: { message: `m${i}` } });
      await client.close();
      const exited = gate.proc.exited;
      gate.kill('SIGTERM'); // within the export's 1 s linger
      assert.equal((await exited).code, 0, gate.proc.stderr.text());
      const calls = receiver.spans().filter((s) => s.name === 'tools/call');
      assert.equal(calls.length, 5);
      assert.ok(receiver.requests.length < receiver.spans().length, `batched: ${receiver.requests.length} exports for ${receiver.spans().length} spans`);
    } finally {
      await gate.stop();
      await receiver.stop();
    }
  });

  test('a reload changes the tracing section live', async () => {
    const first = await startOtlpReceiver();
    const second = await startOtlpReceiver();
    const config = (tracing) => ({ upstreams: [{ id: 'ev', url: proxy.url, namespace: 'ev' }], tracing });
    const gate = await startGate({ config: config({ otlpEndpoint: first.url, serviceName: 'before' }) });
    try {
      const client = await connectClient(gate.url);
      await client.callTool({ name: 'ev__echo', arguments: { message: 'one' } });
      await first.waitForSpans((all) => all.some((s) => s.name === 'tools/call'));
      await gate.reloaded(config({ otlpEndpoint: `${second.url}/v1/traces`, serviceName: 'after' }));
      // The io thread applies the reload before the supervisor has the new sink up (one message
      // later): a call in between is still exported where it was, as 'before'. Called until
      // one is exported to the new endpoint.
      await eventually(async () => {
        await client.callTool({ name: 'ev__echo', arguments: { message: 'two' } });
        return second.spans().some((s) => s.name === 'tools/call');
      }, { timeoutMs: 15_000, everyMs: 100, what: 'a span at the new endpoint' });
      const spans = second.spans();
      assert.ok(spans.every((s) => s.resource['service.name'] === 'after'));
      assert.ok(first.spans().every((s) => s.resource['service.name'] === 'before'));
      await client.close();
    } finally {
      await gate.stop();
      await first.stop();
      await second.stop();
    }
  });

  test("a message's _meta trace context starts the trace and goes upstream as gate's span continues it", async () => {
    const upstream = await startParamServer();
    const gate = await startGate({ config: { upstreams: [{ id: 'p', url: upstream.url, namespace: 'p', protocol: '2026-07-28' }] } });
    const session = await openRawSession(gate.url);
    try {
      const OTHER = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
      const call = async (meta, headers = {}) => {
        const r = await post(gate.url, rpc('tools/call', { name: 'p__plain', arguments: { text: 'x' }, _meta: meta }), { ...session.headers, ...headers });
        assert.deepEqual(r.json.result?.content, [{ type: 'text', text: 'plain: x' }], JSON.stringify(r.json));
        return upstream.requests.filter((q) => q.body.method === 'tools/call').at(-1);
      };
      const sent = `00-${TRACE}-${CALLER_SPAN}-01`;
      // Only in _meta: the trace continues there, header and _meta alike name gate's span.
      let seen = await call({ traceparent: sent, tracestate: 'vendor=1', baggage: 'k=v' });
      const header = seen.headers.traceparent;
      assert.match(header, new RegExp(`^00-${TRACE}-[0-9a-f]{16}-01$`));
      assert.notEqual(header, sent, "gate's own span, not the caller's");
      assert.equal(seen.body.params._meta.traceparent, header);
      assert.equal(seen.body.params._meta.tracestate, 'vendor=1');
      assert.equal(seen.body.params._meta.baggage, 'k=v');
      // Both: the message's wins over the HTTP client's header.
      seen = await call({ traceparent: sent }, { traceparent: `00-${OTHER}-${CALLER_SPAN}-01` });
      assert.match(seen.headers.traceparent, new RegExp(`^00-${TRACE}-`));
      // A malformed one is no context: the header's trace goes on, and _meta still gets gate's.
      seen = await call({ traceparent: 'not-a-traceparent' }, { traceparent: `00-${OTHER}-${CALLER_SPAN}-01` });
      assert.match(seen.headers.traceparent, new RegExp(`^00-${OTHER}-`));
      assert.equal(seen.body.params._meta.traceparent, seen.headers.traceparent);
      // None in _meta: gate adds none there.
      seen = await call(undefined);
      assert.equal(seen.body.params._meta?.traceparent, undefined);
    } finally {
      await closeRawSession(gate.url, session);
      await gate.stop();
      await upstream.stop();
    }
  });
});
