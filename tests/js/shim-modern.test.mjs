// gate-stdio in front of a stdio server that speaks 2026-07-28 (tests/js/lib/stdio-modern-server.mjs
// on the v2 SDK's serveStdio), driven by the real v2 SDK client over HTTP and by raw HTTP:
// stateless requests share one child, their ids are the shim's own toward it, progress and
// listen notifications find their way back, a closed stream cancels at the child, and a crash
// answers what was in flight and a new child serves what comes after. Sessionful 2025-11-25
// clients are served as before, by a child of their own.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { connectClient, eventually, post, runShim, startGate, startShim } from './lib/index.mjs';

const NODE = process.execPath;
const FIXTURE = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'lib/stdio-modern-server.mjs');
const RAW_FIXTURE = path.resolve(path.dirname(new URL(import.meta.url).pathname), 'lib/stdio-raw-server.mjs');
const MODERN = '2026-07-28';

const envelope = (extra = {}) => ({
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  ...extra,
});
// A raw 2026-07-28 request and the headers that mirror it.
function modern(method, params = {}, id = 1, meta = {}) {
  const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: envelope(meta) } };
  const headers = { 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if (params.name !== undefined) headers['mcp-name'] = params.name;
  return { body, headers };
}
const call = (name, args, id, meta) => modern('tools/call', { name, arguments: args }, id, meta);
const send = (shim, r) => post(shim.url, r.body, r.headers);
const textOf = (result) => result.content.map((c) => c.text).join('');

async function modernClient(shim, { name = 'modern', capabilities = {} } = {}) {
  const client = new Client({ name, version: '0.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
  if (capabilities.elicitation) client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'bob' } }));
  await client.connect(new StreamableHTTPClientTransport(new URL(shim.url)));
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  return client;
}

describe('gate-stdio in front of a 2026-07-28 stdio server', { timeout: 120_000 }, () => {
  let dir;
  let record;
  let shim;
  // What the child saw: { pid, event, tag }.
  const events = () =>
    (existsSync(record) ? readFileSync(record, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
  const pidOf = async (client) => Number(textOf(await client.callTool({ name: 'whoami', arguments: {} })).split(' ')[1]);

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'shim-modern-'));
    record = path.join(dir, 'events.jsonl');
    shim = await startShim({ command: [NODE, FIXTURE, record] });
  });
  after(async () => {
    await shim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the v2 client discovers, lists and calls without initialize or a session', async () => {
    const client = await modernClient(shim);
    try {
      assert.equal(client.getServerVersion().name, 'gate-test-stdio-modern');
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const n of ['echo', 'progress', 'slow', 'ask', 'crash']) assert.ok(names.includes(n), `${n} in ${names}`);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'echo: hi');
    } finally {
      await client.close();
    }
    // Raw: a plain JSON answer, no session id handed out.
    const r = await send(shim, modern('server/discover'));
    assert.equal(r.status, 200);
    assert.equal(r.headers['mcp-session-id'], undefined);
    assert.deepEqual(r.json.result.supportedVersions, [MODERN]);
  });

  test('stateless clients share one child, and a sessionful 2025-11-25 client gets its own', async () => {
    const a = await modernClient(shim, { name: 'a' });
    const b = await modernClient(shim, { name: 'b' });
    const old = await connectClient(shim.url);
    try {
      const [pa, pb] = await Promise.all([pidOf(a), pidOf(b)]);
      assert.equal(pa, pb);
      assert.equal(old.getServerVersion().name, 'gate-test-stdio-modern');
      const r = await old.callTool({ name: 'whoami', arguments: {} });
      assert.notEqual(Number(r.content[0].text.split(' ')[1]), pa);
      assert.deepEqual((await old.callTool({ name: 'echo', arguments: { text: 'old' } })).content, [{ type: 'text', text: 'echo: old' }]);
    } finally {
      await Promise.all([a.close(), b.close(), old.close()]);
    }
  });

  test('two clients using the same JSON-RPC id at once each get their own answer', async () => {
    // One request with id 7 stays in flight while another client's id 7 is answered.
    const slow = new AbortController();
    const first = fetch(shim.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...call('slow', { tag: 'same-id' }, 7).headers },
      body: JSON.stringify(call('slow', { tag: 'same-id' }, 7).body),
      signal: slow.signal,
    }).catch(() => null);
    await eventually(() => events().some((e) => e.event === 'started' && e.tag === 'same-id'), { what: 'the slow call started' });
    const answers = await Promise.all(['x', 'y', 'z'].map((t) => send(shim, call('echo', { text: t }, 7))));
    assert.deepEqual(
      answers.map((r) => [r.status, r.json.id, textOf(r.json.result)]),
      [
        [200, 7, 'echo: x'],
        [200, 7, 'echo: y'],
        [200, 7, 'echo: z'],
      ],
    );
    slow.abort();
    await first;
    // And two real clients, whose ids run in step.
    const a = await modernClient(shim, { name: 'a' });
    const b = await modernClient(shim, { name: 'b' });
    try {
      const [ra, rb] = await Promise.all([a.callTool({ name: 'echo', arguments: { text: 'from a' } }), b.callTool({ name: 'echo', arguments: { text: 'from b' } })]);
      assert.equal(textOf(ra), 'echo: from a');
      assert.equal(textOf(rb), 'echo: from b');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('progress reaches the request it belongs to, under the client token', async () => {
    const a = await modernClient(shim, { name: 'a' });
    const b = await modernClient(shim, { name: 'b' });
    try {
      const seen = { a: [], b: [] };
      const [ra, rb] = await Promise.all([
        a.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => seen.a.push(p.progress) }),
        b.callTool({ name: 'progress', arguments: { steps: 5 } }, { onprogress: (p) => seen.b.push(p.progress) }),
      ]);
      assert.equal(textOf(ra), 'done 3');
      assert.equal(textOf(rb), 'done 5');
      assert.deepEqual(seen, { a: [1, 2, 3], b: [1, 2, 3, 4, 5] });
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    // Raw: the token comes back as the client wrote it, on an event stream without event ids.
    const r = await send(shim, call('progress', { steps: 2 }, 'p', { progressToken: 'mine' }));
    assert.match(r.headers['content-type'], /text\/event-stream/);
    assert.doesNotMatch(r.text, /^id:/m);
    assert.deepEqual(
      r.messages.filter((m) => m.method).map((m) => m.params.progressToken),
      ['mine', 'mine'],
    );
    assert.equal(r.json.id, 'p');
  });

  test('closing the response stream cancels the call at the child (notifications/cancelled)', async () => {
    const client = await modernClient(shim);
    try {
      const abort = new AbortController();
      const pending = client.callTool({ name: 'slow', arguments: { tag: 'sdk' } }, { signal: abort.signal });
      await eventually(() => events().some((e) => e.event === 'started' && e.tag === 'sdk'), { what: 'the slow call started' });
      abort.abort();
      await assert.rejects(pending);
      await eventually(() => events().some((e) => e.event === 'aborted' && e.tag === 'sdk'), { what: 'the child saw the cancellation' });
    } finally {
      await client.close();
    }
    // Raw: nothing but the closed connection tells the shim.
    const abort = new AbortController();
    const r = call('slow', { tag: 'raw' }, 1);
    const pending = fetch(shim.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', ...r.headers },
      body: JSON.stringify(r.body),
      signal: abort.signal,
    });
    await eventually(() => events().some((e) => e.event === 'started' && e.tag === 'raw'), { what: 'the raw slow call started' });
    abort.abort();
    await assert.rejects(pending);
    await eventually(() => events().some((e) => e.event === 'aborted' && e.tag === 'raw'), { what: 'the child saw the raw cancellation' });
  });

  test('input_required passes through, and the v2 client answers and retries', async () => {
    // A request that did not declare elicitation: the child's -32021, with the status the
    // revision gives it.
    let raw = await send(shim, call('ask', {}, 3));
    assert.equal(raw.status, 400);
    assert.equal(raw.json.error.code, -32021);
    raw = await send(shim, call('ask', {}, 3, { 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } }));
    assert.equal(raw.status, 200);
    assert.equal(raw.json.result.resultType, 'input_required');
    assert.ok(raw.json.result.inputRequests.name);
    const client = await modernClient(shim, { capabilities: { elicitation: {} } });
    try {
      assert.equal(textOf(await client.callTool({ name: 'ask', arguments: {} })), 'Hello, bob!');
    } finally {
      await client.close();
    }
  });

  test('subscriptions/listen streams each listener its own notifications', async () => {
    const a = await modernClient(shim, { name: 'a' });
    const b = await modernClient(shim, { name: 'b' });
    try {
      const heard = { a: 0, b: 0 };
      a.setNotificationHandler('notifications/tools/list_changed', () => void heard.a++);
      b.setNotificationHandler('notifications/tools/list_changed', () => void heard.b++);
      const [sa, sb] = await Promise.all([a.listen({ toolsListChanged: true }), b.listen({ toolsListChanged: true })]);
      await a.callTool({ name: 'add-tool', arguments: { name: 'fresh' } });
      await eventually(() => heard.a === 1 && heard.b === 1, { what: 'both listeners heard the change' });
      assert.ok((await b.listTools()).tools.some((t) => t.name === 'fresh'));
      await sa.close();
      await sb.close();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  test('headers that do not mirror the body are refused; the child answers for methods and versions', async () => {
    const wrongMethod = call('echo', { text: 'x' }, 1);
    wrongMethod.headers['mcp-method'] = 'tools/list';
    let r = await send(shim, wrongMethod);
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32020);
    assert.equal(r.json.id, 1);
    const wrongName = call('echo', { text: 'x' }, 2);
    wrongName.headers['mcp-name'] = 'slow';
    r = await send(shim, wrongName);
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32020);
    const noName = call('echo', { text: 'x' }, 2);
    delete noName.headers['mcp-name'];
    assert.equal((await send(shim, noName)).json.error.code, -32020);
    const encoded = call('echo', { text: 'x' }, 2);
    encoded.headers['mcp-name'] = `=?base64?${Buffer.from('echo').toString('base64')}?=`;
    assert.equal(textOf((await send(shim, encoded)).json.result), 'echo: x');
    r = await send(shim, modern('no/such-method'));
    assert.equal(r.status, 404);
    assert.equal(r.json.error.code, -32601);
    // A version the shim does not know goes to the child: the shim does not refuse it itself
    // (the SDK's serveStdio, pinned to 2026-07-28 by the first request, serves it; a -32022
    // from a stricter server would pass through with 400).
    const future = modern('tools/list', {}, 4, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    future.headers['mcp-protocol-version'] = '2099-01-01';
    r = await send(shim, future);
    if (r.json.error) {
      assert.equal(r.status, 400);
      assert.equal(r.json.error.code, -32022);
    } else {
      assert.equal(r.status, 200);
      assert.ok(r.json.result.tools.length > 0);
    }
  });

  test("a tools/call's Mcp-Param-* headers are checked against its arguments, as the tools list declared them", async () => {
    // The shim learns the annotations from the tools/list answers it relays.
    const listed = await send(shim, modern('tools/list', {}, 10));
    const regional = listed.json.result.tools.find((t) => t.name === 'regional');
    assert.equal(regional.inputSchema.properties.region['x-mcp-header'], 'Region');
    const seen = () => events().filter((e) => e.event === 'regional').length;
    const before = seen();
    const cases = [
      [{ region: 'eu-west' }, { 'mcp-param-region': 'us-east' }, /Mcp-Param-Region header value 'us-east' does not match body value 'eu-west'/],
      [{ region: 'eu-west' }, {}, /Mcp-Param-Region header is absent but arguments.region is in the body/],
      [{ region: 'eu-west', count: 2 }, { 'mcp-param-region': 'eu-west', 'mcp-param-count': '3' }, /Mcp-Param-Count header value '3' does not match body value '2'/],
    ];
    for (const [args, headers, why] of cases) {
      const r = call('regional', args, 11);
      Object.assign(r.headers, headers);
      const answer = await send(shim, r);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.json.error.code, -32020);
      assert.match(answer.json.error.message, why);
    }
    assert.equal(seen(), before, 'no refused call reached the child');
    // Headers that mirror the body (a value with spaces encoded as the revision says) go on.
    const ok = call('regional', { region: ' padded ', count: 4 }, 12);
    Object.assign(ok.headers, { 'mcp-param-region': `=?base64?${Buffer.from(' padded ').toString('base64')}?=`, 'Mcp-Param-Count': '4' });
    const answer = await send(shim, ok);
    assert.equal(answer.status, 200, answer.text);
    assert.equal(textOf(answer.json.result), 'region= padded  count=4');
  });

  test('a child that crashes mid-call answers with an error, and a new child serves what follows', async () => {
    const client = await modernClient(shim);
    try {
      const before = await pidOf(client);
      const other = fetch(shim.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...call('slow', { tag: 'bystander' }, 1).headers },
        body: JSON.stringify(call('slow', { tag: 'bystander' }, 1).body),
      }).then((res) => res.json());
      await eventually(() => events().some((e) => e.event === 'started' && e.tag === 'bystander'), { what: 'the bystander started' });
      await assert.rejects(client.callTool({ name: 'crash', arguments: {} }), /ended before answering/);
      const bystander = await other;
      assert.equal(bystander.id, 1);
      assert.equal(bystander.error.code, -32603);
      assert.match(bystander.error.message, /exited with status 3/);
      const after = await pidOf(client);
      assert.notEqual(after, before);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'again' } })), 'echo: again');
    } finally {
      await client.close();
    }
  });
});

describe('gate-stdio stateless requests within the shim bounds', { timeout: 60_000 }, () => {
  test('the bearer and the body limit hold before any child is started', async () => {
    const token = 'tok-' + Math.random().toString(36).slice(2);
    const dir = mkdtempSync(path.join(tmpdir(), 'shim-modern-bounds-'));
    const record = path.join(dir, 'events.jsonl');
    const shim = await startShim({
      args: ['--bearer-env', 'SHIM_TOKEN', '--max-body-bytes', '2048'],
      command: [NODE, FIXTURE, record],
      env: { ...process.env, SHIM_TOKEN: token },
    });
    try {
      const r = call('echo', { text: 'x' }, 1);
      const none = await send(shim, r);
      assert.equal(none.status, 401);
      const big = call('echo', { text: 'x'.repeat(4096) }, 2);
      const tooBig = await post(shim.url, big.body, { ...big.headers, authorization: `Bearer ${token}` });
      assert.equal(tooBig.status, 413);
      const metrics = await (await fetch(`${shim.base}/metrics`)).text();
      assert.match(metrics, /gate_stdio_spawned_total 0\b/);
      const ok = await post(shim.url, r.body, { ...r.headers, authorization: `Bearer ${token}` });
      assert.equal(ok.status, 200);
      assert.equal(textOf(ok.json.result), 'echo: x');
    } finally {
      await shim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gate-stdio probes a stdio server that refuses initialize', { timeout: 60_000 }, () => {
  test('--probe and /health ask server/discover when initialize is refused', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'shim-modern-probe-'));
    const command = [NODE, FIXTURE, path.join(dir, 'events.jsonl'), '--modern-only'];
    const shim = await startShim({ command });
    try {
      const r = await runShim(['--probe', '--', ...command]);
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /probe ok: gate-test-stdio-modern 1\.0\.0 \(protocol 2026-07-28\)/);
      const health = await fetch(`${shim.base}/health`);
      const body = await health.json();
      assert.equal(health.status, 200, JSON.stringify(body));
      assert.equal(body.status, 'ok');
      // Sessionful clients are refused by this server, stateless ones served.
      const old = await post(shim.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '0' } } });
      assert.ok(old.json.error, old.text);
      const client = await modernClient(shim);
      assert.equal(textOf(await client.callTool({ name: 'echo', arguments: { text: 'modern only' } })), 'echo: modern only');
      await client.close();
    } finally {
      await shim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('gate federating gate-stdio that fronts a 2026-07-28 stdio server', { timeout: 120_000 }, () => {
  test('a 2026-07-28 client calls the stdio server through gate', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'shim-modern-gate-'));
    const shim = await startShim({ command: [NODE, FIXTURE, path.join(dir, 'events.jsonl')] });
    const gate = await startGate({ config: { upstreams: [{ id: 'st', url: shim.url, protocol: MODERN }] } });
    try {
      const client = new Client({ name: 'via-gate', version: '0' }, { capabilities: {}, versionNegotiation: { mode: { pin: MODERN } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(gate.url)));
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        assert.ok(names.some((n) => n.endsWith('echo')), names.join(','));
        const echo = names.find((n) => n.endsWith('echo'));
        assert.equal(textOf(await client.callTool({ name: echo, arguments: { text: 'through gate' } })), 'echo: through gate');
        const seen = [];
        const r = await client.callTool({ name: names.find((n) => n.endsWith('progress')), arguments: { steps: 2 } }, { onprogress: (p) => seen.push(p.progress) });
        assert.equal(textOf(r), 'done 2');
        assert.deepEqual(seen, [1, 2]);
      } finally {
        await client.close();
      }
    } finally {
      await gate.stop();
      await shim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Bytes pass as written both ways, as gate itself passes them (issue 47): gate-stdio changes a
// stateless request's id (and progress token) for the child and the answer's id back, and
// Boost.JSON, writing the rest anew, made 18446744073709551617 1.8446744073709552E19 and 6.5
// 6.5E0. A raw stdio child (lib/stdio-raw-server.mjs) records what it read and answers with
// its own bytes.
describe('gate-stdio passes the numbers of 2026-07-28 requests and answers as written', { timeout: 60_000 }, () => {
  test("the child reads the client's arguments, and the client the child's result, byte for byte", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'shim-raw-'));
    const record = path.join(dir, 'lines.jsonl');
    const shim = await startShim({ command: [NODE, RAW_FIXTURE, record] });
    try {
      const args = '{"big":18446744073709551617,"ratio":6.5,"half":0.50,"exp":1e400}';
      const envelope = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{}}`;
      const body = `{"jsonrpc":"2.0","id":"mine","method":"tools/call","params":{"name":"numbers","arguments":${args},${envelope}}}`;
      const r = await post(shim.url, body, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': 'numbers' });
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.id, 'mine');
      assert.ok(
        r.text.includes('"structuredContent":{"big":18446744073709551617,"ratio":6.5,"half":0.50}'),
        `the child's numbers as it wrote them: ${r.text}`,
      );
      const seen = readFileSync(record, 'utf8').split('\n').find((l) => l.includes('"numbers"'));
      assert.ok(seen.includes(`"arguments":${args}`), `the client's numbers as it wrote them: ${seen}`);
    } finally {
      await shim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
