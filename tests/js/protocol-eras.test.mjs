// Both protocol eras on one gate endpoint: clients built on the v2 SDK
// (@modelcontextprotocol/client 2.4.0) negotiating 2026-07-28 statelessly or 2025-11-25
// with a session, and the 1.x SDK client, all in front of a 2025-11-25 upstream
// (server-everything). Raw requests pin the 2026-07-28 refusals.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { FULL_CLIENT_CAPABILITIES, closeRawSession, connectClient, get, modernRequest, openRawSession, post, startEverything, startGate, startModernServer } from './lib/index.mjs';
import { freePort } from './lib/free-port.mjs';
import { CHATTY_LEVELS, startLoggingServer } from './lib/logging-server.mjs';

const MODERN = '2026-07-28';

/** A 2026-07-28 request as the v2 SDK sends it: envelope in _meta, mirrored headers. */
const modern = modernRequest;

async function v2Client(url, mode) {
  const client = new Client({ name: `v2-${JSON.stringify(mode)}`, version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const sessionsHeld = async (gate) => {
  const m = /^gate_downstream_sessions (\d+)/m.exec((await get(`${gate.base}/metrics`)).text);
  return Number(m[1]);
};

describe('protocol eras: 2026-07-28 and 2025-11-25 clients on one endpoint', { timeout: 180_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startEverything();
    gate = await startGate({ config: { upstreams: [{ id: 'ev', url: up.url, namespace: 'ev' }] } });
  });

  after(async () => {
    await gate?.stop();
    await up?.stop();
  });

  test('a v2 client in auto mode negotiates 2026-07-28 and lists and calls statelessly', { timeout: 30_000 }, async () => {
    const before = await sessionsHeld(gate);
    const client = await v2Client(gate.url, 'auto');
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      assert.equal(client.getServerVersion().name, 'gate');
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'ev__echo'));
      const r = await client.callTool({ name: 'ev__echo', arguments: { message: 'modern' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: modern' }]);
      const prompt = await client.getPrompt({ name: 'ev__simple-prompt' });
      assert.ok(prompt.messages.length > 0);
      assert.equal(await sessionsHeld(gate), before, 'no session was created');
    } finally {
      await client.close();
    }
  });

  test('a v2 client pinned to 2026-07-28 connects; in legacy mode it gets a session', { timeout: 30_000 }, async () => {
    const pinned = await v2Client(gate.url, { pin: MODERN });
    assert.equal(pinned.getNegotiatedProtocolVersion(), MODERN);
    await pinned.close();
    const before = await sessionsHeld(gate);
    const legacy = await v2Client(gate.url, 'legacy');
    try {
      assert.equal(legacy.getNegotiatedProtocolVersion(), '2025-11-25');
      const r = await legacy.callTool({ name: 'ev__echo', arguments: { message: 'legacy' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: legacy' }]);
      assert.equal(await sessionsHeld(gate), before + 1);
    } finally {
      await legacy.close();
    }
  });

  test('the 1.x SDK client is unaffected', { timeout: 30_000 }, async () => {
    const client = await connectClient(gate.url);
    try {
      const r = await client.callTool({ name: 'ev__echo', arguments: { message: 'v1' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: v1' }]);
    } finally {
      await client.close();
    }
  });

  test('server/discover describes the federation without creating a session', { timeout: 30_000 }, async () => {
    const before = await sessionsHeld(gate);
    const { body, headers } = modern('server/discover');
    const res = await post(gate.url, body, headers);
    assert.equal(res.status, 200);
    assert.equal(res.headers['mcp-session-id'], undefined);
    const r = res.json.result;
    assert.deepEqual(r.supportedVersions, [MODERN], 'discovery lists the stateless revisions only');
    assert.equal(r.ttlMs, 0);
    assert.equal(r.cacheScope, 'private');
    assert.ok(r.capabilities.tools);
    assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].name, 'gate');
    assert.equal(r.resultType, 'complete');
    assert.equal(await sessionsHeld(gate), before);
  });

  test('lists carry resultType, ttlMs and cacheScope', { timeout: 30_000 }, async () => {
    const { body, headers } = modern('tools/list');
    const res = await post(gate.url, body, headers);
    assert.equal(res.status, 200);
    assert.equal(res.json.result.resultType, 'complete');
    assert.equal(typeof res.json.result.ttlMs, 'number');
    assert.equal(res.json.result.cacheScope, 'private');
  });

  test('headers that do not mirror the body are refused with 400 and -32020', { timeout: 30_000 }, async () => {
    const cases = [
      modern('tools/list', {}, { headers: { 'mcp-method': 'prompts/list' } }),
      modern('tools/call', { name: 'ev__echo', arguments: { message: 'x' } }, { headers: { 'mcp-name': 'ev__other' } }),
      modern('tools/call', { name: 'ev__echo', arguments: { message: 'x' } }, { headers: { 'mcp-name': undefined } }),
      modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': MODERN }, headers: { 'mcp-protocol-version': '2025-11-25' } }),
      modern('tasks/get', { taskId: 't-1' }, { headers: { 'mcp-name': undefined } }),
    ];
    for (const { body, headers } of cases) {
      for (const k of Object.keys(headers)) if (headers[k] === undefined) delete headers[k];
      const res = await post(gate.url, body, headers);
      assert.equal(res.status, 400, JSON.stringify(headers));
      assert.equal(res.json.error.code, -32020, res.text);
      assert.match(res.json.error.message, /must equal/);
    }
  });

  test("gate's own refusals reach a 2026-07-28 client outside the codes the revision reserves; a session keeps the spec's", { timeout: 30_000 }, async () => {
    // An unknown namespace: -31043 statelessly (-32020...-32099 belong to the revision), -32043 in a session.
    const { body, headers } = modern('tools/call', { name: 'nope__echo', arguments: {} });
    const stateless = await post(gate.url, body, headers);
    assert.equal(stateless.status, 200, stateless.text);
    assert.equal(stateless.json.error.code, -31043, stateless.text);
    assert.match(stateless.json.error.message, /unknown namespace in "nope__echo"/);
    const session = await openRawSession(gate.url);
    try {
      const r = await post(gate.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'nope__echo', arguments: {} } }, session.headers);
      assert.equal(r.json.error.code, -32043, r.text);
    } finally {
      await closeRawSession(gate.url, session);
    }
    // An upstream that does not answer: -31041, with the upstream named.
    const port = await freePort();
    const down = await startGate({ config: { upstreams: [{ id: 'gone', url: `http://127.0.0.1:${port}/mcp`, namespace: 'gone' }] } });
    try {
      const call = modern('tools/call', { name: 'gone__echo', arguments: {} });
      const r = await post(down.url, call.body, call.headers);
      assert.equal(r.json.error.code, -31041, r.text);
      assert.match(r.json.error.message, /upstream gone unavailable/);
    } finally {
      await down.stop();
    }
  });

  test('a 2026-07-28 call streams its progress before the answer, without event ids (the revision removed resumption)', { timeout: 30_000 }, async () => {
    const { body, headers } = modern('tools/call', { name: 'ev__trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } }, { meta: { progressToken: 'p-1' } });
    const r = await post(gate.url, body, headers);
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers['content-type'], /text\/event-stream/);
    const progress = r.messages.filter((m) => m.method === 'notifications/progress');
    assert.ok(progress.length >= 1, r.text);
    assert.equal(r.json.id, 1);
    assert.equal(r.json.result.resultType, 'complete', r.text);
    assert.doesNotMatch(r.text, /^id:/m, 'no SSE event ids on a 2026-07-28 stream');
  });

  test("an upstream's log messages reach a 2026-07-28 call only at or above the logLevel it sent; none without one", { timeout: 30_000 }, async () => {
    const chatty = await startLoggingServer();
    const g = await startGate({ config: { upstreams: [{ id: 'ch', url: chatty.url, namespace: 'ch' }] } });
    try {
      const levels = async (meta) => {
        const { body, headers } = modern('tools/call', { name: 'ch__chatty', arguments: {} }, { meta });
        const r = await post(g.url, body, headers);
        assert.equal(r.status, 200, r.text);
        assert.match(JSON.stringify(r.json.result.content), /said it all/, r.text);
        return r.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level);
      };
      assert.deepEqual(await levels({}), [], 'no logLevel, no log messages');
      assert.deepEqual(await levels({ 'io.modelcontextprotocol/logLevel': 'warning' }), ['warning', 'error']);
      assert.deepEqual(await levels({ 'io.modelcontextprotocol/logLevel': 'debug' }), CHATTY_LEVELS);
      // A 2025-11-25 session hears them all, as before (its logging/setLevel goes upstream).
      const session = await openRawSession(g.url);
      try {
        const r = await post(g.url, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ch__chatty', arguments: {} } }, session.headers);
        assert.deepEqual(r.messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level), CHATTY_LEVELS, r.text);
      } finally {
        await closeRawSession(g.url, session);
      }
    } finally {
      await g.stop();
      await chatty.stop();
    }
  });

  test("a 2026-07-28 read of an earlier upstream's resource says it may not be cached, and only privately", { timeout: 30_000 }, async () => {
    const list = modern('resources/list');
    const listed = await post(gate.url, list.body, list.headers);
    const [first] = listed.json.result.resources;
    assert.ok(first, listed.text);
    const read = modern('resources/read', { uri: first.uri }, { id: 4 });
    const r = await post(gate.url, read.body, read.headers);
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.result.contents.length > 0, r.text);
    assert.equal(r.json.result.ttlMs, 0, r.text);
    assert.equal(r.json.result.cacheScope, 'private', r.text);
    assert.equal(r.json.result.resultType, 'complete', r.text);
  });

  test('a non-ASCII name travels base64-encoded in Mcp-Name', { timeout: 30_000 }, async () => {
    const name = 'ev__échø';
    const encoded = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
    const { body, headers } = modern('tools/call', { name, arguments: {} }, { headers: { 'mcp-name': encoded } });
    const res = await post(gate.url, body, headers);
    // The headers match, so the call is routed; the upstream has no such tool.
    assert.equal(res.status, 200, res.text);
    assert.notEqual(res.json.error?.code, -32020);
  });

  test('an unsupported version, a missing envelope field, a removed method', { timeout: 30_000 }, async () => {
    const old = modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' }, headers: { 'mcp-protocol-version': '2099-01-01' } });
    const r1 = await post(gate.url, old.body, old.headers);
    assert.equal(r1.status, 400);
    assert.equal(r1.json.error.code, -32022);
    assert.equal(r1.json.error.data.requested, '2099-01-01');
    assert.ok(r1.json.error.data.supported.includes(MODERN));

    const noCaps = modern('tools/list');
    delete noCaps.body.params._meta['io.modelcontextprotocol/clientCapabilities'];
    const r2 = await post(gate.url, noCaps.body, noCaps.headers);
    assert.equal(r2.status, 400);
    assert.equal(r2.json.error.code, -32602);
    assert.match(r2.json.error.message, /clientCapabilities/);

    // And one the revision never had: 404 too, where a session's unknown method is 200.
    for (const method of ['ping', 'logging/setLevel', 'resources/subscribe', 'vendor/frobnicate']) {
      const { body, headers } = modern(method, method === 'logging/setLevel' ? { level: 'info' } : method === 'resources/subscribe' ? { uri: 'demo://x' } : {});
      const r = await post(gate.url, body, headers);
      assert.equal(r.status, 404, method);
      assert.equal(r.json.error.code, -32601, method);
    }
    const session = await openRawSession(gate.url);
    try {
      const r = await post(gate.url, { jsonrpc: '2.0', id: 3, method: 'vendor/frobnicate', params: {} }, session.headers);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.error.code, -32601, r.text);
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  // A 2025-11-25 upstream's server requests reaching a 2026-07-28 client: translated into
  // input_required results; the upstream call waits for the client's retry.
  test('sampling and elicitation arrive as input requests and the answers reach the upstream', { timeout: 30_000 }, async () => {
    const client = new Client({ name: 'modern', version: '0' }, { capabilities: { elicitation: {}, sampling: {} }, versionNegotiation: { mode: 'auto' } });
    const asked = [];
    client.setRequestHandler('elicitation/create', async (r) => {
      asked.push('elicitation');
      return { action: 'accept', content: { name: 'zoe', check: true, email: 'zoe@example.com' } };
    });
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sampling');
      return { role: 'assistant', model: 'm', content: { type: 'text', text: 'sampled by zoe' } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(gate.url)));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      const sampled = await client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'p' } });
      assert.match(JSON.stringify(sampled.content), /sampled by zoe/);
      const elicited = await client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} });
      assert.match(JSON.stringify(elicited.content), /Name: zoe/);
      assert.deepEqual(asked, ['sampling', 'elicitation']);
    } finally {
      await client.close();
    }
  });

  test('a client that declared no sampling is not asked to sample: gate answers the upstream for it', { timeout: 30_000 }, async () => {
    const { body, headers } = modern('tools/call', { name: 'ev__trigger-sampling-request', arguments: { prompt: 'nobody asked' } });
    const r = await post(gate.url, body, headers);
    assert.equal(r.status, 200, r.text);
    assert.notEqual(r.json.result?.resultType, 'input_required', r.text);
    // The upstream heard -32601 "the client declared no sampling capability" and answered the call with it.
    assert.match(r.text, /declared no sampling capability/, r.text);
  });

  test('the input_required result, a retry without answers asked again, and a requestState gate never minted', { timeout: 30_000 }, async () => {
    const first = modern('tools/call', { name: 'ev__trigger-sampling-request', arguments: { prompt: 'raw' } }, { meta: { 'io.modelcontextprotocol/clientCapabilities': { sampling: {} } } });
    const r1 = await post(gate.url, first.body, first.headers);
    assert.equal(r1.status, 200);
    const result = r1.json.result;
    assert.equal(result.resultType, 'input_required');
    const [key] = Object.keys(result.inputRequests);
    assert.equal(result.inputRequests[key].method, 'sampling/createMessage');
    assert.match(JSON.stringify(result.inputRequests[key].params.messages), /raw/);
    assert.match(result.requestState, /^[0-9a-f]{32}$/);
    // The state is bound to the call it came from: another tool cannot resume it.
    const other = modern('tools/call', { name: 'ev__echo', arguments: { message: 'steal' }, requestState: result.requestState, inputResponses: {} }, { id: 9 });
    const r9 = await post(gate.url, other.body, other.headers);
    assert.equal(r9.status, 400);
    assert.equal(r9.json.error.code, -32602);
    assert.match(r9.json.error.message, /requestState belongs to another request/);
    // The retry carries no answer: asked again (the revision's SHOULD), under a new state.
    const retry = modern('tools/call', { name: 'ev__trigger-sampling-request', arguments: { prompt: 'raw' }, requestState: result.requestState, inputResponses: {} }, { id: 2 });
    const r2 = await post(gate.url, retry.body, retry.headers);
    assert.equal(r2.status, 200);
    assert.equal(r2.json.id, 2, 'the answer carries the retry\'s id');
    assert.equal(r2.json.result.resultType, 'input_required', r2.text);
    assert.deepEqual(r2.json.result.inputRequests, result.inputRequests);
    assert.notEqual(r2.json.result.requestState, result.requestState);
    // A state gate did not mint is the upstream's own: forwarded, and this upstream asks again.
    const stray = modern('tools/call', { name: 'ev__echo', arguments: { message: 'stray' }, requestState: 'not-from-gate' }, { id: 3 });
    const r3 = await post(gate.url, stray.body, stray.headers);
    assert.equal(r3.status, 200);
    assert.match(JSON.stringify(r3.json.result.content), /Echo: stray/);
  });
});

// A 2026-07-28 upstream (v2 SDK, modern-only) behind gate, next to a 2025-11-25 one: every
// pairing of client era and upstream era, with input requests in both directions.
describe('protocol eras: a 2026-07-28 upstream', { timeout: 180_000 }, () => {
  let modernUp;
  let classicUp;
  let gates;

  before(async () => {
    [modernUp, classicUp] = await Promise.all([startModernServer(), startEverything()]);
    gates = {};
    for (const mode of ['2026-07-28', 'auto']) {
      gates[mode] = await startGate({
        config: {
          upstreams: [
            { id: 'm', url: modernUp.url, namespace: 'm', protocol: mode },
            { id: 'ev', url: classicUp.url, namespace: 'ev', protocol: 'auto' },
          ],
        },
      });
    }
  });

  after(async () => {
    for (const g of Object.values(gates ?? {})) await g.stop();
    await Promise.all([modernUp?.stop(), classicUp?.stop()]);
  });

  test('a 2025-11-25 client\'s logging/setLevel travels in the _meta of its requests to a 2026-07-28 upstream', { timeout: 30_000 }, async () => {
    const client = await connectClient(gates['2026-07-28'].url, { name: 'leveled' });
    try {
      await client.setLoggingLevel('error');
      await client.callTool({ name: 'm__echo', arguments: { message: 'leveled' } });
    } finally {
      await client.close();
    }
    const call = modernUp.requests.findLast((r) => r.body?.method === 'tools/call' && r.body.params?.arguments?.message === 'leveled');
    assert.equal(call.body.params._meta['io.modelcontextprotocol/logLevel'], 'error');
    // A 2026-07-28 client's own level is checked, and passed on as it sent it.
    const raw = await post(
      gates['2026-07-28'].url,
      modern('tools/call', { name: 'm__echo', arguments: { message: 'own-level' } }, { meta: { 'io.modelcontextprotocol/logLevel': 'notice' } }).body,
      modern('tools/call', { name: 'm__echo' }).headers,
    );
    assert.equal(raw.status, 200);
    const own = modernUp.requests.findLast((r) => r.body?.params?.arguments?.message === 'own-level');
    assert.equal(own.body.params._meta['io.modelcontextprotocol/logLevel'], 'notice');
    const loud = modern('tools/list', {}, { meta: { 'io.modelcontextprotocol/logLevel': 'loud' } });
    const refused = await post(gates['2026-07-28'].url, loud.body, loud.headers);
    assert.equal(refused.status, 400);
    assert.equal(refused.json.error.code, -32602);
    assert.match(refused.json.error.message, /logLevel must be one of debug/);
  });

  for (const mode of ['2026-07-28', 'auto']) {
    test(`protocol ${mode}: a 2025-11-25 client answers the upstream's input requests as server requests`, { timeout: 30_000 }, async () => {
      const gate = gates[mode];
      const client = await connectClient(gate.url, { capabilities: FULL_CLIENT_CAPABILITIES });
      const asked = [];
      client.setRequestHandler(ElicitRequestSchema, async (r) => {
        asked.push(r.params.message);
        return { action: 'accept', content: { name: 'alice' } };
      });
      client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'from alice' } }));
      try {
        const names = (await client.listTools()).tools.map((t) => t.name);
        for (const n of ['m__echo', 'm__confirm', 'ev__echo']) assert.ok(names.includes(n), n);
        const echo = await client.callTool({ name: 'm__echo', arguments: { message: 'x' } });
        assert.deepEqual(echo.content, [{ type: 'text', text: 'Echo: x' }]);
        const confirmed = await client.callTool({ name: 'm__confirm', arguments: { action: 'deploy' } });
        assert.deepEqual(confirmed.content, [{ type: 'text', text: 'deploy confirmed by alice' }]);
        assert.deepEqual(asked, ['Who confirms deploy?']);
        const sampled = await client.callTool({ name: 'm__sample', arguments: { prompt: 'hi' } });
        assert.deepEqual(sampled.content, [{ type: 'text', text: 'sampled: from alice' }]);
        // The classic upstream next to it still speaks its own era through the same gate.
        const classic = await client.callTool({ name: 'ev__echo', arguments: { message: 'y' } });
        assert.deepEqual(classic.content, [{ type: 'text', text: 'Echo: y' }]);
      } finally {
        await client.close();
      }
      // The upstream saw 2026-07-28 requests only: no initialize, envelope and headers set.
      const seen = modernUp.requests.filter((r) => r.body?.method);
      assert.ok(!seen.some((r) => r.body.method === 'initialize'));
      const call = seen.find((r) => r.body.method === 'tools/call' && r.body.params.name === 'confirm');
      assert.equal(call.headers['mcp-protocol-version'], MODERN);
      assert.equal(call.headers['mcp-method'], 'tools/call');
      assert.equal(call.headers['mcp-name'], 'confirm');
      assert.equal(call.body.params._meta['io.modelcontextprotocol/protocolVersion'], MODERN);
      const retry = seen.find((r) => r.body.method === 'tools/call' && r.body.params.inputResponses?.who);
      assert.equal(retry.body.params.requestState, 'state-for-deploy');
    });

    test(`protocol ${mode}: a 2026-07-28 client gets input_required and retries through gate`, { timeout: 30_000 }, async () => {
      const gate = gates[mode];
      const client = new Client({ name: 'modern', version: '0' }, { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'auto' } });
      client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'bob' } }));
      await client.connect(new StreamableHTTPClientTransport(new URL(gate.url)));
      try {
        assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
        const r = await client.callTool({ name: 'm__confirm', arguments: { action: 'ship' } });
        assert.deepEqual(r.content, [{ type: 'text', text: 'ship confirmed by bob' }]);
        const classic = await client.callTool({ name: 'ev__echo', arguments: { message: 'z' } });
        assert.deepEqual(classic.content, [{ type: 'text', text: 'Echo: z' }]);
      } finally {
        await client.close();
      }
      // The client's own capabilities, not gate's, went upstream.
      const call = modernUp.requests.filter((q) => q.body?.params?.name === 'confirm').at(-1);
      assert.deepEqual(call.body.params._meta['io.modelcontextprotocol/clientCapabilities'], { elicitation: {} });
    });
  }

  test('passthrough in front of a 2026-07-28 upstream presents its discovery as the handshake', { timeout: 30_000 }, async () => {
    const gate = await startGate({ config: { upstreams: [{ id: 'm', url: modernUp.url, protocol: '2026-07-28' }] } });
    try {
      const client = await connectClient(gate.url);
      assert.equal(client.getServerVersion().name, 'gate-test-modern-server');
      const r = await client.callTool({ name: 'echo', arguments: { message: 'p' } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'Echo: p' }]);
      await client.close();
    } finally {
      await gate.stop();
    }
  });

  test('protocol auto in front of a 2025-11-25 upstream falls back to the sessionful handshake', { timeout: 30_000 }, async () => {
    const gate = gates.auto;
    const client = await connectClient(gate.url, { capabilities: FULL_CLIENT_CAPABILITIES });
    try {
      const r = await client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'auto' } });
      assert.match(JSON.stringify(r.content), /stub/);
    } finally {
      await client.close();
    }
  });
});
