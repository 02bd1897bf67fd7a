// GET streams: a session may hold up to 8 open streams; the 9th is refused with 429. DELETE
// ends the session's streams.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { closeRawSession, openRawSession, startEverything, startGate } from './lib/index.mjs';

// Opens a GET stream; resolves {status, req, res} once the response head arrives.
function openStream(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const ended = new Promise((r) => res.on('close', r));
      res.resume(); // consume, or 'close' never comes
      resolve({ status: res.statusCode, req, res, ended });
    });
    req.on('error', reject);
  });
}

describe('GET streams per session', { timeout: 60_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startEverything();
    gate = await startGate({ config: { upstreams: [{ id: 'ev', url: up.url, namespace: 'e' }] } });
  });

  after(async () => {
    await gate?.stop();
    await up?.stop();
  });

  test('eight streams are served, the ninth gets 429, DELETE ends them all', async () => {
    const s = await openRawSession(gate.url);
    const streams = [];
    for (let i = 0; i < 8; ++i) {
      const st = await openStream(gate.url, s.headers);
      assert.equal(st.status, 200);
      streams.push(st);
    }
    const ninth = await openStream(gate.url, s.headers);
    assert.equal(ninth.status, 429);
    await closeRawSession(gate.url, s);
    await Promise.all(streams.map((st) => st.ended));
  });

  test('a stream for an unknown session gets 404, one without a session 400', async () => {
    const unknown = await openStream(gate.url, { 'mcp-session-id': 'nope' });
    assert.equal(unknown.status, 404);
    const none = await openStream(gate.url, {});
    assert.equal(none.status, 400);
  });
});
