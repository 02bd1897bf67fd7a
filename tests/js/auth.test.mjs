// Inbound authentication (auth.mode "required") against the real binary: a test identity
// provider on loopback (keys made with openssl, tokens minted with the `jose` library), the
// official SDK client with and without a token, and every hostile token the spec names.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { SignJWT, base64url } from 'jose';

import {
  connectClient,
  get,
  initializeRequest,
  metric,
  openRawSession,
  post,
  rawRequest,
  rpc,
  startEverything,
  startGate,
  startIdp,
} from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

const bearer = (token) => ({ authorization: `Bearer ${token}` });

describe('auth.mode required', { timeout: 120_000 }, () => {
  let everything;
  let idp; // trusted, ES256 and RS256 keys, groups in `roles`
  let slow; // trusted, its key set answers after 8 s
  let huge; // trusted, its key set is 300 KiB
  let stranger; // not trusted
  let gate;

  before(async () => {
    everything = await startEverything();
    [idp, slow, huge, stranger] = await Promise.all([
      startIdp({ algs: ['ES256', 'RS256', 'EdDSA'] }),
      startIdp(),
      startIdp(),
      startIdp(),
    ]);
    slow.setBehaviour({ delayMs: 8000 });
    huge.setBehaviour({ body: JSON.stringify({ keys: [], pad: 'x'.repeat(300 * 1024) }) });
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev', owner: { team: 'platform' }, labels: { tier: 'gold' } }],
        audit: { sinks: [{ type: 'stdout' }] },
        routing: { pageSize: 4 },
        auth: {
          mode: 'required',
          resource: RESOURCE,
          issuers: [
            { issuer: idp.issuer, groupsClaim: 'roles' },
            { issuer: slow.issuer },
            { issuer: huge.issuer },
          ],
        },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([idp, slow, huge, stranger].map((p) => p?.stop()));
    await everything?.stop();
  });

  async function refused(token, { status = 401, description } = {}) {
    const res = await post(gate.url, initializeRequest(), token === undefined ? {} : bearer(token));
    assert.equal(res.status, status, res.text);
    const challenge = res.headers['www-authenticate'];
    assert.match(challenge, /^Bearer resource_metadata="https:\/\/gate\.example\/\.well-known\/oauth-protected-resource\/mcp"/);
    const body = JSON.parse(res.text);
    if (description) assert.match(body.error_description, description);
    return { res, challenge, body };
  }

  test('auth.mode required answers a request without a token 401 with the challenge', async () => {
    const before = gate.auditEvents().length;
    const { challenge, body } = await refused(undefined, { description: /needs a Bearer token/ });
    assert.doesNotMatch(challenge, /error=/, 'no token sent: the challenge carries no error');
    assert.equal(body.error, 'unauthorized');
    // GET and DELETE on the MCP endpoint too.
    const g = await get(gate.url, { accept: 'text/event-stream', 'mcp-session-id': 'x' });
    assert.equal(g.status, 401);
    const d = await rawRequest(gate.url, { method: 'DELETE', headers: { 'mcp-session-id': 'x' } });
    assert.equal(d.status, 401);
    const events = await gate.waitForAudit((ev) => ev.length >= before + 3);
    const mine = events.slice(before);
    assert.ok(mine.every((e) => e.outcome === 'unauthenticated' && e.method === 'http'), JSON.stringify(mine));
    const metrics = await (await fetch(`${gate.base}/metrics`)).text();
    assert.ok(metric(metrics, 'gate_http_rejections_total', { reason: 'unauthenticated' }) >= 3);
  });

  test('with auth required, /health hides its detail fields', async () => {
    const res = await fetch(`${gate.base}/health`);
    assert.equal(res.status, 200);
    const text = await res.text();
    const [up] = JSON.parse(text).upstreams;
    assert.equal(up.id, 'ev');
    assert.equal(up.status, 'up');
    for (const hidden of ['urls', 'owner', 'labels', 'error']) assert.equal(up[hidden], undefined, hidden);
    assert.ok(!text.includes(everything.url) && !text.includes('platform') && !text.includes('gold'), text);
  });

  test('the challenge leads to the resource metadata (RFC 9728)', async () => {
    const { challenge } = await refused(undefined);
    const url = new URL(/resource_metadata="([^"]+)"/.exec(challenge)[1]);
    for (const path of [url.pathname, '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${gate.base}${path}`);
      assert.equal(res.status, 200, path);
      const meta = await res.json();
      assert.equal(meta.resource, RESOURCE);
      assert.deepEqual(meta.authorization_servers, [idp.issuer, slow.issuer, huge.issuer]);
      assert.deepEqual(meta.bearer_methods_supported, ['header']);
    }
  });

  test('an SDK client with a token lists and calls; audit names the principal', async () => {
    for (const key of idp.keys) {
      const token = await idp.mint({ aud: RESOURCE, sub: `user-${key.alg}`, roles: ['eng'] }, { key });
      const client = await connectClient(gate.url, { requestInit: { headers: bearer(token) } });
      try {
        const { tools } = await client.listTools();
        assert.ok(tools.some((t) => t.name === 'ev__echo'));
        const r = await client.callTool({ name: 'ev__echo', arguments: { message: key.alg } });
        assert.match(r.content[0].text, new RegExp(key.alg));
      } finally {
        await client.close();
      }
      const events = await gate.waitForAudit((ev) =>
        ev.some((e) => e.method === 'tools/call' && e.principal === `user-${key.alg}`),
      );
      const call = events.find((e) => e.method === 'tools/call' && e.principal === `user-${key.alg}`);
      assert.equal(call.issuer, idp.issuer);
      assert.equal(call.outcome, 'ok');
    }
  });

  test('an SDK client without a token cannot connect', async () => {
    await assert.rejects(connectClient(gate.url), /401|Unauthorized|invalid_token|auth/i);
  });

  test("one principal cannot use another's session", async () => {
    const alice = await idp.mint({ aud: RESOURCE, sub: 'alice' });
    const bob = await idp.mint({ aud: RESOURCE, sub: 'bob' });
    const session = await openRawSession(gate.url, bearer(alice));
    const asBob = { ...session.headers, ...bearer(bob) };
    const call = await post(gate.url, rpc('tools/list', {}), asBob);
    assert.equal(call.status, 404, call.text);
    assert.match(call.text, /unknown or expired session/);
    const stream = await get(gate.url, { ...asBob, accept: 'text/event-stream' });
    assert.equal(stream.status, 404);
    const del = await rawRequest(gate.url, { method: 'DELETE', headers: asBob });
    assert.equal(del.status, 404);
    // The session is still alice's, and still works for her.
    const mine = await post(gate.url, rpc('tools/list', {}), session.headers);
    assert.equal(mine.status, 200, mine.text);
    assert.ok(mine.json.result.tools.length > 0);
  });

  test("one principal's tasks and cursors are unknown to another", async () => {
    const alice = await openRawSession(gate.url, bearer(await idp.mint({ aud: RESOURCE, sub: 'alice' })));
    const bob = await openRawSession(gate.url, bearer(await idp.mint({ aud: RESOURCE, sub: 'bob' })));
    const call = async (who, method, params) => (await post(gate.url, rpc(method, params), who.headers)).json;
    const minted = await call(alice, 'tools/call', {
      name: 'ev__simulate-research-query',
      arguments: { topic: 'private' },
      task: { ttl: 60_000 },
    });
    const id = minted.result?.task?.taskId;
    assert.ok(id, JSON.stringify(minted));
    const foreign = await call(bob, 'tasks/get', { taskId: id });
    const unknown = await call(bob, 'tasks/get', { taskId: 'no-such-task' });
    assert.equal(foreign.error?.code, -32002, JSON.stringify(foreign));
    assert.equal(unknown.error?.code, -32002);
    assert.equal(foreign.error.message.replace(id, '<id>'), unknown.error.message.replace('no-such-task', '<id>'));
    assert.equal((await call(alice, 'tasks/get', { taskId: id })).result.taskId, id);

    const page = await call(alice, 'tools/list', {});
    assert.ok(page.result.nextCursor, 'paged at 4');
    const stolen = await call(bob, 'tools/list', { cursor: page.result.nextCursor });
    assert.equal(stolen.error?.code, -32602, JSON.stringify(stolen));
    const next = await call(alice, 'tools/list', { cursor: page.result.nextCursor });
    assert.ok(next.result.tools.length > 0);
  });

  test('a token for another audience is refused', async () => {
    await refused(await idp.mint({ aud: 'https://other.example/mcp' }), {
      description: /audience is not https:\/\/gate\.example\/mcp/,
    });
    await refused(await idp.mint({ aud: undefined }), { description: /audience/ });
  });

  test('a token of an untrusted issuer is refused before any key set fetch', async () => {
    const { challenge } = await refused(await stranger.mint({ aud: RESOURCE }), {
      description: /issuer .* is not trusted/,
    });
    assert.match(challenge, /error="invalid_token"/);
    assert.equal(stranger.fetches(), 0);
  });

  test('hostile tokens are refused with a reason', async () => {
    const [es] = idp.keys;
    const now = Math.floor(Date.now() / 1000);
    const rs = idp.keys.find((k) => k.alg === 'RS256');
    const claims = base64url.encode(JSON.stringify({ iss: idp.issuer, aud: RESOURCE, sub: 'a', exp: now + 60 }));
    const cases = [
      ['alg none', `${base64url.encode('{"alg":"none"}')}.${claims}.`, /none is not accepted/],
      [
        'HS256 keyed with the public key',
        await new SignJWT({ iss: idp.issuer, aud: RESOURCE, sub: 'a', exp: now + 60 })
          .setProtectedHeader({ alg: 'HS256', kid: rs.kid })
          .sign(new TextEncoder().encode(rs.publicPem)),
        /HS256 is not accepted/,
      ],
      ['expired', await idp.mint({ aud: RESOURCE, exp: now - 120 }), /expired/],
      ['not valid yet', await idp.mint({ aud: RESOURCE, nbf: now + 600 }), /not valid yet/],
      ['empty sub', await idp.mint({ aud: RESOURCE, sub: '' }), /no subject/],
      ['no sub', await idp.mint({ aud: RESOURCE, sub: undefined }), /no subject/],
      ['no exp', await idp.mint({ aud: RESOURCE, exp: undefined }), /no expiry/],
      ['an ID-JAG', await idp.mint({ aud: RESOURCE }, { header: { typ: 'oauth-id-jag+jwt' } }), /not an access token/],
      ['critical header', await idp.mint({ aud: RESOURCE }, { header: { crit: ['exp'] } }).catch(() => null), /crit/],
      ['not a JWS', 'abc.def', /three dot-separated parts/],
    ];
    const good = await idp.mint({ aud: RESOURCE }, { key: es });
    const [h, p, s] = good.split('.');
    cases.push(['a tampered signature', `${h}.${p}.${s.slice(0, -4)}${s.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`, /signature does not verify/]);
    const otherPayload = base64url.encode(JSON.stringify({ iss: idp.issuer, aud: RESOURCE, sub: 'mallory', exp: now + 60 }));
    cases.push(['a swapped payload', `${h}.${otherPayload}.${s}`, /signature does not verify/]);
    for (const [what, token, why] of cases) {
      if (token === null) continue; // jose refuses to sign an unknown crit; gate's unit tests cover it
      const { body } = await refused(token, { description: why });
      assert.equal(body.error, 'invalid_token', what);
    }
    // A token in the query string, even with a good header.
    const res = await post(`${gate.url}?access_token=${good}`, initializeRequest(), bearer(good));
    assert.equal(res.status, 401);
    assert.match(res.headers['www-authenticate'], /error="invalid_request"/);
    // Another scheme.
    const basic = await post(gate.url, initializeRequest(), { authorization: 'Basic YTpi' });
    assert.equal(basic.status, 401);
    assert.match(JSON.parse(basic.text).error_description, /not "Bearer <token>"/);
  });

  test('a slow or oversized key set refuses the token in bounded time', async () => {
    const started = Date.now();
    await refused(await slow.mint({ aud: RESOURCE }), { description: /key set .* could not be fetched/ });
    assert.ok(Date.now() - started < 7500, `answered after ${Date.now() - started} ms`);
    await refused(await huge.mint({ aud: RESOURCE }), { description: /could not be fetched/ });
    assert.match(gate.stderrLines.join('\n'), /cannot fetch the key set .*more than 262144 bytes/);
  });
});

// An event stream held open on a session (GET), until destroyed.
function openStream(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { ...headers, accept: 'text/event-stream' }, agent: false }, (res) => {
      if (res.statusCode === 200) resolve(req);
      else reject(new Error(`GET stream: HTTP ${res.statusCode}`));
    });
    req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
  });
}

describe("key set fetches, and one principal's share of the sessions", { timeout: 60_000 }, () => {
  let everything;
  let idp;
  let gate;

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        server: { sessions: { max: 6, perPrincipal: 2 } },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test('a flood of unknown kids costs the identity provider one fetch', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 60 }, (_, i) => idp.mint({ aud: RESOURCE }, { header: { kid: `invented-${i}` } })),
    );
    const answers = await Promise.all(tokens.map((t) => post(gate.url, initializeRequest(), bearer(t))));
    for (const a of answers) {
      assert.equal(a.status, 401);
      assert.match(JSON.parse(a.text).error_description, /has the token's kid invented-/, gate.stderrLines.join('\n'));
    }
    assert.equal(idp.fetches(), 1);
    // The real key still works without another fetch: the set in hand has it.
    const ok = await post(gate.url, initializeRequest(), bearer(await idp.mint({ aud: RESOURCE })));
    assert.equal(ok.status, 200, ok.text);
    assert.equal(idp.fetches(), 1);
  });

  test('a principal opening more sessions than its share ends its own idle ones; another still initializes and calls', async () => {
    const mallory = bearer(await idp.mint({ aud: RESOURCE, sub: 'mallory' }));
    // More than the whole table (6), one after another: each past the share (2) ends mallory's
    // least recently used session, never another principal's.
    const flood = [];
    const opened = [];
    for (let i = 0; i < 8; i++) {
      const init = await post(gate.url, initializeRequest(), mallory);
      opened.push(init.status);
      flood.push({ ...mallory, 'mcp-session-id': init.headers['mcp-session-id'], 'mcp-protocol-version': init.json?.result?.protocolVersion });
    }
    const alice = await connectClient(gate.url, { requestInit: { headers: bearer(await idp.mint({ aud: RESOURCE, sub: 'alice' })) } });
    try {
      const r = await alice.callTool({ name: 'ev__echo', arguments: { message: 'still served' } });
      assert.match(r.content[0].text, /still served/);
    } finally {
      await alice.close();
    }
    assert.deepEqual(opened, [200, 200, 200, 200, 200, 200, 200, 200]);
    const statuses = [];
    for (const s of flood) statuses.push((await post(gate.url, rpc('ping'), s)).status);
    assert.deepEqual(statuses, [404, 404, 404, 404, 404, 404, 200, 200]);

    // Both of mallory's sessions in use (a GET stream each): nothing of its own can make room,
    // so a ninth is refused with Retry-After, and its two sessions keep working.
    const streams = await Promise.all(flood.slice(6).map((s) => openStream(gate.url, s)));
    try {
      const refused = await post(gate.url, initializeRequest(), mallory);
      assert.equal(refused.status, 429, refused.text);
      assert.equal(refused.headers['retry-after'], '10');
      assert.match(refused.json.error.message, /holds 2 \(its share of the session table, server\.sessions\.perPrincipal\) and each is in use/);
      for (const s of flood.slice(6)) assert.equal((await post(gate.url, rpc('ping'), s)).status, 200);
    } finally {
      for (const s of streams) s.destroy();
    }
    const text = await (await fetch(`${gate.base}/metrics`)).text();
    assert.equal(metric(text, 'gate_session_evictions_total', { reason: 'principal_share' }), 6);
    assert.equal(metric(text, 'gate_session_evictions_total', { reason: 'table_full' }), 0);
    assert.equal(metric(text, 'gate_session_refusals_total', { reason: 'principal_share' }), 1);
    assert.match(gate.stderrLines.join('\n'), /ended an idle session of principal mallory of http:\/\/127\.0\.0\.1:\d+ \(unused for \d+ s\) to make room for a new one: it held its whole share/);
  });
});

describe('key rotation: a key the identity provider removed stops verifying once its set expires, with the tokens it verified', { timeout: 90_000 }, () => {
  let everything;
  let idp; // keys[0] = A, keys[1] = B; the set says Cache-Control: max-age=0
  let gate;

  before(async () => {
    everything = await startEverything();
    idp = await startIdp({ algs: ['ES256', 'ES256'] });
    idp.setBehaviour({ headers: { 'cache-control': 'max-age=0' } });
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test('max-age=0 is bounded to 10 s: then the set is fetched again, once, and A is refused', async () => {
    const [a, b] = idp.keys;
    const tokenA = await idp.mint({ aud: RESOURCE, sub: 'alice' }, { key: a });
    const client = await connectClient(gate.url, { requestInit: { headers: bearer(tokenA) } });
    try {
      const r = await client.callTool({ name: 'ev__echo', arguments: { message: 'signed by A' } });
      assert.match(r.content[0].text, /signed by A/);
    } finally {
      await client.close();
    }
    const init = await post(gate.url, initializeRequest(), bearer(tokenA));
    assert.equal(init.status, 200, init.text);
    const session = {
      'mcp-session-id': init.headers['mcp-session-id'],
      'mcp-protocol-version': init.json.result.protocolVersion,
    };
    assert.equal(idp.fetches(), 1);

    idp.keys.splice(0, 1); // the provider rotates A out: it serves B only
    // A new token signed by A each time: a token verified moments ago is remembered for 60 s
    // (docs/security.md), the key set's lifetime is what this watches.
    const deadline = Date.now() + 30_000;
    const statuses = [];
    let last;
    for (;;) {
      const fresh = await idp.mint({ aud: RESOURCE, sub: 'alice', jti: randomUUID() }, { key: a });
      last = await post(gate.url, rpc('ping'), { ...session, ...bearer(fresh) });
      statuses.push(last.status);
      if (last.status !== 200 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    assert.equal(last.status, 401, `A still verifies after ${statuses.length} requests over 30 s: ${last.text}`);
    assert.match(JSON.parse(last.text).error_description, new RegExp(`has the token's kid ${a.kid}`));
    // The token verified before the rotation, well within the 60 s gate remembers a token for:
    // the refetch that withdrew A took it along (docs/security.md).
    const reused = await post(gate.url, rpc('ping'), { ...session, ...bearer(tokenA) });
    assert.equal(reused.status, 401, `a token A verified before the rotation still serves: ${reused.text}`);
    assert.match(JSON.parse(reused.text).error_description, new RegExp(`has the token's kid ${a.kid}`));
    // Every request before the refusal was served from the cached set; the refetch came no
    // sooner than the 10 s floor (max-age=0 is not "fetch on every token").
    assert.ok(statuses.slice(0, -1).every((s) => s === 200), statuses.join(','));
    assert.ok(statuses.length >= 10, `refused after only ${statuses.length} requests`);
    const times = idp.fetchTimes();
    assert.equal(times.length, 2, `${times.length} key set fetches for ${statuses.length} requests`);
    assert.ok(times[1] - times[0] >= 9_900, `refetched after ${times[1] - times[0]} ms`);

    // B, in the set just fetched, verifies without another fetch.
    const tokenB = await idp.mint({ aud: RESOURCE, sub: 'bob' }, { key: b });
    const clientB = await connectClient(gate.url, { requestInit: { headers: bearer(tokenB) } });
    try {
      const r = await clientB.callTool({ name: 'ev__echo', arguments: { message: 'signed by B' } });
      assert.match(r.content[0].text, /signed by B/);
    } finally {
      await clientB.close();
    }
    assert.equal(idp.fetches(), 2);
  });
});

describe('key rotation: a refetch for a new kid that no longer has a key forgets the tokens that key verified', { timeout: 60_000 }, () => {
  let everything;
  let idp; // A and B served, C held back; the set's answer says nothing of caching (5 minutes)
  let gate;
  let c;

  before(async () => {
    everything = await startEverything();
    idp = await startIdp({ algs: ['ES256', 'ES256', 'ES256'] });
    [c] = idp.keys.splice(2, 1);
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test('A is withdrawn when C first appears: the token A verified is refused at once, B\'s still serves', async () => {
    const [a, b] = idp.keys;
    const tokenA = await idp.mint({ aud: RESOURCE, sub: 'alice' }, { key: a });
    const tokenB = await idp.mint({ aud: RESOURCE, sub: 'bob' }, { key: b });
    for (const t of [tokenA, tokenB]) assert.equal((await post(gate.url, initializeRequest(), bearer(t))).status, 200);
    assert.equal(idp.fetches(), 1);

    idp.keys.splice(0, 1, c); // the provider rotates A out and C in: it serves B and C
    // The set in hand is fresh for 5 minutes: A's token, verified moments ago, still serves.
    assert.equal((await post(gate.url, initializeRequest(), bearer(tokenA))).status, 200);
    // A token of C (a kid the set does not have) makes gate fetch the set again, no sooner than
    // 10 s after the first fetch; until then it is refused.
    const tokenC = await idp.mint({ aud: RESOURCE, sub: 'carol' }, { key: c });
    const deadline = Date.now() + 20_000;
    let byC;
    for (;;) {
      byC = await post(gate.url, initializeRequest(), bearer(tokenC));
      if (byC.status === 200 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    assert.equal(byC.status, 200, byC.text);
    assert.equal(idp.fetches(), 2);

    const reused = await post(gate.url, initializeRequest(), bearer(tokenA));
    assert.equal(reused.status, 401, `a token of the withdrawn key still serves: ${reused.text}`);
    assert.match(JSON.parse(reused.text).error_description, new RegExp(`has the token's kid ${a.kid}`));
    assert.equal((await post(gate.url, initializeRequest(), bearer(tokenB))).status, 200);
    assert.equal(idp.fetches(), 2); // the refusal and B's token needed no fetch
    assert.match(gate.stderrLines.join('\n'), /key set http:\/\/127\.0\.0\.1:\d+\/\.well-known\/jwks\.json no longer has 1 key\(s\)/);
  });
});
