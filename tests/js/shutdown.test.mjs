// SIGTERM: gate stops accepting, lets a call already in flight finish (within the 10 s
// drain bound), answers it, and exits 0. The upstream is a stub whose answer the test
// releases, so the call is provably in flight when the signal lands (no timing guesses).
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { connectClient, post, startGate } from './lib/index.mjs';

function startControlledUpstream() {
  let arrived;
  const callArrived = new Promise((r) => (arrived = r));
  let release;
  const released = new Promise((r) => (release = r));
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      const msg = JSON.parse(body || '{}');
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      let result = {};
      if (msg.method === 'initialize') {
        res.setHeader('Mcp-Session-Id', 'stub-session');
        result = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 'stub', version: '1' } };
      } else if (msg.method === 'tools/call') {
        arrived();
        await released;
        result = { content: [{ type: 'text', text: 'finished after SIGTERM' }] };
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}/mcp`,
        callArrived,
        release,
        close: () => {
          server.closeAllConnections();
          return new Promise((r) => server.close(r));
        },
      }),
    ),
  );
}

describe('shutdown drain', { timeout: 120_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startControlledUpstream();
    gate = await startGate({ config: { upstreams: [{ id: 'stub', url: up.url, namespace: 's' }] } });
  });

  after(async () => {
    await gate?.stop();
    await up?.close();
  });

  test('a call in flight at SIGTERM is answered, then gate exits 0', async () => {
    const client = await connectClient(gate.url);
    const slow = client.callTool({ name: 's__work', arguments: {} });
    await up.callArrived;
    gate.kill('SIGTERM');
    // New connections are refused once draining started (the acceptor closes on the signal).
    let refused = false;
    for (let i = 0; i < 100 && !refused; ++i) {
      refused = await post(gate.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, {}, { timeoutMs: 2_000 }).then(
        () => false,
        () => true,
      );
    }
    assert.ok(refused, 'gate kept accepting new connections after SIGTERM');
    up.release();
    const result = await slow;
    assert.deepEqual(result.content, [{ type: 'text', text: 'finished after SIGTERM' }]);
    const exit = await gate.proc.exited;
    assert.equal(exit.code, 0, JSON.stringify(exit));
  });

  test('a call still running at the 10 s drain bound is cut, and gate exits 0', { timeout: 60_000 }, async () => {
    const hung = await startControlledUpstream(); // never released: the call outlives the drain
    const g = await startGate({ config: { upstreams: [{ id: 'stub', url: hung.url, namespace: 's' }] } });
    try {
      const client = await connectClient(g.url);
      const call = client.callTool({ name: 's__work', arguments: {} }, undefined, { timeout: 60_000 }).then(
        () => 'answered',
        (e) => `failed: ${e.message}`,
      );
      await hung.callArrived;
      const t0 = Date.now();
      g.kill('SIGTERM');
      const exit = await g.proc.exited;
      const waited = Date.now() - t0;
      assert.equal(exit.code, 0, JSON.stringify(exit));
      // It waited for the call up to the bound (not cut at once), and no longer than the bound
      // and the 3 s flush bound allow.
      assert.ok(waited >= 9_500, `drained ${waited} ms before cutting`);
      assert.ok(waited < 15_000, `took ${waited} ms to exit`);
      assert.match(await call, /^failed/);
      assert.ok(g.stderrLines.some((l) => /draining up to 10 s/.test(l)));
    } finally {
      hung.release();
      await g.stop();
      await hung.close();
    }
  });
});
