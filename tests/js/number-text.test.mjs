// Numbers keep their text through gate (issue 32, item 7). Boost.JSON keeps no number's text:
// 123456789012345678901234567890 was re-written 1.2345678901234568E29, 1.00000000000000000001
// as 1E0, -0.0 as -0E0 and 1e400 as Infinity, which is not JSON. A raw upstream
// (lib/raw-upstream.mjs) records the bytes gate sent it and answers with bytes of its own;
// raw clients of both eras (a 2025-11-25 session, 2026-07-28 stateless requests) call it
// through gate in passthrough and in namespaced mode, at an upstream of either era: the
// arguments arrive as the client wrote them, the result, the upstream's progress and its
// question to the client arrive as the upstream wrote them, and the client's answer arrives
// as the client wrote it, wherever gate rewrote a name, added an envelope or changed an id;
// the upstream's tool list (a schema's bounds) is listed as written, its names rewritten.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { MCP_ACCEPT, post, startGate } from './lib/index.mjs';
import { startRawUpstream } from './lib/raw-upstream.mjs';

const MODERN = '2026-07-28';
const NUMBERS = '{"big":123456789012345678901234567890,"frac":1.00000000000000000001,"neg":-0.0,"exp":1e400}';
const RESULT = `{"content":[{"type":"text","text":"ok"}],"structuredContent":${NUMBERS},"_meta":{"usage":{"units":0.50}}}`;
const PROGRESS = '{"progressToken":"p","progress":0.50,"total":1e400}';
const QUESTION = `{"messages":[{"role":"user","content":{"type":"text","text":"?"}}],"maxTokens":20,"temperature":0.70,"metadata":${NUMBERS}}`;
const ANSWER = `{"role":"assistant","content":{"type":"text","text":"sampled"},"model":"m","_meta":{"score":0.50,"n":${NUMBERS}}}`;
const SCHEMA = '{"type":"object","properties":{"big":{"type":"number","maximum":1e400,"multipleOf":0.50}}}';
const ENVELOPE = `"_meta":{"io.modelcontextprotocol/protocolVersion":"${MODERN}","io.modelcontextprotocol/clientCapabilities":{"sampling":{}},"io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"}}`;

let nextId = 1;

/**
 * POSTs `body` (a text) and reads the answer, a JSON body or an event stream; each request
 * on the stream is handed to `answer(message, text)` before reading on. Resolves
 * { status, texts } with every message's text as it arrived.
 */
async function converse(url, body, headers, answer) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
    body,
    signal: AbortSignal.timeout(15_000),
  });
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream')) return { status: res.status, texts: [await res.text()] };
  const texts = [];
  const decoder = new TextDecoder();
  let buf = '';
  for await (const chunk of res.body) {
    buf += decoder.decode(chunk, { stream: true });
    for (let cut = buf.indexOf('\n\n'); cut >= 0; cut = buf.indexOf('\n\n')) {
      const data = buf
        .slice(0, cut)
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      buf = buf.slice(cut + 2);
      if (!data) continue;
      texts.push(data);
      const m = JSON.parse(data);
      if (m.method && m.id !== undefined) await answer?.(m, data);
    }
  }
  return { status: res.status, texts };
}

/** A 2025-11-25 session of a client that can sample: the headers its requests carry. */
async function openSession(url) {
  const init = await post(
    url,
    `{"jsonrpc":"2.0","id":${nextId++},"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"raw","version":"0"}}}`,
  );
  assert.equal(init.status, 200, init.text);
  const headers = { 'mcp-session-id': init.headers['mcp-session-id'], 'mcp-protocol-version': '2025-11-25' };
  const note = await post(url, '{"jsonrpc":"2.0","method":"notifications/initialized"}', headers);
  assert.equal(note.status, 202);
  return headers;
}

/** A client of either era calling tool `name` with `args` (a text), answering questions. */
function caller(era, url, sessionHeaders) {
  return {
    call(name, args, { answer, extra = '' } = {}) {
      const id = nextId++;
      if (era === 'session') {
        const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}${extra}}}`;
        const reply = async (m) => {
          // The client's answer, as it writes it, under the id gate gave the question.
          const r = await post(url, `{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${answer}}`, sessionHeaders());
          assert.equal(r.status, 202, r.text);
        };
        return converse(url, body, sessionHeaders(), reply);
      }
      const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args}${extra},${ENVELOPE}}}`;
      return converse(url, body, { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name });
    },
    listTools() {
      const id = nextId++;
      if (era === 'session') return post(url, `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{}}`, sessionHeaders());
      return post(url, `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{${ENVELOPE}}}`, {
        'mcp-protocol-version': MODERN,
        'mcp-method': 'tools/list',
      });
    },
  };
}

describe('numbers keep their text through gate', { timeout: 120_000 }, () => {
  const up = {};
  const gates = {};

  before(async () => {
    const texts = { result: RESULT, progress: PROGRESS, question: QUESTION, schema: SCHEMA, state: '"s-1"' };
    [up.alpha, up.beta, up.solo] = await Promise.all([
      startRawUpstream(texts),
      startRawUpstream({ ...texts, modern: true }),
      startRawUpstream(texts),
    ]);
    [gates.namespaced, gates.passthrough] = await Promise.all([
      startGate({
        config: {
          upstreams: [
            { id: 'alpha', url: up.alpha.url, namespace: 'alpha' },
            { id: 'beta', url: up.beta.url, namespace: 'beta', protocol: MODERN },
          ],
        },
      }),
      startGate({ config: { upstreams: [{ id: 'solo', url: up.solo.url }] } }),
    ]);
  });

  after(async () => {
    await Promise.all(Object.values(gates).map((g) => g?.stop()));
    await Promise.all(Object.values(up).map((u) => u?.stop()));
  });

  const routes = [
    { what: 'passthrough', gate: 'passthrough', up: 'solo', prefix: '' },
    { what: 'namespaced, 2025-11-25 upstream', gate: 'namespaced', up: 'alpha', prefix: 'alpha__' },
    { what: 'namespaced, 2026-07-28 upstream', gate: 'namespaced', up: 'beta', prefix: 'beta__' },
  ];
  for (const route of routes) {
    for (const era of ['session', 'stateless']) {
      describe(`${route.what}, ${era} client`, () => {
        let client;
        before(async () => {
          const url = gates[route.gate].url;
          const headers = era === 'session' ? await openSession(url) : {};
          client = caller(era, url, () => headers);
        });

        test('arguments reach the upstream, and its result the client, as written', async () => {
          const { status, texts } = await client.call(`${route.prefix}echo`, NUMBERS);
          assert.equal(status, 200);
          const sent = up[route.up].lastBody('tools/call', 'echo');
          assert.ok(sent.includes(`"arguments":${NUMBERS}`), `the upstream received: ${sent}`);
          const got = texts.at(-1);
          assert.ok(got.includes(`"structuredContent":${NUMBERS}`), `the client received: ${got}`);
          assert.ok(got.includes('"usage":{"units":0.50}'), got);
        });

        test("the upstream's tool schema is listed as written", async () => {
          const { status, text, json } = await client.listTools();
          assert.equal(status, 200, text);
          assert.ok(json.result.tools.some((t) => t.name === `${route.prefix}echo`), text);
          assert.ok(text.includes(`"name":"${route.prefix}echo","inputSchema":${SCHEMA}`), `the client received: ${text}`);
          if (era === 'stateless') assert.equal(json.result.resultType, 'complete');
        });

        test("the upstream's progress reaches the client as written", async () => {
          const { texts } = await client.call(`${route.prefix}progress`, '{}', { extra: ',"_meta":{"progressToken":"p"}' });
          assert.ok(
            texts.some((t) => t.includes('"progress":0.50,"total":1e400')),
            `the client received: ${texts.join('\n')}`,
          );
          assert.ok(texts.at(-1).includes(`"structuredContent":${NUMBERS}`), texts.at(-1));
        });

        test("the upstream's question and the client's answer keep their numbers", async () => {
          const before = up[route.up].answers.length;
          let { texts } = await client.call(`${route.prefix}ask`, '{"n":2.50}', { answer: ANSWER });
          const asked = texts.find((t) => t.includes('sampling/createMessage'));
          assert.ok(asked?.includes(`"temperature":0.70,"metadata":${NUMBERS}`), `the client was asked: ${texts.join('\n')}`);
          if (era === 'stateless') {
            // Asked through an input_required result: the retry carries the answer.
            const first = JSON.parse(texts.at(-1)).result;
            assert.equal(first.resultType, 'input_required');
            const [key] = Object.keys(first.inputRequests);
            ({ texts } = await client.call(`${route.prefix}ask`, '{"n":2.50}', {
              extra: `,"inputResponses":{"${key}":${ANSWER}},"requestState":${JSON.stringify(first.requestState)}`,
            }));
          }
          assert.ok(texts.at(-1).includes(`"structuredContent":${NUMBERS}`), texts.at(-1));
          const answers = up[route.up].answers;
          assert.equal(answers.length, before + 1, 'the upstream heard the answer once');
          assert.ok(answers.at(-1).includes(`"_meta":{"score":0.50,"n":${NUMBERS}}`), `the upstream received: ${answers.at(-1)}`);
          if (route.up === 'beta') assert.ok(answers.at(-1).includes('"requestState":"s-1"'), answers.at(-1));
        });
      });
    }
  }
});
