// GET /health of upstreams that take each caller's credential and have replicas, against the
// real binary (docs/operations.md, Introspection and the console): the handshake without a
// credential goes where a caller's new session would, the endpoints in rotation in order, on to
// the next when one refuses the connection (which ejects it), so one replica down does not read
// the upstream down while another answers; every replica down reads it down. A 2026-07-28
// upstream's probe is `server/discover`, the others' `initialize`, and none carries a
// credential. The upstreams: an SDK server that serves each user its own tools and refuses a
// request without a token (tests/js/lib/per-user-server.mjs); ports that refuse are bound by
// the kernel and closed again.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { eventually, get, startGate, startIdp } from './lib/index.mjs';
import { freePort } from './lib/free-port.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';

const RESOURCE = 'https://gate.example/mcp';

describe('/health of per-caller upstreams with replicas', { timeout: 60_000 }, () => {
  let idp;
  let pt; // refuses every request without a token it knows (all of gate's probes)
  let gate;
  let closed; // URLs nothing listens at

  before(async () => {
    [idp, pt] = await Promise.all([startIdp(), startPerUserServer(() => null)]);
    closed = [await freePort(), await freePort()].map((p) => `http://127.0.0.1:${p}/mcp`);
    const passthrough = { strategy: 'passthrough' };
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'replicas', urls: [closed[0], pt.url], namespace: 'replicas', auth: passthrough },
          { id: 'gone', urls: closed, namespace: 'gone', auth: passthrough },
          { id: 'modern', url: pt.url, namespace: 'modern', protocol: '2026-07-28', auth: passthrough },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      },
    });
  });
  after(async () => {
    await gate?.stop();
    await Promise.all([pt?.stop(), idp?.stop()]);
  });

  test('the first answer: up past a replica that refuses, down when every one does', async () => {
    const h = await get(`${gate.base}/health`);
    assert.equal(h.status, 200, h.text);
    const health = JSON.parse(h.text);
    assert.deepEqual(
      health.upstreams.map((u) => [u.id, u.status]),
      [['replicas', 'up'], ['gone', 'down'], ['modern', 'up']],
      h.text,
    );
    // What the answering server heard: one handshake per upstream, with no credential.
    assert.deepEqual(
      pt.seen.map((s) => [s.rpcMethod, s.token]).sort(),
      [['initialize', null], ['server/discover', null]],
      JSON.stringify(pt.seen),
    );
  });

  test('the replica that refused is out of rotation, and the upstream stays up', async () => {
    await eventually(async () => {
      const h = JSON.parse((await get(`${gate.base}/health`)).text);
      const replicas = h.upstreams.find((u) => u.id === 'replicas');
      assert.equal(replicas.status, 'up', JSON.stringify(h));
      return JSON.stringify(replicas.endpoints) === JSON.stringify([{ inRotation: false }, { inRotation: true }]);
    }, { what: 'the refusing replica ejected' });
  });
});
