// Hostile connections against the real binary: clients that stall in the middle of a request
// line, and an oversized header. The listener's bounds (header 10 s, idle 60 s, 32 KiB of
// header, a connection cap) are pinned with small values in tests/unit/http_server_limits_test;
// here the real gate keeps serving /health and MCP while 200 connections stall, then answers
// each of them 408 when its header time is up.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { connectClient, rawRequest, startEverything, startGate } from './lib/index.mjs';

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
  });
});
