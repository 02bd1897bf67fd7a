// gate on several io threads (--io-threads, docs/io-threads.md), against real server-everything
// upstreams and real SDK clients: sessions spread over the threads and each is answered on the
// thread that opened it, however the client's connections are pooled; sampling and
// elicitation reach their own client; an upstream's list news reaches the clients of every
// thread; /metrics counts every thread's sessions; a reload and the drain reach every thread.
// What one thread's fetched tools list said judges every thread's calls (App-only tools).
// Users' accounts and auth.ema's ledger across threads: io-threads-accounts.test.mjs.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import * as z from 'zod';

import {
  FULL_CLIENT_CAPABILITIES, connectClient, eventually, initializeRequest, metric, rawRequest, runGate, startEverything, startGate, threadOf,
} from './lib/index.mjs';
import { startStatelessServer } from './lib/stateless-server.mjs';

/** A client that answers sampling and elicitation with its own name and counts list news. */
async function namedClient(url, name) {
  const seen = { listChanged: 0 };
  const client = new Client({ name, version: '0.0.0' }, { capabilities: FULL_CLIENT_CAPABILITIES });
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: 'assistant', content: { type: 'text', text: `sampled by ${name}` }, model: `model-${name}`,
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept', content: { name: `elicited by ${name}`, check: true, email: `${name}@example.com` },
  }));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    seen.listChanged += 1;
  });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, seen, name, transport };
}

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

/** Nanoseconds each of the process's threads ran, by thread name (/proc/<pid>/task/<tid>/schedstat). */
function threadTimes(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const ran = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      out[name] = (out[name] ?? 0) + ran;
    } catch {
      // a thread that ended meanwhile
    }
  }
  return out;
}

describe('io threads', { timeout: 240_000 }, () => {
  let ev;
  let gate;
  const clients = [];

  before(async () => {
    ev = await startEverything();
    gate = await startGate({
      config: {
        server: { instructions: { text: 'Two threads.', fromUpstreams: true } },
        upstreams: [{ id: 'ev', url: ev.url, namespace: 'ev' }],
        audit: { sinks: [{ type: 'stdout' }] },
      },
      args: ['--io-threads', '2'],
    });
    await gate.proc.stderr.waitFor(/upstream ev ready/, { timeoutMs: 20_000 }); // the first thread's handshake
    for (let i = 0; i < 8; ++i) clients.push(await namedClient(gate.url, `c${i}`));
  });

  after(async () => {
    for (const c of clients) await c.client.close().catch(() => {});
    await gate?.stop(); // SIGTERM: every thread drains, exit code 0
    await ev?.stop();
  });

  test("every thread presents the upstream's instructions its first handshake gave, before any call there", async () => {
    // Fresh connections go to the threads in turn; only the first thread has shaken hands with
    // the upstream, so the second presents what the first heard.
    for (let i = 0; i < 4; ++i) {
      const r = await rawRequest(gate.url, { body: JSON.stringify(initializeRequest()) });
      assert.equal(r.status, 200);
      const text = r.json?.result?.instructions ?? '';
      assert.ok(text.startsWith('Two threads.'), text.slice(0, 80));
      assert.ok(text.includes('Upstream ev'), `connection ${i}: ${text.slice(0, 200)}`);
      const ended = await rawRequest(gate.url, { method: 'DELETE', headers: { 'mcp-session-id': r.headers['mcp-session-id'] } });
      assert.equal(ended.status, 200); // the other tests count the clients' sessions only
    }
  });

  test('sessions spread over both threads, and every call is answered in its own session', async () => {
    const before = threadTimes(gate.pid);
    assert.ok('gate-io-1' in before, `a thread named gate-io-1: ${JSON.stringify(Object.keys(before))}`);
    // The SDK's clients share Node's pool of connections: a connection carries the requests of
    // several sessions, and moves to each one's thread as its requests come.
    await Promise.all(clients.map(async (c) => {
      for (let i = 0; i < 60; ++i) {
        const r = await c.client.callTool({ name: 'ev__echo', arguments: { message: `${c.name}-${i}` } });
        assert.match(textOf(r), new RegExp(`${c.name}-${i}$`));
      }
    }));
    const afterwards = threadTimes(gate.pid);
    for (const name of ['gate', 'gate-io-1'])
      assert.ok(afterwards[name] - (before[name] ?? 0) > 0, `${name} answered requests: ${JSON.stringify(afterwards)}`);
    // Each session's id names one thread; eight sessions fall on both (1 in 128 they would not,
    // were the ids not spread: that is what this checks).
    const ids = clients.map((c) => c.transport.sessionId);
    assert.equal(new Set(ids).size, clients.length);
  });

  test('sampling and elicitation reach the client whose call asked, whichever thread holds it', async () => {
    const results = await Promise.all(clients.map((c) =>
      c.client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: `from ${c.name}`, maxTokens: 5 } })));
    results.forEach((r, i) => assert.match(textOf(r), new RegExp(`sampled by c${i}\\b`)));
    const elicited = await Promise.all(clients.slice(0, 4).map((c) =>
      c.client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} })));
    elicited.forEach((r, i) => assert.match(textOf(r), new RegExp(`elicited by c${i}\\b`)));
  });

  test("an upstream's list news reaches the clients of every thread", { timeout: 60_000 }, async () => {
    const before = clients.map((c) => c.seen.listChanged);
    await clients[0].client.callTool({
      name: 'ev__gzip-file-as-resource',
      arguments: { name: 'threads.txt.gz', data: 'data:text/plain;base64,aGVsbG8=' },
    });
    await eventually(() => clients.every((c, i) => c.seen.listChanged > before[i]), { timeoutMs: 20_000, what: 'every client told' });
  });

  test('/metrics counts the sessions of every thread', async () => {
    const text = await (await fetch(`${gate.base}/metrics`)).text();
    assert.equal(metric(text, 'gate_downstream_sessions', {}), clients.length);
    const calls = metric(text, 'gate_requests_total', { method: 'tools/call', outcome: 'ok' });
    assert.ok(calls >= clients.length * 60, `every thread's calls counted: ${calls}`);
    // A session ended on another connection is ended on its own thread, and counted so.
    const last = clients.pop();
    await last.transport.terminateSession();
    await last.client.close();
    const after = await (await fetch(`${gate.base}/metrics`)).text();
    assert.equal(metric(after, 'gate_downstream_sessions', {}), clients.length);
  });

  test('a reload reaches every thread', async () => {
    await gate.reloaded({ upstreams: [{ id: 'ev', url: ev.url, namespace: 'ev2' }], audit: { sinks: [{ type: 'stdout' }] } });
    // Every session, on either thread, now calls by the new namespace.
    await Promise.all(clients.map(async (c) => {
      await eventually(async () => {
        const r = await c.client.callTool({ name: 'ev2__echo', arguments: { message: 'renamed' } }).catch(() => null);
        return r && /renamed/.test(textOf(r));
      }, { timeoutMs: 10_000, what: `${c.name} on the reloaded document` });
    }));
  });
});

describe('io threads: server.sessions bounds the process', () => {
  test("a caller's share is counted across the threads, and its own idle session makes room", async () => {
    const ev = await startEverything();
    const gate = await startGate({
      config: { upstreams: [{ id: 'ev', url: ev.url, namespace: 'ev' }], server: { sessions: { max: 100, perPrincipal: 3 } } },
      args: ['--io-threads', '2'],
    });
    try {
      // Each on a connection of its own: the first thread hands each to the next thread in turn.
      const ids = [];
      for (let i = 0; i < 6; ++i) {
        const r = await rawRequest(gate.url, { body: JSON.stringify(initializeRequest()) });
        assert.equal(r.status, 200, r.text);
        ids.push(r.headers['mcp-session-id']);
      }
      assert.deepEqual(new Set(ids.map((id) => threadOf(id, 2))), new Set([0, 1]), 'sessions on both threads');
      const text = await (await fetch(`${gate.base}/metrics`)).text();
      assert.equal(metric(text, 'gate_downstream_sessions', {}), 3, 'three in the process, not three (or two) per thread');
      assert.equal(metric(text, 'gate_session_evictions_total', { reason: 'principal_share' }), 3);
    } finally {
      await gate.stop();
      await ev.stop();
    }
  });
});

describe('io threads: the command line', () => {
  test('without --io-threads, one per core gate may run on', async (t) => {
    // A CPU quota on this test's cgroup would lower the count (a unit test covers it); the
    // machines that run this suite have none, and where one does the count is not checked.
    const own = readFileSync('/proc/self/cgroup', 'utf8').match(/^0::(.*)$/m)?.[1];
    const quota = own ? (() => { try { return readFileSync(`/sys/fs/cgroup${own}/cpu.max`, 'utf8'); } catch { return 'max'; } })() : 'max';
    if (!quota.startsWith('max')) return t.skip(`a CPU quota here: ${quota.trim()}`);
    const g = await startGate({ config: { upstreams: [{ id: 'none', url: 'http://127.0.0.1:1/mcp' }] }, threads: 'default' });
    t.after(() => g.stop());
    const cores = availableParallelism(); // the affinity's CPUs, as gate reads them
    if (cores > 1) await g.proc.stderr.waitFor(new RegExp(`\\b${cores} io threads`), { timeoutMs: 5_000 }); // said at start
    // Each thread beyond the first names itself once it runs (until then it has the process's
    // name): counted until they all have.
    const named = () => Object.keys(threadTimes(g.pid)).filter((n) => /^gate-io-\d+$/.test(n));
    await eventually(() => named().length + 1 === cores, { timeoutMs: 5_000, what: `${cores} io threads` });
  });

  test('--io-threads takes 1 to 256', async () => {
    for (const bad of ['0', '257', 'two']) {
      const r = await runGate(['--io-threads', bad, '--validate']);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /--io-threads/);
    }
  });
});

describe('io threads: what a tools list said', () => {
  test("what one thread's fetched list said of a tool judges the calls of every thread", async (t) => {
    // An App-only tool: a client that runs no views is refused it. The list is fetched once,
    // on the thread of the first session that asks; the other thread's session is served the
    // same list from the shared cache and fetches nothing, yet its call is refused as well.
    let calls = 0;
    const app = await startStatelessServer('app', { capabilities: { tools: {} } }, (server) => {
      server.registerTool('poll', { description: 'for the view', inputSchema: { q: z.string().optional() }, _meta: { ui: { visibility: ['app'] } } }, async () => {
        calls += 1;
        return { content: [{ type: 'text', text: 'polled' }] };
      });
      server.registerTool('info', { description: 'for the agent', inputSchema: { q: z.string().optional() } }, async () => ({
        content: [{ type: 'text', text: 'info' }],
      }));
    });
    t.after(() => app.stop());
    const g = await startGate({ config: { upstreams: [{ id: 'app', url: app.url, namespace: 'app' }] }, args: ['--io-threads', '2'] });
    t.after(() => g.stop());
    const byThread = new Map();
    const spare = [];
    t.after(async () => {
      for (const c of [...byThread.values(), ...spare]) await c.close().catch(() => {});
    });
    while (byThread.size < 2 && spare.length < 16) {
      const c = await connectClient(g.url); // no ui extension: one client profile for all
      const thread = threadOf(c.transport.sessionId, 2);
      if (byThread.has(thread)) spare.push(c);
      else byThread.set(thread, c);
    }
    assert.equal(byThread.size, 2, 'a session on each thread');
    const [first, second] = [byThread.get(0), byThread.get(1)];
    const names = (c) => c.listTools().then((r) => r.tools.map((x) => x.name).sort());
    assert.deepEqual(await names(first), ['app__info']);
    assert.deepEqual(await names(second), ['app__info'], 'served from the cache the first filled');
    for (const c of [second, first]) {
      const refused = await c.callTool({ name: 'app__poll', arguments: {} }).catch((e) => e);
      assert.equal(refused.code, -32602, String(refused));
      assert.match(refused.message, /is for MCP Apps views only/);
    }
    assert.equal(calls, 0, 'neither thread sent the call');
  });
});

describe('io threads: a client of each upstream made at its first use on a thread', () => {
  test("no thread but the first makes one to probe or to keep a level; a call makes it, with the session's level", async (t) => {
    // Each upstream records every message gate sends it.
    const seen = { a: [], b: [] };
    const start = (name) =>
      startStatelessServer(name, { capabilities: { tools: {}, logging: {} } }, (server) => {
        server.registerTool('echo', { description: 'echoes', inputSchema: { text: z.string() } }, async ({ text }) => ({
          content: [{ type: 'text', text }],
        }));
      }, { before: async (m) => seen[name].push(m) });
    const a = await start('a');
    const b = await start('b');
    t.after(() => Promise.all([a.stop(), b.stop()]));
    const g = await startGate({
      config: {
        server: { introspection: { enabled: true } },
        upstreams: [{ id: 'a', url: a.url, namespace: 'a' }, { id: 'b', url: b.url, namespace: 'b' }],
      },
      args: ['--io-threads', '2'],
    });
    t.after(() => g.stop());
    await g.proc.stderr.waitFor(/upstream b ready/, { timeoutMs: 20_000 });
    await g.proc.stderr.waitFor(/upstream a ready/, { timeoutMs: 20_000 });
    const said = (name, method) => seen[name].filter((m) => m.method === method);
    assert.equal(said('a', 'initialize').length, 1, "the first thread's warm-up");

    // /api/federation on fresh connections, which go to the threads in turn, each answered
    // there: its health is one round for the process, through the first thread's clients.
    const views = await Promise.all([0, 1, 2, 3].map(() => rawRequest(`${g.base}/api/federation`, { method: 'GET' })));
    for (const v of views) {
      assert.equal(v.status, 200, v.text);
      assert.deepEqual(JSON.parse(v.text).upstreams.map((u) => [u.id, u.health?.status]), [['a', 'up'], ['b', 'up']]);
    }
    for (const name of ['a', 'b']) {
      assert.equal(said(name, 'initialize').length, 1, `${name}: no other thread opened a session to probe`);
      assert.equal(said(name, 'ping').length, 1, `${name}: pinged once for the four views`);
    }

    // A session on the second thread sets a level: no client is made for it there; its first
    // call to b makes b's, whose session for it opens with that level.
    const spare = [];
    let second;
    while (!second && spare.length < 16) {
      const c = await connectClient(g.url);
      if (threadOf(c.transport.sessionId, 2) === 1) second = c;
      else spare.push(c);
    }
    t.after(async () => {
      for (const c of [second, ...spare]) await c?.close().catch(() => {});
    });
    assert.ok(second, 'a session on the second thread');
    await second.setLoggingLevel('error');
    assert.equal(said('b', 'initialize').length, 1, 'setLevel made no client of b there');
    const r = await second.callTool({ name: 'b__echo', arguments: { text: 'made now' } });
    assert.equal(r.content[0].text, 'made now');
    await eventually(() => said('b', 'logging/setLevel').length > 0, { what: "b told the session's level" });
    assert.deepEqual(said('b', 'logging/setLevel').map((m) => m.params.level), ['error']);
    assert.equal(said('a', 'logging/setLevel').length, 0, 'a, never called from there, is told nothing yet');
  });
});
