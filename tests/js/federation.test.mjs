// Two server-everything upstreams behind gate, namespaces `a` and `b` (separator `__`):
// merged and paged lists, routed calls, gateway-minted errors, HTTP refusals, health,
// metrics, and an upstream dying mid-test.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  FULL_CLIENT_CAPABILITIES,
  LIST_KINDS,
  closeRawSession,
  connectClient,
  expectMcpError,
  fetchAllLists,
  get,
  itemKey,
  listAll,
  openRawSession,
  post,
  rawRequest,
  rpc,
  startEverything,
  startGate,
} from './lib/index.mjs';

const SEP = '__';
const MAX_BODY = 1048576;

const upstreamsConfig = (a, b, extra = {}) => ({
  upstreams: [
    { id: 'ev-a', url: a.url, namespace: 'a', ...extra },
    { id: 'ev-b', url: b.url, namespace: 'b', ...extra },
  ],
});

const names = (kind, items) => items.map((i) => itemKey(kind, i));
const sorted = (xs) => [...xs].sort();
const withPrefix = (ns, xs) => xs.map((x) => `${ns}${SEP}${x}`);

/** Splits namespaced names into { a: [...], b: [...], other: [...] } (prefix stripped). */
function byNamespace(list) {
  const out = { a: [], b: [], other: [] };
  for (const n of list) {
    const m = /^([a-z]+)__(.+)$/.exec(n);
    if (m && (m[1] === 'a' || m[1] === 'b')) out[m[1]].push(m[2]);
    else out.other.push(n);
  }
  return out;
}

const isSubset = (xs, ys) => xs.every((x) => ys.includes(x));

/**
 * Checks a merged federation against what each upstream lists directly.
 * `direct` = { a: {bare, full}, b: {bare, full} } from fetchAllLists.
 * Tools: server-everything registers some tools only for clients that declare roots /
 * sampling / elicitation, and which of those gate's upstream session declares is gate's
 * choice, so each namespace's tools must lie between the bare and the full direct list.
 * Prompts, resources and templates do not depend on capabilities: exact.
 */
function assertMerged(lists, direct) {
  const tools = names('tools', lists.tools);
  assert.equal(new Set(tools).size, tools.length, `duplicate tool names: ${tools}`);
  const t = byNamespace(tools);
  assert.deepEqual(t.other, [], 'every tool is namespaced a__ or b__');
  for (const ns of ['a', 'b']) {
    const lo = names('tools', direct[ns].bare.tools);
    const hi = names('tools', direct[ns].full.tools);
    assert.ok(isSubset(lo, t[ns]), `${ns}: missing tools ${lo.filter((x) => !t[ns].includes(x))}`);
    assert.ok(isSubset(t[ns], hi), `${ns}: tools not listed upstream: ${t[ns].filter((x) => !hi.includes(x))}`);
  }
  assert.deepEqual(sorted(t.a), sorted(t.b), 'both identical upstreams contribute the same tools');
  assert.equal(tools.length, t.a.length + t.b.length);

  const prompts = names('prompts', lists.prompts);
  assert.deepEqual(
    sorted(prompts),
    sorted([...withPrefix('a', names('prompts', direct.a.bare.prompts)), ...withPrefix('b', names('prompts', direct.b.bare.prompts))]),
    'prompts: every upstream prompt exactly once per namespace',
  );

  // Resource URIs are never rewritten; both upstreams list the same URIs, and the merge
  // keeps one entry per upstream listing.
  for (const kind of ['resources', 'resourceTemplates']) {
    const got = names(kind, lists[kind]);
    const want = [...names(kind, direct.a.bare[kind]), ...names(kind, direct.b.bare[kind])];
    assert.deepEqual(sorted(got), sorted(want), `${kind}: merged list = both upstreams' lists, URIs unchanged`);
  }
}

describe('federation: two upstreams, namespaces a and b', { timeout: 300_000 }, () => {
  let A;
  let B;
  let gate;
  let paged;
  let client;
  let pagedClient;
  let directA;
  let direct;

  before(async () => {
    [A, B] = await Promise.all([startEverything(), startEverything()]);
    const [aBare, aFull, bBare, bFull] = await Promise.all([
      fetchAllLists(A.url),
      fetchAllLists(A.url, FULL_CLIENT_CAPABILITIES),
      fetchAllLists(B.url),
      fetchAllLists(B.url, FULL_CLIENT_CAPABILITIES),
    ]);
    direct = { a: { bare: aBare, full: aFull }, b: { bare: bBare, full: bFull } };
    gate = await startGate({ config: upstreamsConfig(A, B) });
    paged = await startGate({ config: { ...upstreamsConfig(A, B), routing: { pageSize: 5 } } });
    client = await connectClient(gate.url);
    pagedClient = await connectClient(paged.url);
    directA = await connectClient(A.url);
  });

  after(async () => {
    for (const c of [client, pagedClient, directA]) await c?.close().catch(() => {});
    await Promise.all([gate?.stop(), paged?.stop()]);
    await Promise.all([A?.stop(), B?.stop()]);
  });

  test('lists merge both upstreams, every name namespaced exactly once', { timeout: 30_000 }, async () => {
    const lists = {};
    for (const kind of LIST_KINDS) lists[kind] = (await listAll(client, kind)).items;
    assertMerged(lists, direct);
  });

  test('list entries are the upstream entries with only the name rewritten', { timeout: 30_000 }, async () => {
    const { items: tools } = await listAll(client, 'tools');
    for (const ns of ['a', 'b']) {
      const viaGate = tools.find((t) => t.name === `${ns}${SEP}echo`);
      const up = direct[ns].bare.tools.find((t) => t.name === 'echo');
      assert.ok(viaGate, `${ns}__echo listed`);
      assert.deepEqual({ ...viaGate, name: 'echo' }, up);
    }
    const { items: prompts } = await listAll(client, 'prompts');
    const viaGate = prompts.find((p) => p.name === `a${SEP}completable-prompt`);
    assert.deepEqual({ ...viaGate, name: 'completable-prompt' }, direct.a.bare.prompts.find((p) => p.name === 'completable-prompt'));
  });

  test('paged lists (pageSize 5) hold the same items across all pages', { timeout: 30_000 }, async () => {
    const lists = {};
    for (const kind of LIST_KINDS) {
      const { items, pages } = await listAll(pagedClient, kind);
      lists[kind] = items;
      assert.equal(pages, Math.max(1, Math.ceil(items.length / 5)), `${kind}: ${items.length} items in ${pages} pages of 5`);
      const all = (await listAll(client, kind)).items;
      assert.deepEqual(sorted(names(kind, items)), sorted(names(kind, all)), `${kind}: paged = unpaged`);
    }
    assert.ok(lists.tools.length > 5, 'tools span several pages');
    assertMerged(lists, direct);
  });

  test('each page holds at most pageSize items', { timeout: 30_000 }, async () => {
    let res = await pagedClient.listTools({});
    let n = 0;
    for (;;) {
      assert.ok(res.tools.length <= 5, `page of ${res.tools.length}`);
      if (res.nextCursor === undefined) break;
      assert.equal(res.tools.length, 5, 'only the last page may be short');
      assert.ok(++n < 100);
      res = await pagedClient.listTools({ cursor: res.nextCursor });
    }
  });

  test('tools/call routes by namespace and returns the upstream result unchanged', { timeout: 30_000 }, async () => {
    for (const ns of ['a', 'b']) {
      const args = { message: `hello from ${ns}` };
      const got = await client.callTool({ name: `${ns}${SEP}echo`, arguments: args });
      assert.deepEqual(got, await directA.callTool({ name: 'echo', arguments: args }));
      const sum = await client.callTool({ name: `${ns}${SEP}get-sum`, arguments: { a: 2, b: 40 } });
      assert.deepEqual(sum, await directA.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }));
    }
  });

  test('prompts/get routes by namespace', { timeout: 30_000 }, async () => {
    for (const ns of ['a', 'b']) {
      assert.deepEqual(
        await client.getPrompt({ name: `${ns}${SEP}args-prompt`, arguments: { city: 'Oslo', state: ns } }),
        await directA.getPrompt({ name: 'args-prompt', arguments: { city: 'Oslo', state: ns } }),
      );
      assert.deepEqual(
        await client.getPrompt({ name: `${ns}${SEP}simple-prompt` }),
        await directA.getPrompt({ name: 'simple-prompt' }),
      );
    }
  });

  test('resources/read of every listed URI returns the upstream contents', { timeout: 30_000 }, async () => {
    const { items } = await listAll(client, 'resources');
    const uris = [...new Set(items.map((r) => r.uri))];
    assert.ok(uris.length > 0);
    for (const uri of uris) {
      assert.deepEqual(await client.readResource({ uri }), await directA.readResource({ uri }), uri);
    }
  });

  test('completion/complete routes by prompt namespace', { timeout: 30_000 }, async () => {
    const a = await client.complete({
      ref: { type: 'ref/prompt', name: `a${SEP}completable-prompt` },
      argument: { name: 'department', value: 'E' },
    });
    assert.deepEqual(a.completion.values, ['Engineering']);
    const b = await client.complete({
      ref: { type: 'ref/prompt', name: `b${SEP}completable-prompt` },
      argument: { name: 'name', value: '' },
      context: { arguments: { department: 'Sales' } },
    });
    assert.deepEqual(b.completion.values, ['David', 'Eve', 'Frank']);
  });

  test('ping', { timeout: 10_000 }, async () => {
    assert.deepEqual(await client.ping(), {});
  });

  test('a name with an unknown namespace is answered -32043', { timeout: 10_000 }, async () => {
    for (const call of [
      () => client.callTool({ name: `zz${SEP}echo`, arguments: { message: 'x' } }),
      () => client.callTool({ name: 'echo', arguments: { message: 'x' } }),
      () => client.getPrompt({ name: `zz${SEP}simple-prompt` }),
    ]) {
      const err = await expectMcpError(call);
      assert.equal(err.code, -32043, err.message);
    }
  });

  test('a garbage cursor is answered -32602', { timeout: 10_000 }, async () => {
    for (const cursor of ['garbage', 'eyJ4IjoxfQ==', 'x'.repeat(4096)]) {
      const err = await expectMcpError(() => pagedClient.listTools({ cursor }));
      assert.equal(err.code, -32602, `cursor ${JSON.stringify(cursor.slice(0, 20))}: ${err.message}`);
    }
  });

  test('a cursor of another list type is answered -32602', { timeout: 10_000 }, async () => {
    const tools = await pagedClient.listTools({});
    const prompts = await pagedClient.listPrompts({});
    assert.ok(tools.nextCursor && prompts.nextCursor, 'both lists have a second page');
    assert.equal((await expectMcpError(() => pagedClient.listPrompts({ cursor: tools.nextCursor }))).code, -32602);
    assert.equal((await expectMcpError(() => pagedClient.listTools({ cursor: prompts.nextCursor }))).code, -32602);
    assert.equal((await expectMcpError(() => pagedClient.listResources({ cursor: tools.nextCursor }))).code, -32602);
  });

  describe('raw HTTP', () => {
    let s;
    before(async () => {
      s = await openRawSession(gate.url);
    });
    after(async () => {
      await closeRawSession(gate.url, s);
    });

    test('malformed JSON: HTTP 400, JSON-RPC -32700', { timeout: 10_000 }, async () => {
      const r = await post(gate.url, '{"jsonrpc": "2.0", "id": 1, "method": ', s.headers);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json?.error?.code, -32700, r.text);
    });

    test('a body that is not JSON by its Content-Type: 415; an Accept without JSON: 406', { timeout: 10_000 }, async () => {
      for (const type of ['text/plain', '']) {
        const r = await post(gate.url, rpc('ping'), { ...s.headers, 'content-type': type });
        assert.equal(r.status, 415, `${type || '(none)'} -> ${r.status} ${r.text}`);
        assert.match(r.text, /Content-Type must be application\/json/);
      }
      const html = await post(gate.url, rpc('ping'), { ...s.headers, accept: 'text/html' });
      assert.equal(html.status, 406, html.text);
      assert.match(html.text, /Accept must include application\/json/);
      // Header names are matched whatever their case, and */* accepts everything.
      const r = await rawRequest(gate.url, {
        headers: { 'CONTENT-TYPE': 'application/json', ACCEPT: '*/*', 'MCP-SESSION-ID': s.headers['mcp-session-id'], host: `127.0.0.1:${gate.port}` },
        body: JSON.stringify(rpc('ping')),
      });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json?.result, {}, r.text);
    });

    test('invalid JSON-RPC: HTTP 400, JSON-RPC -32600', { timeout: 10_000 }, async () => {
      for (const body of [
        { id: 1, method: 'ping' }, // no jsonrpc
        { jsonrpc: '1.0', id: 1, method: 'ping' }, // wrong version
        { jsonrpc: '2.0', id: 1, method: 42 }, // method not a string
      ]) {
        const r = await post(gate.url, body, s.headers);
        assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
        assert.equal(r.json?.error?.code, -32600, `${JSON.stringify(body)} -> ${r.text}`);
      }
    });

    test('a body over 1 MiB with Content-Length: 413', { timeout: 20_000 }, async () => {
      const body = JSON.stringify(rpc('ping', { pad: 'x'.repeat(MAX_BODY) }));
      assert.ok(Buffer.byteLength(body) > MAX_BODY);
      const r = await rawRequest(gate.url, { headers: s.headers, body });
      assert.equal(r.status, 413, r.text.slice(0, 300));
    });

    test('a body of exactly 1 MiB is accepted', { timeout: 20_000 }, async () => {
      const head = JSON.stringify(rpc('ping', { pad: '' }));
      const body = head.replace('"pad":""', `"pad":"${'x'.repeat(MAX_BODY - Buffer.byteLength(head))}"`);
      assert.equal(Buffer.byteLength(body), MAX_BODY);
      const r = await rawRequest(gate.url, { headers: s.headers, body });
      assert.equal(r.status, 200, r.text.slice(0, 300));
      assert.deepEqual(r.json?.result, {});
    });

    test('a chunked body over 1 MiB: 413', { timeout: 20_000 }, async () => {
      // 1 MiB + 64 KiB of an unfinished JSON string, then the request stays open: the
      // gateway must cut the body off at the cap and answer without waiting for its end.
      function* chunks() {
        yield Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
        const fill = Buffer.alloc(64 * 1024, 0x78);
        for (let i = 0; i < MAX_BODY / fill.length + 1; i++) yield fill;
      }
      const r = await rawRequest(gate.url, {
        headers: { ...s.headers, 'transfer-encoding': 'chunked' },
        chunks: chunks(),
        holdOpen: true,
      });
      assert.equal(r.status, 413, r.text.slice(0, 300));
    });

    test('a foreign Host header: 403', { timeout: 10_000 }, async () => {
      const r = await rawRequest(gate.url, { headers: { ...s.headers, host: 'evil.example' }, body: JSON.stringify(rpc('ping')) });
      assert.equal(r.status, 403, r.text);
      const h = await rawRequest(`${gate.base}/health`, { method: 'GET', headers: { host: 'evil.example' } });
      assert.equal(h.status, 403, '/health is behind the allowlist too');
    });

    test('a foreign Origin header: 403', { timeout: 10_000 }, async () => {
      const r = await rawRequest(gate.url, {
        headers: { ...s.headers, origin: 'http://evil.example' },
        body: JSON.stringify(rpc('ping')),
      });
      assert.equal(r.status, 403, r.text);
    });

    test('localhost Host and Origin are allowed by default', { timeout: 10_000 }, async () => {
      for (const host of [`127.0.0.1:${gate.port}`, `localhost:${gate.port}`]) {
        const r = await rawRequest(gate.url, {
          headers: { ...s.headers, host, origin: `http://${host}` },
          body: JSON.stringify(rpc('ping')),
        });
        assert.equal(r.status, 200, `${host}: ${r.text}`);
      }
    });

    test('an unknown Mcp-Session-Id: 404', { timeout: 10_000 }, async () => {
      const r = await post(gate.url, rpc('tools/list'), { ...s.headers, 'mcp-session-id': 'no-such-session-0000' });
      assert.equal(r.status, 404, r.text);
    });

    test('a deleted session: 404', { timeout: 10_000 }, async () => {
      const s2 = await openRawSession(gate.url);
      assert.ok(s2.sessionId, 'gate issues an Mcp-Session-Id');
      const del = await fetch(gate.url, { method: 'DELETE', headers: s2.headers });
      assert.ok(del.status === 200 || del.status === 204, `DELETE -> ${del.status}`);
      const r = await post(gate.url, rpc('ping'), s2.headers);
      assert.equal(r.status, 404, r.text);
    });

    test('/healthz: 404', { timeout: 10_000 }, async () => {
      assert.equal((await get(`${gate.base}/healthz`)).status, 404);
    });

    test('/health: 200 with a JSON report', { timeout: 15_000 }, async () => {
      const r = await get(`${gate.base}/health`);
      assert.equal(r.status, 200, r.text);
      assert.match(r.headers['content-type'] ?? '', /json/);
      const body = JSON.parse(r.text);
      assert.equal(typeof body, 'object');
      assert.ok(r.text.includes('ev-a') && r.text.includes('ev-b'), `health names both upstreams: ${r.text}`);
      // Latencies as people write them: tenths of a millisecond, no exponent.
      const latencies = [...r.text.matchAll(/"latencyMs":([^,}]+)/g)].map((m) => m[1]);
      assert.equal(latencies.length, 2, r.text);
      for (const l of latencies) assert.match(l, /^\d+(\.\d)?$/, `latencyMs written as ${l}`);
    });

    test('/metrics: gate_requests_total and gate_build_info', { timeout: 10_000 }, async () => {
      const r = await get(`${gate.base}/metrics`);
      assert.equal(r.status, 200);
      assert.match(r.text, /^gate_requests_total\{[^}]*method="[^"]+"[^}]*\} \d+/m);
      assert.match(r.text, /^gate_build_info\{[^}]*version="[^"]+"[^}]*\} 1(\.0+)?$/m);
      assert.match(r.text, /^gate_http_rejections_total\{[^}]*reason="(body_too_large|forbidden_host|forbidden_origin)"[^}]*\} [1-9]/m);
    });
  });

  test('a cursor goes stale when a reload swaps the snapshot: -32602', { timeout: 30_000 }, async () => {
    const first = await pagedClient.listTools({});
    assert.ok(first.nextCursor);
    // still valid before the reload
    await pagedClient.listTools({ cursor: first.nextCursor });
    const cfg = { ...upstreamsConfig(A, B), routing: { pageSize: 5 } };
    cfg.upstreams[0].labels = { reload: String(Date.now()) };
    assert.ok(paged.reload(cfg), 'SIGHUP sent');
    const deadline = Date.now() + 15_000;
    for (;;) {
      try {
        await pagedClient.listTools({ cursor: first.nextCursor });
      } catch (err) {
        // (the exit status is only awaited when the process is gone: awaiting it while gate
        // runs would never resolve)
        if (!paged.proc.isRunning()) assert.fail(`gate exited after SIGHUP: ${JSON.stringify(await paged.proc.exited)}`);
        // A request finishes on the snapshot it loaded (never "-32603 retry"); the first one
        // that loads the new snapshot finds the cursor expired.
        assert.equal(err.code, -32602, err.message);
        break;
      }
      assert.ok(Date.now() < deadline, 'the old cursor was still served 15 s after SIGHUP');
      await new Promise((r) => setTimeout(r, 100));
    }
    // a fresh listing works and holds the same items
    const again = (await listAll(pagedClient, 'tools')).items;
    assert.deepEqual(sorted(names('tools', again)), sorted(names('tools', (await listAll(client, 'tools')).items)));
  });
});

describe('federation: an upstream dies', { timeout: 180_000 }, () => {
  let A;
  let B;
  let gate;
  let client;

  before(async () => {
    [A, B] = await Promise.all([startEverything(), startEverything()]);
    // no list cache, so a dead upstream's tools vanish at once
    gate = await startGate({ config: upstreamsConfig(A, B, { cacheTtlMs: -1 }) });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await Promise.all([A?.stop(), B?.stop()]);
  });

  test('with b dead, lists hold only a__ and calls to a still work', { timeout: 60_000 }, async () => {
    const before_ = byNamespace(names('tools', (await listAll(client, 'tools')).items));
    assert.ok(before_.a.length > 0 && before_.b.length > 0);
    assert.ok((await get(`${gate.base}/health`)).status === 200);

    await B.stop();

    const after_ = byNamespace(names('tools', (await listAll(client, 'tools')).items));
    assert.deepEqual(after_.b, [], 'no b__ tools once b is dead');
    assert.deepEqual(sorted(after_.a), sorted(before_.a), 'all a__ tools still listed');
    const prompts = names('prompts', (await listAll(client, 'prompts')).items);
    assert.ok(prompts.length > 0 && prompts.every((p) => p.startsWith(`a${SEP}`)), `prompts: ${prompts}`);

    const r = await client.callTool({ name: `a${SEP}echo`, arguments: { message: 'still here' } });
    assert.deepEqual(r, { content: [{ type: 'text', text: 'Echo: still here' }] });

    const err = await expectMcpError(() => client.callTool({ name: `b${SEP}echo`, arguments: { message: 'x' } }));
    assert.equal(err.code, -32041, err.message);

    const h = await get(`${gate.base}/health`);
    assert.equal(h.status, 200, `one upstream is still reachable: ${h.text}`);
  });

  test('with both dead, /health answers 503 and lists answer -32041', { timeout: 60_000 }, async () => {
    await A.stop();
    const deadline = Date.now() + 20_000;
    let h;
    for (;;) {
      h = await get(`${gate.base}/health`);
      if (h.status === 503) break;
      assert.ok(Date.now() < deadline, `/health still ${h.status} 20 s after every upstream died: ${h.text}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    JSON.parse(h.text);
    const err = await expectMcpError(() => client.listTools({}));
    assert.equal(err.code, -32041, err.message);
  });
});
