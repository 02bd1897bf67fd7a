// A 2026-07-28 client's calls as the revision has them (docs/protocol-eras.md): cancelled by
// closing the call's stream, at an upstream of either era (a 2026-07-28 upstream sees its
// exchange closed; a 2025-11-25 one gets notifications/cancelled naming gate's id for the
// call); a session client's notifications/cancelled reaching a 2026-07-28 upstream the same
// way; and a parked call's requestState (input_required) bound to the caller that got it and
// to its request, asked again when the retry leaves an answer out, its Mcp-Param-* headers
// checked like any call's. Real gate, real SDK servers of both eras, server-everything.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, modernRequest, openRawSession, post, startEverything, startGate, startIdp } from './lib/index.mjs';
import { startRawUpstream } from './lib/raw-upstream.mjs';
import { startClassicWaitServer, startModernWaitServer } from './lib/wait-servers.mjs';

const MODERN = '2026-07-28';
const RESOURCE = 'https://gate.test/mcp';
const LONG_MS = 60_000; // a call that would outlive the test unless cancelled

const modern = modernRequest;

/** Resolves once `list` (pushed to by a fixture) holds an entry `pred` accepts; checked on each push. */
function eventually(list, pred, what) {
  return new Promise((resolve, reject) => {
    const found = list.find(pred);
    if (found) return resolve(found);
    const push = list.push.bind(list);
    const timer = setTimeout(() => reject(new Error(`never seen: ${what}; seen ${JSON.stringify(list)}`)), 20_000);
    list.push = (...items) => {
      const n = push(...items);
      const hit = items.find(pred);
      if (hit) {
        clearTimeout(timer);
        list.push = push;
        resolve(hit);
      }
      return n;
    };
  });
}

describe('2026-07-28 calls: cancellation and parked retries', { timeout: 120_000 }, () => {
  let classic, modernUp, everything, raw, idp, gate;
  let alice, bob;

  before(async () => {
    [classic, modernUp, everything, idp] = await Promise.all([startClassicWaitServer(), startModernWaitServer(), startEverything(), startIdp()]);
    raw = await startRawUpstream({
      askSchema: '{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}',
      result: '{"content":[{"type":"text","text":"answered"}]}',
      question: '{"messages":[{"role":"user","content":{"type":"text","text":"which?"}}],"maxTokens":5}',
    });
    gate = await startGate({
      config: {
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        upstreams: [
          { id: 'cl', url: classic.url, namespace: 'cl' },
          { id: 'mo', url: modernUp.url, namespace: 'mo', protocol: MODERN },
          { id: 'ev', url: everything.url, namespace: 'ev' },
          { id: 'raw', url: raw.url, namespace: 'raw' },
        ],
      },
    });
    alice = { authorization: `Bearer ${await idp.mint({ sub: 'alice', aud: RESOURCE })}` };
    bob = { authorization: `Bearer ${await idp.mint({ sub: 'bob', aud: RESOURCE })}` };
    // gate learns the tools (and their x-mcp-header annotations) from its lists.
    const listed = modern('tools/list', {}, { headers: alice });
    const r = await post(gate.url, listed.body, listed.headers);
    assert.equal(r.status, 200, r.text);
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([classic?.stop(), modernUp?.stop(), everything?.stop(), raw?.stop(), idp?.stop()]);
  });

  /** Starts a 2026-07-28 call of `name` waiting `ms`, and closes its stream once `up` has it. */
  async function callAndHangUp(up, name, ms) {
    const { body, headers } = modern('tools/call', { name, arguments: { ms } }, { headers: alice });
    const abort = new AbortController();
    const pending = fetch(gate.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify(body),
      signal: abort.signal,
    }).catch((e) => e);
    const sent = await eventually(up.methods, (m) => m.method === 'tools/call' && m.params?.arguments?.ms === ms, `${name} upstream`);
    abort.abort();
    assert.equal((await pending).name, 'AbortError');
    return sent;
  }

  test('closing the stream cancels the call at a 2026-07-28 upstream: gate closes its exchange', async () => {
    await callAndHangUp(modernUp, 'mo__wait', LONG_MS + 1);
    const closed = await eventually(modernUp.events, (e) => e.outcome === 'closed' && e.ms === LONG_MS + 1, 'the upstream exchange closed');
    assert.equal(closed.name, 'wait');
    // Nothing else was sent for it (2026-07-28 has no cancellation notification over HTTP).
    assert.ok(!modernUp.methods.some((m) => m.method === 'notifications/cancelled'), JSON.stringify(modernUp.methods));
  });

  test('closing the stream cancels the call at a 2025-11-25 upstream: notifications/cancelled with gate\'s id', async () => {
    const sent = await callAndHangUp(classic, 'cl__wait', LONG_MS + 2);
    const cancelled = await eventually(classic.events, (e) => e.outcome === 'cancelled', 'the upstream call cancelled');
    const note = classic.methods.find((m) => m.method === 'notifications/cancelled');
    assert.ok(note, JSON.stringify(classic.methods));
    assert.equal(note.params.requestId, sent.id, 'the notification names the id gate sent the call under');
    assert.equal(cancelled.requestId, sent.id);
    assert.match(note.params.reason, /closed its stream/);
    assert.ok(!classic.events.some((e) => e.outcome === 'finished'), 'the upstream call did not run to its end');
  });

  test('a session client\'s notifications/cancelled closes the exchange at a 2026-07-28 upstream', async () => {
    const session = await openRawSession(gate.url, alice);
    try {
      const ms = LONG_MS + 3;
      const call = post(gate.url, { jsonrpc: '2.0', id: 41, method: 'tools/call', params: { name: 'mo__wait', arguments: { ms } } }, session.headers);
      await eventually(modernUp.methods, (m) => m.method === 'tools/call' && m.params?.arguments?.ms === ms, 'the session call upstream');
      const r = await post(gate.url, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 41, reason: 'user stopped it' } }, session.headers);
      assert.equal(r.status, 202, r.text);
      const closed = await eventually(modernUp.events, (e) => e.outcome === 'closed' && e.ms === ms, 'the exchange closed');
      assert.equal(closed.name, 'wait');
      const answered = await call; // the call ends now, not after a minute
      assert.equal(answered.status, 200, answered.text);
      assert.ok(!modernUp.methods.some((m) => m.method === 'notifications/cancelled'), 'not posted as a notification');
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  /** Alice's call that everything's sampling tool parks: its input_required result. */
  async function parkedCall(prompt) {
    const first = modern('tools/call', { name: 'ev__trigger-sampling-request', arguments: { prompt } }, { headers: alice, capabilities: { sampling: {} } });
    const r = await post(gate.url, first.body, first.headers);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.resultType, 'input_required', r.text);
    return r.json.result;
  }
  const retry = (who, prompt, state, responses, id = 2) =>
    modern('tools/call', { name: 'ev__trigger-sampling-request', arguments: { prompt }, requestState: state, ...(responses ? { inputResponses: responses } : {}) }, { id, headers: who, capabilities: { sampling: {} } });

  test('a requestState resumes only its caller\'s retry of the same call', async () => {
    const parked = await parkedCall('bound');
    const [key] = Object.keys(parked.inputRequests);
    const answer = { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'from alice' } } };
    const stolen = retry(bob, 'bound', parked.requestState, answer, 3);
    const r3 = await post(gate.url, stolen.body, stolen.headers);
    assert.equal(r3.status, 400, r3.text);
    assert.equal(r3.json.error.code, -32602);
    assert.match(r3.json.error.message, /issued to another caller/);
    const changed = retry(alice, 'other arguments', parked.requestState, answer, 4);
    const r4 = await post(gate.url, changed.body, changed.headers);
    assert.equal(r4.status, 400, r4.text);
    assert.match(r4.json.error.message, /belongs to another request/);
    // Neither took the call away from its own retry.
    const own = retry(alice, 'bound', parked.requestState, answer, 5);
    const r5 = await post(gate.url, own.body, own.headers);
    assert.equal(r5.status, 200, r5.text);
    assert.equal(r5.json.id, 5);
    assert.match(JSON.stringify(r5.json.result.content), /from alice/);
  });

  test('a retry that leaves an answer out is asked again, then completes', async () => {
    const parked = await parkedCall('again');
    const [key] = Object.keys(parked.inputRequests);
    for (const [id, responses] of [[6, undefined], [7, {}]]) {
      const bare = retry(alice, 'again', parked.requestState, responses, id);
      const r = await post(gate.url, bare.body, bare.headers);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.json.id, id);
      assert.equal(r.json.result.resultType, 'input_required', r.text);
      assert.deepEqual(r.json.result.inputRequests, parked.inputRequests, 'the same question, asked again');
      parked.requestState = r.json.result.requestState;
    }
    const answered = retry(alice, 'again', parked.requestState, { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'at last' } } }, 8);
    const r = await post(gate.url, answered.body, answered.headers);
    assert.equal(r.status, 200, r.text);
    assert.match(JSON.stringify(r.json.result.content), /at last/);
  });

  test('a retry\'s Mcp-Param-* headers must mirror its arguments like any call\'s', async () => {
    const first = modern('tools/call', { name: 'raw__ask', arguments: { region: 'eu' } }, { headers: { ...alice, 'mcp-param-region': 'eu' }, capabilities: { sampling: {} } });
    const r1 = await post(gate.url, first.body, first.headers);
    assert.equal(r1.status, 200, r1.text);
    assert.equal(r1.json.result.resultType, 'input_required', r1.text);
    const [key] = Object.keys(r1.json.result.inputRequests);
    const lying = modern('tools/call', { name: 'raw__ask', arguments: { region: 'eu' }, requestState: r1.json.result.requestState, inputResponses: { [key]: { role: 'assistant', model: 'm', content: { type: 'text', text: 'x' } } } }, { id: 2, headers: { ...alice, 'mcp-param-region': 'us' }, capabilities: { sampling: {} } });
    const r2 = await post(gate.url, lying.body, lying.headers);
    assert.equal(r2.status, 400, r2.text);
    assert.equal(r2.json.error.code, -32020, r2.text);
    assert.match(r2.json.error.message, /Region/);
    // The parked call is still there for the honest retry.
    lying.headers['mcp-param-region'] = 'eu';
    const r3 = await post(gate.url, lying.body, lying.headers);
    assert.equal(r3.status, 200, r3.text);
    assert.match(JSON.stringify(r3.json.result.content), /answered/);
  });
});
