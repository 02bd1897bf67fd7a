// Hostile connections against the real binary: clients that stall in the middle of a request
// line, and an oversized header. The listener's bounds (header 10 s, idle 60 s, 32 KiB of
// header, a connection cap) are pinned with small values in tests/unit/http_server_limits_test;
// here the real gate keeps serving /health and MCP while 200 connections stall, then answers
// each of them 408 when its header time is up. Anonymous callers flooding the session table
// from one address (each address has a share of it) leave room for the others.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import {
  connectClient,
  initializeRequest,
  metric,
  notification,
  rawRequest,
  rpc,
  startEverything,
  startGate,
} from './lib/index.mjs';

function stall(port) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write('POST /mcp HT');
      const chunks = [];
      socket.on('data', (d) => chunks.push(d));
      const closed = new Promise((done) => socket.on('close', () => done(Buffer.concat(chunks).toString())));
      resolve({ socket, closed });
    });
    socket.on('error', reject);
  });
}

describe('hostile connections', { timeout: 60_000 }, () => {
  let everything;
  let gate;

  before(async () => {
    everything = await startEverything();
    gate = await startGate({ config: { upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }] } });
  });

  after(async () => {
    await gate?.stop();
    await everything?.stop();
  });

  test('200 stalled connections: /health and MCP keep answering, each stall gets 408', async () => {
    const started = Date.now();
    const stalled = await Promise.all(Array.from({ length: 200 }, () => stall(gate.port)));
    const health = await fetch(`${gate.base}/health`);
    assert.equal(health.status, 200);
    const client = await connectClient(gate.url);
    try {
      const r = await client.callTool({ name: 'ev__echo', arguments: { message: 'still here' } });
      assert.match(r.content[0].text, /still here/);
    } finally {
      await client.close();
    }
    const answers = await Promise.all(stalled.map((s) => s.closed));
    for (const a of answers) assert.match(a, /^HTTP\/1\.1 408 /);
    const elapsed = Date.now() - started;
    assert.ok(elapsed >= 9_000 && elapsed < 30_000, `closed after ${elapsed} ms`);
  });

  test('an oversized header is answered 431', async () => {
    const res = await rawRequest(gate.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-filler': 'a'.repeat(40 * 1024) },
      body: '{}',
    });
    assert.equal(res.status, 431);
    assert.match(res.text, /larger than 32768 bytes/);
    assert.equal((await fetch(`${gate.base}/health`)).status, 200);
    // Worded and counted by the gateway (its table of errors), like every other refusal: the
    // stalls of the test before as header timeouts, this one as an oversized header.
    const m = await (await fetch(`${gate.base}/metrics`)).text();
    assert.equal(metric(m, 'gate_http_rejections_total', { reason: 'header_too_large' }), 1);
    assert.equal(metric(m, 'gate_http_rejections_total', { reason: 'header_timeout' }), 200);
  });

  describe('the session table shared among anonymous client addresses', () => {
    let small; // a table of 6, 3 per address
    before(async () => {
      small = await startGate({
        config: { upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }], server: { sessions: { max: 6, perPrincipal: 3 } } },
      });
    });
    after(() => small?.stop());

    // Raw exchanges from a client address of its own (Linux routes all of 127/8 to loopback).
    const from = (address, body, headers = {}) => rawRequest(small.url, { localAddress: address, headers, body: JSON.stringify(body) });
    const open = async (address) => {
      const r = await from(address, initializeRequest());
      assert.equal(r.status, 200, r.text);
      const headers = { 'mcp-session-id': r.headers['mcp-session-id'], 'mcp-protocol-version': r.json.result.protocolVersion };
      assert.equal((await from(address, notification('notifications/initialized'), headers)).status, 202);
      return headers;
    };
    // One after another: each use makes its session the most recently used.
    const pings = async (address, sessions) => {
      const out = [];
      for (const s of sessions) out.push((await from(address, rpc('ping'), s)).status);
      return out;
    };

    test('one address opening more than its share ends its own idle sessions; a full table takes from it first; the others initialize and call', async () => {
      const flood = [];
      for (let i = 0; i < 5; i++) flood.push(await open('127.0.0.2'));
      assert.deepEqual(await pings('127.0.0.2', flood), [404, 404, 200, 200, 200], 'the two oldest made room');

      // Two more addresses fill the table (3 + 2 + 1). A fourth finds it full: the flood holds
      // the most above the fair share (6 / 4), so its least recently used session goes.
      const others = [await open('127.0.0.3'), await open('127.0.0.3')];
      const third = await open('127.0.0.4');
      const newcomer = await open('127.0.0.5');
      const call = await from('127.0.0.5', rpc('tools/call', { name: 'ev__echo', arguments: { message: 'room for me' } }), newcomer);
      assert.equal(call.status, 200, call.text);
      assert.match(call.json.result.content[0].text, /room for me/);
      assert.deepEqual(await pings('127.0.0.2', flood.slice(2)), [404, 200, 200]);
      assert.deepEqual(await pings('127.0.0.3', others), [200, 200]);
      assert.deepEqual(await pings('127.0.0.4', [third]), [200]);

      const text = await (await fetch(`${small.base}/metrics`)).text();
      assert.equal(metric(text, 'gate_session_evictions_total', { reason: 'principal_share' }), 2);
      assert.equal(metric(text, 'gate_session_evictions_total', { reason: 'table_full' }), 1);
      assert.equal(metric(text, 'gate_downstream_sessions', {}), 6);
      assert.equal(metric(text, 'gate_session_messages_dropped_total', {}), 0, 'no queue overflowed');
      assert.match(small.stderrLines.join('\n'), /ended an idle session of anonymous 127\.0\.0\.2 \(unused for \d+ s\)/);
    });
  });
});
