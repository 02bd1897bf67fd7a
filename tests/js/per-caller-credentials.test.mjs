// Per-caller upstream credentials against the real binary: `passthrough` (the caller's own
// token, unchanged) and `token-exchange` (RFC 8693 at a real token endpoint started here,
// cached per issuer and subject). Both upstreams are SDK servers that serve each user
// differently and refuse another user's token on a session, so a list cached across callers,
// a session shared between principals or a credential sent to the wrong caller's session
// shows as a wrong answer or a recorded violation. Tokens come from a test identity provider.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { decodeJwt } from 'jose';

import { connectClient, expectMcpError, post, runGate, startGate, startIdp } from './lib/index.mjs';
import { json, startFormEndpoint } from './lib/form-endpoint.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';

const RESOURCE = 'https://gate.example/mcp';
const XT_SECRET = 'xt-client-secret-4c1e';
const AUDIENCE = 'https://tools.example';

// A token endpoint that exchanges an access token (RFC 8693) for `xt-<sub>-<n>`; `refuse`
// lists the subjects it answers invalid_grant for.
async function startExchangeEndpoint() {
  const refuse = new Set();
  let issued = 0;
  const endpoint = await startFormEndpoint((form, res) => {
    let sub = null;
    try {
      sub = decodeJwt(form.subject_token).sub;
    } catch {
      sub = null;
    }
    if (!sub || refuse.has(sub)) return json(res, 400, { error: 'invalid_grant' });
    issued += 1;
    return json(res, 200, {
      access_token: `xt-${sub}-${issued}`,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: 3600,
    });
  });
  return { ...endpoint, refuse };
}

const text = (r) => r.content.map((c) => c.text).join('');
const names = async (client) => (await client.listTools({})).tools.map((t) => t.name).sort();

describe('per-caller upstream credentials', { timeout: 120_000 }, () => {
  let idp;
  let exchange;
  let pt; // passthrough: the user is the caller's own token's sub
  let xt; // token-exchange: the user is in the exchanged token
  let gate;
  const clients = {};
  const tokens = {};

  const connectAs = async (user) => {
    tokens[user] = await idp.mint({ sub: user, aud: RESOURCE });
    clients[user] = await connectClient(gate.url, {
      requestInit: { headers: { authorization: `Bearer ${tokens[user]}` } },
    });
    return clients[user];
  };

  before(async () => {
    idp = await startIdp();
    exchange = await startExchangeEndpoint();
    pt = await startPerUserServer((token) => {
      try {
        const { sub } = decodeJwt(token);
        return sub === 'mallory' ? null : sub; // the upstream does not accept mallory
      } catch {
        return null;
      }
    });
    xt = await startPerUserServer((token) => /^xt-(\w+)-\d+$/.exec(token)?.[1] ?? null);
    gate = await startGate({
      env: { XT_SECRET },
      config: {
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        upstreams: [
          { id: 'pt', url: pt.url, namespace: 'pt', auth: { strategy: 'passthrough' }, circuitBreaker: { failureThreshold: 2 } },
          {
            id: 'xt',
            url: xt.url,
            namespace: 'xt',
            circuitBreaker: { failureThreshold: 2 },
            auth: {
              strategy: 'token-exchange',
              tokenEndpoint: exchange.url,
              clientId: 'gate',
              clientAuth: { type: 'client_secret_basic', secretRef: 'XT_SECRET' },
              audience: AUDIENCE,
              scopes: ['tools.read'],
            },
          },
        ],
      },
    });
    await connectAs('alice');
    await connectAs('bob');
  });

  after(async () => {
    for (const c of Object.values(clients)) await c.close().catch(() => {});
    await gate?.stop();
    await Promise.all([pt?.stop(), xt?.stop(), exchange?.stop(), idp?.stop()]);
  });

  test('each principal sees its own lists and its own answers, never cached across them', async () => {
    for (let round = 0; round < 3; round += 1) {
      for (const user of ['alice', 'bob']) {
        assert.deepEqual(await names(clients[user]), [`pt__only_${user}`, 'pt__whoami', `xt__only_${user}`, 'xt__whoami']);
        assert.equal(text(await clients[user].callTool({ name: 'pt__whoami', arguments: {} })), user);
        assert.equal(text(await clients[user].callTool({ name: 'xt__whoami', arguments: {} })), user);
      }
    }
    const other = await expectMcpError(() => clients.alice.callTool({ name: 'pt__only_bob', arguments: {} }));
    assert.match(other.message, /unknown tool for alice/, "bob's tool is not alice's to call");
    assert.deepEqual(pt.violations, []);
    assert.deepEqual(xt.violations, []);
    assert.deepEqual(pt.sessions().sort(), ['alice', 'bob'], 'one upstream session per principal');
  });

  test("passthrough forwards the caller's token unchanged, on every request of its session", () => {
    for (const user of ['alice', 'bob']) {
      const mine = pt.seen.filter((s) => s.user === user);
      assert.ok(mine.some((s) => s.rpcMethod === 'initialize'));
      assert.ok(mine.some((s) => s.rpcMethod === 'tools/call'));
      for (const s of mine) assert.equal(s.token, tokens[user]);
    }
    assert.ok(pt.seen.every((s) => s.user), "no request without a caller's credential");
  });

  test("token-exchange: RFC 8693 once per principal, cached, with the client's credentials", async () => {
    const subjects = exchange.requests.map((r) => decodeJwt(r.form.subject_token).sub).sort();
    assert.deepEqual(subjects, ['alice', 'bob'], 'one exchange per principal for all their calls');
    const [first] = exchange.requests;
    assert.deepEqual(
      { ...first.form, subject_token: undefined },
      {
        grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
        subject_token: undefined,
        subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        audience: AUDIENCE,
        scope: 'tools.read',
      },
    );
    assert.equal(first.headers.authorization, `Basic ${Buffer.from(`gate:${XT_SECRET}`).toString('base64')}`);
    assert.ok(xt.seen.every((s) => /^xt-(alice|bob)-\d+$/.test(s.token)), 'only exchanged tokens reach the upstream');
    assert.ok(xt.seen.every((s) => !s.token.includes('.')), "the caller's own token never does");

    // A fresh token of the same principal: the cached exchange still serves it.
    const again = await connectClient(gate.url, {
      requestInit: { headers: { authorization: `Bearer ${await idp.mint({ sub: 'alice', aud: RESOURCE, jti: 'x2' })}` } },
    });
    try {
      assert.equal(text(await again.callTool({ name: 'xt__whoami', arguments: {} })), 'alice');
    } finally {
      await again.close().catch(() => {});
    }
    assert.equal(exchange.requests.length, 2);
  });

  test("a refused exchange is the caller's -32041, and does not open the breaker for others", async () => {
    exchange.refuse.add('carol');
    const carol = await connectAs('carol');
    assert.equal(text(await carol.callTool({ name: 'pt__whoami', arguments: {} })), 'carol');
    for (let i = 0; i < 3; i += 1) {
      const err = await expectMcpError(() => carol.callTool({ name: 'xt__whoami', arguments: {} }));
      assert.equal(err.code, -32041);
      assert.match(err.message, /upstream xt/);
      assert.match(err.message, /refused to exchange the caller's token/);
      assert.doesNotMatch(err.message, new RegExp(XT_SECRET));
      assert.doesNotMatch(err.message, new RegExp(tokens.carol.slice(0, 40)));
    }
    // Carol's list leaves xt out; alice's calls still reach it (no open circuit).
    assert.deepEqual(await names(carol), ['pt__only_carol', 'pt__whoami']);
    assert.equal(text(await clients.alice.callTool({ name: 'xt__whoami', arguments: {} })), 'alice');
  });

  test("an upstream that refuses the caller's token answers that caller only", async () => {
    const mallory = await connectAs('mallory');
    for (let i = 0; i < 3; i += 1) {
      const err = await expectMcpError(() => mallory.callTool({ name: 'pt__whoami', arguments: {} }));
      assert.match(err.message, /upstream pt/);
      assert.match(err.message, /refused the caller's credential \(HTTP 401\)/);
    }
    assert.equal(text(await clients.bob.callTool({ name: 'pt__whoami', arguments: {} })), 'bob');
  });

  test('tokens and secrets appear in no log or audit event', async () => {
    await gate.waitForAudit((ev) => ev.some((e) => e.principal === 'mallory'));
    const out = `${gate.proc.stdout.text()}\n${gate.proc.stderr.text()}`;
    assert.doesNotMatch(out, new RegExp(XT_SECRET));
    for (const t of Object.values(tokens)) assert.ok(!out.includes(t), 'a caller token was printed');
    assert.doesNotMatch(out, /xt-(alice|bob)-\d/);
  });

  test('passthrough and token-exchange need auth.mode required', async () => {
    const config = { upstreams: [{ id: 'a', url: 'http://127.0.0.1:1/mcp', auth: { strategy: 'passthrough' } }] };
    const r = await runGate(['--validate'], { env: { GATE_CONFIG: JSON.stringify(config) } });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\/upstreams\/0\/auth\/strategy: .*needs auth.mode "required"/);
  });
});

// A 2026-07-28 client's call to a per-caller 2025-11-25 upstream that asks the client something:
// the call runs on the caller's own upstream session, so the answer from the client's retry
// goes there too (not to gate's root session, which holds no caller's credential).
describe('per-caller credentials: a parked call answered on the caller\'s session', { timeout: 60_000 }, () => {
  let idp, up, gate;

  before(async () => {
    idp = await startIdp();
    up = await startPerUserServer((token) => decodeJwt(token).sub, { asking: true });
    gate = await startGate({
      config: {
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        upstreams: [{ id: 'pt', url: up.url, namespace: 'pt', auth: { strategy: 'passthrough' } }],
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([up?.stop(), idp?.stop()]);
  });

  test('the retry\'s answer reaches the upstream session of the caller that asked', async () => {
    const authorization = `Bearer ${await idp.mint({ sub: 'carol', aud: RESOURCE })}`;
    const modern = (id, params) => ({
      body: {
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {
          name: 'pt__ask_name',
          arguments: {},
          ...params,
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
          },
        },
      },
      headers: { authorization, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'pt__ask_name' },
    });
    const first = modern(1, {});
    const r1 = (await post(gate.url, first.body, first.headers)).json;
    assert.equal(r1.result?.resultType, 'input_required', JSON.stringify(r1));
    const [key] = Object.keys(r1.result.inputRequests);
    assert.equal(r1.result.inputRequests[key].method, 'elicitation/create');
    const retry = modern(2, { requestState: r1.result.requestState, inputResponses: { [key]: { action: 'accept', content: { name: 'zoe' } } } });
    const r2 = (await post(gate.url, retry.body, retry.headers)).json;
    assert.match(JSON.stringify(r2.result?.content), /hello zoe from carol/, JSON.stringify(r2));
    assert.deepEqual(up.violations, []);
    // Nothing went upstream without carol's credential.
    assert.ok(up.seen.every((s) => s.user === 'carol'), JSON.stringify(up.seen.filter((s) => s.user !== 'carol')));
  });
});
