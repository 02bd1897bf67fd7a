// Server-initiated traffic through gate, both directions: two server-everything upstreams
// (namespaces `a` and `b`) and SDK clients that declare sampling, elicitation and roots and
// answer them. Each client gets exactly its own sampling, elicitation, roots, progress, logs
// and subscription updates; cancellations and log levels reach the upstream.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { FULL_CLIENT_CAPABILITIES, closeRawSession, eventually, openRawSession, post, rpc, startEverything, startGate } from './lib/index.mjs';

/**
 * A client whose answers carry its own name, recording every server message it receives.
 */
async function bridgedClient(url, name) {
  const seen = { sampling: [], elicitation: [], roots: 0, logs: [], updated: [], listChanged: 0 };
  const client = new Client({ name, version: '0.0.0' }, { capabilities: FULL_CLIENT_CAPABILITIES });
  client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
    seen.sampling.push(req.params);
    return { role: 'assistant', content: { type: 'text', text: `sampled by ${name}` }, model: `model-${name}` };
  });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    seen.elicitation.push(req.params);
    return { action: 'accept', content: { name: `elicited by ${name}`, check: true, email: `${name}@example.com` } };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => {
    seen.roots += 1;
    return { roots: [{ uri: `file:///roots/${name}`, name: `root of ${name}` }] };
  });
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => seen.logs.push(n.params));
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => seen.updated.push(n.params.uri));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    seen.listChanged += 1;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, seen, name };
}

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

describe('bridged sessions: server-initiated traffic through gate', { timeout: 240_000 }, () => {
  let a;
  let b;
  let gate;
  let alice;
  let bob;

  before(async () => {
    [a, b] = await Promise.all([startEverything(), startEverything()]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev-a', url: a.url, namespace: 'a' },
          { id: 'ev-b', url: b.url, namespace: 'b' },
        ],
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    [alice, bob] = await Promise.all([bridgedClient(gate.url, 'alice'), bridgedClient(gate.url, 'bob')]);
  });

  after(async () => {
    for (const c of [alice, bob]) await c?.client.close().catch(() => {});
    await gate?.stop();
    await Promise.all([a?.stop(), b?.stop()]);
  });

  test('sampling goes to the calling client only, on the call stream, and its answer back', { timeout: 30_000 }, async () => {
    const [ra, rb] = await Promise.all([
      alice.client.callTool({ name: 'a__trigger-sampling-request', arguments: { prompt: 'from alice', maxTokens: 10 } }),
      bob.client.callTool({ name: 'b__trigger-sampling-request', arguments: { prompt: 'from bob', maxTokens: 10 } }),
    ]);
    assert.match(textOf(ra), /sampled by alice/);
    assert.doesNotMatch(textOf(ra), /bob/);
    assert.match(textOf(rb), /sampled by bob/);
    assert.doesNotMatch(textOf(rb), /alice/);
    assert.equal(alice.seen.sampling.length, 1);
    assert.equal(bob.seen.sampling.length, 1);
    assert.match(JSON.stringify(alice.seen.sampling[0].messages), /from alice/);
    assert.match(JSON.stringify(bob.seen.sampling[0].messages), /from bob/);
  });

  test('elicitation: the client answers, the upstream gets its content', { timeout: 30_000 }, async () => {
    const r = await alice.client.callTool({ name: 'b__trigger-elicitation-request', arguments: {} });
    assert.match(textOf(r), /elicited by alice/);
    assert.equal(alice.seen.elicitation.length, 1);
    assert.equal(bob.seen.elicitation.length, 0);
  });

  test('roots/list is asked of the calling client', { timeout: 30_000 }, async () => {
    const r = await bob.client.callTool({ name: 'a__get-roots-list', arguments: {} });
    assert.match(textOf(r), /file:\/\/\/roots\/bob/);
    assert.doesNotMatch(textOf(r), /alice/);
  });

  test('progress of a long-running call reaches its caller with the caller\'s token', { timeout: 30_000 }, async () => {
    const progress = [];
    const r = await alice.client.callTool(
      { name: 'a__trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    assert.match(textOf(r), /Long running operation completed/);
    assert.deepEqual(progress.map((p) => p.progress), [1, 2, 3]);
    assert.ok(progress.every((p) => p.total === 3));
  });

  test('concurrent calls of two clients on one upstream keep their ids apart', { timeout: 60_000 }, async () => {
    const calls = [];
    for (let i = 0; i < 5; i++) {
      calls.push(alice.client.callTool({ name: 'a__trigger-sampling-request', arguments: { prompt: `alice ${i}` } }));
      calls.push(bob.client.callTool({ name: 'a__trigger-sampling-request', arguments: { prompt: `bob ${i}` } }));
    }
    const results = await Promise.all(calls);
    results.forEach((r, i) => assert.match(textOf(r), i % 2 === 0 ? /sampled by alice/ : /sampled by bob/));
  });

  test('logging/setLevel propagates, and simulated logs reach only the client that asked', { timeout: 60_000 }, async () => {
    await alice.client.setLoggingLevel('debug');
    const before = bob.seen.logs.length;
    await alice.client.callTool({ name: 'a__toggle-simulated-logging', arguments: {} });
    try {
      // Logs outside any call arrive on alice's GET stream.
      await eventually(() => alice.seen.logs.some((l) => /-level message/.test(String(l.data))), { timeoutMs: 20_000 });
    } finally {
      await alice.client.callTool({ name: 'a__toggle-simulated-logging', arguments: {} });
    }
    assert.ok(bob.seen.logs.slice(before).every((l) => !/-level message/.test(String(l.data))), 'bob got none of alice\'s logs');
    // A level the spec does not know is refused by gate with -32602.
    await assert.rejects(alice.client.setLoggingLevel('verbose'), /level must be one of/);
  });

  test('resources/updated fans out to exactly the subscribed client', { timeout: 60_000 }, async () => {
    const { resources } = await alice.client.listResources();
    const uri = resources.find((r) => r.uri.startsWith('demo://resource/static/document/')).uri;
    await alice.client.subscribeResource({ uri });
    // Both upstreams list the same URIs; the subscription went to the one gate records as
    // the owner, and that upstream's updates are the ones to watch.
    const events = await gate.waitForAudit((evs) => evs.some((e) => e.method === 'resources/subscribe' && e.upstream));
    const owner = events.find((e) => e.method === 'resources/subscribe').upstream === 'ev-a' ? 'a' : 'b';
    const toggle = `${owner}__toggle-subscriber-updates`;
    await bob.client.callTool({ name: toggle, arguments: {} });
    await alice.client.callTool({ name: toggle, arguments: {} });
    try {
      await eventually(() => alice.seen.updated.includes(uri), { timeoutMs: 20_000 });
    } finally {
      await alice.client.callTool({ name: toggle, arguments: {} });
      await bob.client.callTool({ name: toggle, arguments: {} });
    }
    assert.deepEqual(bob.seen.updated, [], 'bob subscribed to nothing');
    await alice.client.unsubscribeResource({ uri });
  });

  test('a cancelled call is cancelled upstream', { timeout: 60_000 }, async () => {
    const abort = new AbortController();
    let sawProgress;
    const started = new Promise((r) => {
      sawProgress = r;
    });
    const call = alice.client.callTool(
      { name: 'b__trigger-long-running-operation', arguments: { duration: 30, steps: 30 } },
      undefined,
      { signal: abort.signal, onprogress: () => sawProgress() },
    );
    await started;
    abort.abort('changed my mind');
    await assert.rejects(call);
    // The cancellation found the call's upstream request and was delivered to ev-b.
    const events = await gate.waitForAudit((evs) =>
      evs.some((e) => e.method === 'notifications/cancelled' && e.upstream === 'ev-b' && e.outcome === 'ok'),
    );
    assert.ok(events.length > 0);
  });

  test('an answer to a request nobody asked is refused with 400', { timeout: 30_000 }, async () => {
    const session = await openRawSession(gate.url);
    const res = await post(gate.url, { jsonrpc: '2.0', id: 'gate-999999', result: {} }, session.headers);
    assert.equal(res.status, 400);
    assert.equal(res.json.error.code, -32600);
    assert.match(res.json.error.message, /no request with id "gate-999999"/);
    // Another session cannot answer alice's pending requests either: ids are per session.
    const ok = await post(gate.url, rpc('tools/list', {}), session.headers);
    assert.equal(ok.status, 200);
  });

  test('list_changed from an upstream reaches every connected client', { timeout: 60_000 }, async () => {
    const before = bob.seen.listChanged;
    // gzip-file-as-resource registers a session resource, and the upstream announces it.
    await alice.client.callTool({
      name: 'a__gzip-file-as-resource',
      arguments: { name: 'bridged.txt.gz', data: 'data:text/plain;base64,aGVsbG8=' },
    });
    await eventually(() => bob.seen.listChanged > before, { timeoutMs: 20_000 });
  });

  test('one bridged session per client and upstream, ended upstream when the client ends its session', { timeout: 60_000 }, async () => {
    const count = (re) => a.stdoutLines.filter((l) => re.test(l)).length;
    const opened = /Session initialized with ID/;
    const ended = /Received session termination request/;
    const [opened0, ended0] = [count(opened), count(ended)];
    const carol = await bridgedClient(gate.url, 'carol');
    await carol.client.callTool({ name: 'a__echo', arguments: { message: 'one' } });
    await carol.client.callTool({ name: 'a__get-sum', arguments: { a: 1, b: 2 } });
    await carol.client.setLoggingLevel('info');
    assert.equal(count(opened) - opened0, 1, 'carol has exactly one session at ev-a');
    await carol.client.transport.terminateSession();
    await eventually(() => count(ended) - ended0 === 1, { timeoutMs: 10_000 });
    await carol.client.close();
  });

  test('a connection that carried a streamed answer serves the next request', { timeout: 30_000 }, async () => {
    // The POST's answer becomes an event stream (progress first); the client may reuse the
    // connection afterwards like after any keep-alive answer. Closing it instead races the
    // client's next request ("other side closed").
    const session = await openRawSession(gate.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const send = (body) =>
      new Promise((resolve, reject) => {
        const req = http.request(
          gate.url,
          { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...session.headers } },
          (res) => {
            let text = '';
            res.on('data', (c) => (text += c));
            res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'], text, reused: req.reusedSocket }));
          },
        );
        req.on('error', reject);
        req.end(JSON.stringify(body));
      });
    try {
      const streamed = await send(
        rpc('tools/call', { name: 'a__trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 }, _meta: { progressToken: 'p1' } }),
      );
      assert.equal(streamed.status, 200);
      assert.match(streamed.type, /text\/event-stream/);
      assert.match(streamed.text, /notifications\/progress/);
      assert.match(streamed.text, /Long running operation completed/);
      const next = await send(rpc('tools/call', { name: 'a__echo', arguments: { message: 'again' } }));
      assert.equal(next.status, 200);
      assert.equal(next.reused, true, 'the same connection carried the next request');
      assert.match(next.text, /Echo: again/);
    } finally {
      agent.destroy();
      await closeRawSession(gate.url, session);
    }
  });

  test('a bridged session opened by logging/setLevel still declares the client\'s capabilities', { timeout: 30_000 }, async () => {
    const dave = await bridgedClient(gate.url, 'dave');
    try {
      await dave.client.setLoggingLevel('warning'); // opens dave's bridges before any call
      const r = await dave.client.callTool({ name: 'a__trigger-sampling-request', arguments: { prompt: 'after setLevel' } });
      assert.match(textOf(r), /sampled by dave/);
    } finally {
      await dave.client.close();
    }
  });
});
