// gate on two io threads (--io-threads 2, docs/io-threads.md) fetches an issuer's key set, asks
// an introspection endpoint about an opaque token, and fetches an upstream's client-credentials
// token once for the whole process, against the real binary: a JWT issuer whose key set fetches
// are counted, a real authorization server (oidc-provider) handing out opaque tokens, and a
// token endpoint in front of server-everything. Requests go over fresh connections, which the
// first thread hands to each thread in turn, or on SDK sessions held by each thread.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, initializeRequest, rawRequest, startEverything, startGate, startIdp, startRecordingProxy, threadOf } from './lib/index.mjs';
import { json, startFormEndpoint } from './lib/form-endpoint.mjs';
import { startThirdPartyAs } from './lib/third-party-as.mjs';

const RESOURCE = 'https://gate.example/mcp';
const INTROSPECTOR = { client_id: 'gate-introspector', client_secret: 'introspector-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'files:read' };
const ROBOT = { client_id: 'robot', client_secret: 'robot-secret', grant_types: ['client_credentials'], response_types: [], redirect_uris: [], scope: 'files:read' };
const INTROSPECT_PATH = '/token/introspection';

// One initialize per fresh connection (so over both threads, in turn), each answered 200.
async function initializeOnFreshConnections(gate, token, count = 4) {
  for (let i = 0; i < count; ++i) {
    const r = await rawRequest(gate.url, { body: JSON.stringify(initializeRequest()), headers: { authorization: `Bearer ${await token(i)}` } });
    assert.equal(r.status, 200, `connection ${i}: ${r.text}`);
  }
}

describe('auth across io threads', { timeout: 120_000 }, () => {
  let everything;

  before(async () => {
    everything = await startEverything();
  });

  after(async () => {
    await everything?.stop();
  });

  test("an issuer's key set is fetched once for both threads", async () => {
    const idp = await startIdp();
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      },
      args: ['--io-threads', '2'],
    });
    try {
      await initializeOnFreshConnections(gate, (i) => idp.mint({ aud: RESOURCE, sub: `user-${i}` }));
      assert.equal(idp.fetches(), 1, 'the second thread took the first thread\'s set');
    } finally {
      await gate.stop();
      await idp.stop();
    }
  });

  test('an opaque token is asked about once for both threads, a refused one too', async () => {
    const as = await startThirdPartyAs({ accessTokenFormat: 'opaque', clients: [INTROSPECTOR, ROBOT] });
    const gate = await startGate({
      config: {
        auth: {
          mode: 'required',
          resource: RESOURCE,
          introspection: { url: as.introspectionEndpoint, clientId: INTROSPECTOR.client_id, clientAuth: { type: 'client_secret_basic', secretRef: 'INTROSPECTION_SECRET' }, issuer: as.issuer, cacheSeconds: 60 },
        },
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
      },
      env: { INTROSPECTION_SECRET: INTROSPECTOR.client_secret },
      args: ['--io-threads', '2'],
    });
    try {
      const token = await as.clientToken(ROBOT.client_id, ROBOT.client_secret, RESOURCE);
      await initializeOnFreshConnections(gate, () => token);
      assert.equal(as.requests[INTROSPECT_PATH] ?? 0, 1, 'one question for the process');
      // A refused token too: the first thread's refusal is remembered by the second.
      for (let i = 0; i < 4; ++i) {
        const r = await rawRequest(gate.url, { body: JSON.stringify(initializeRequest()), headers: { authorization: 'Bearer made-up-opaque-token' } });
        assert.equal(r.status, 401);
      }
      assert.equal(as.requests[INTROSPECT_PATH] ?? 0, 2, 'one question about the made-up token');
    } finally {
      await gate.stop();
      await as.stop();
    }
  });

  test("an upstream's client-credentials token is fetched once, and carried by both threads' requests", async () => {
    let issued = 0;
    const tokens = await startFormEndpoint((form, res) => json(res, 200, { access_token: `tok-${++issued}`, token_type: 'Bearer', expires_in: 3600 }));
    const proxy = await startRecordingProxy(everything.url);
    const gate = await startGate({
      env: { CC_SECRET: 'cc-secret' },
      config: {
        upstreams: [{ id: 'cc', url: proxy.url, namespace: 'cc', auth: { strategy: 'client-credentials', tokenEndpoint: tokens.url, clientId: 'g', clientAuth: { type: 'client_secret_post', secretRef: 'CC_SECRET' } } }],
      },
      args: ['--io-threads', '2'],
    });
    const clients = [];
    try {
      const threads = new Set();
      while (threads.size < 2 && clients.length < 16) {
        const client = await connectClient(gate.url);
        clients.push(client);
        const thread = threadOf(client.transport.sessionId, 2);
        if (threads.has(thread)) continue;
        threads.add(thread);
        const r = await client.callTool({ name: 'cc__echo', arguments: { message: `on ${thread}` } });
        assert.match(r.content[0].text, new RegExp(`on ${thread}`));
      }
      assert.equal(threads.size, 2, 'a session on each thread');
      const posts = proxy.seen.filter((s) => s.httpMethod === 'POST');
      assert.ok(posts.length >= 4, 'both threads shook hands and called');
      for (const p of posts) assert.equal(p.headers.authorization, 'Bearer tok-1');
      assert.equal(tokens.requests.length, 1, 'one token for the process');
    } finally {
      for (const c of clients) await c.close().catch(() => {});
      await gate.stop();
      await Promise.all([proxy.stop(), tokens.stop()]);
    }
  });
});
