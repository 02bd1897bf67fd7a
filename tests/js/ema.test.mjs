// Enterprise-managed authorization (auth.ema) against the real binary: a test identity
// provider issues ID-JAGs (signed with the `jose` library, keys made with openssl), gate
// redeems each once at POST /oauth/token for an ES256 token it signs, and that token opens
// the MCP endpoint. Every refusal the token endpoint makes, its rate limit, its key set.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { createLocalJWKSet, decodeJwt, jwtVerify } from 'jose';

import { EMA_GATE_ISSUER, EMA_RESOURCE, idJag, jwtBearerGrant } from './lib/id-jag.mjs';
import { connectClient, post, initializeRequest, runGate, startEverything, startGate, startIdp } from './lib/index.mjs';

const RESOURCE = EMA_RESOURCE;
const GATE_ISSUER = EMA_GATE_ISSUER;
const SIGNING_KEY = execFileSync('openssl', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'], {
  encoding: 'utf8',
});

async function redeem(gate, form, contentType = 'application/x-www-form-urlencoded') {
  const res = await fetch(`${gate.base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
  return { status: res.status, headers: Object.fromEntries(res.headers), body: await res.json() };
}

const grant = jwtBearerGrant;

function emaConfig(everything, idp, ema = {}) {
  return {
    upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
    audit: { sinks: [{ type: 'stdout' }] },
    auth: {
      mode: 'required',
      resource: RESOURCE,
      issuers: [{ issuer: idp.issuer, mode: 'exchange' }],
      ema: { idpIssuer: idp.issuer, signingKeyRef: 'GATE_SIGNING_KEY', tokenTtlSec: 120, ...ema },
    },
  };
}

describe('auth.ema', { timeout: 90_000 }, () => {
  let everything;
  let idp;
  let stranger;
  let gate;

  before(async () => {
    everything = await startEverything();
    [idp, stranger] = await Promise.all([startIdp(), startIdp()]);
    gate = await startGate({ env: { GATE_SIGNING_KEY: SIGNING_KEY }, config: emaConfig(everything, idp) });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([idp?.stop(), stranger?.stop()]);
    await everything?.stop();
  });

  test('an ID-JAG is redeemed once for a gateway token that /mcp accepts', async () => {
    const assertion = await idJag(idp);
    const r = await redeem(gate, grant(assertion, { scope: 'mcp.read other' }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.body.expires_in, 120);
    assert.equal(r.body.scope, 'mcp.read', 'the intersection of what was asked and what the assertion carries');
    assert.equal(r.headers['cache-control'], 'no-store');
    const jwks = createLocalJWKSet(await (await fetch(`${gate.base}/.well-known/jwks.json`)).json());
    const { payload, protectedHeader } = await jwtVerify(r.body.access_token, jwks, { issuer: GATE_ISSUER, audience: RESOURCE });
    assert.equal(protectedHeader.alg, 'ES256');
    assert.equal(payload.sub, 'alice');
    assert.ok(payload.exp - payload.iat === 120);

    const client = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${r.body.access_token}` } } });
    try {
      const echo = await client.callTool({ name: 'ev__echo', arguments: { message: 'via ema' } });
      assert.match(echo.content[0].text, /via ema/);
    } finally {
      await client.close();
    }
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tools/call' && e.principal === 'alice'));
    assert.equal(events.find((e) => e.method === 'tools/call').issuer, GATE_ISSUER);
    const mint = events.find((e) => e.method === 'oauth/token' && e.decision === 'minted');
    assert.equal(mint.outcome, 'ok');
    assert.equal(mint.principal, 'alice');

    const again = await redeem(gate, grant(assertion));
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    assert.match(again.body.error_description, /already redeemed/);
    const replay = await gate.waitForAudit((ev) => ev.some((e) => e.decision === 'replayed'));
    assert.equal(replay.find((e) => e.decision === 'replayed').outcome, 'unauthenticated');
  });

  test('the gateway publishes its minting key and its metadata', async () => {
    const { keys } = await (await fetch(`${gate.base}/.well-known/jwks.json`)).json();
    assert.equal(keys.length, 1);
    assert.equal(keys[0].kty, 'EC');
    assert.equal(keys[0].crv, 'P-256');
    assert.equal(keys[0].alg, 'ES256');
    assert.ok(keys[0].kid);
    assert.equal(keys[0].d, undefined, 'never the private part');
    const as = await (await fetch(`${gate.base}/.well-known/oauth-authorization-server`)).json();
    assert.equal(as.issuer, GATE_ISSUER);
    assert.equal(as.token_endpoint, `${GATE_ISSUER}/oauth/token`);
    assert.deepEqual(as.grant_types_supported, ['urn:ietf:params:oauth:grant-type:jwt-bearer']);
    const prm = await (await fetch(`${gate.base}/.well-known/oauth-protected-resource/mcp`)).json();
    assert.deepEqual(prm.authorization_servers, [GATE_ISSUER], 'never the exchange-mode issuer');
    assert.ok(prm.mcp_extensions_supported.includes('io.modelcontextprotocol/enterprise-managed-authorization'));
  });

  test("an exchange-mode issuer's token presented directly is refused", async () => {
    const token = await idp.mint({ aud: RESOURCE });
    const res = await post(gate.url, initializeRequest(), { authorization: `Bearer ${token}` });
    assert.equal(res.status, 401);
    assert.match(JSON.parse(res.text).error_description, /accepted only at the token endpoint/);
  });

  test('every bad grant is refused as RFC 6749 says', async () => {
    const cases = [
      [grant(await idJag(stranger)), 'invalid_grant', /issuer is not/],
      [grant(await idJag(idp, {}, { header: { typ: 'JWT' } })), 'invalid_grant', /not an ID-JAG/],
      [grant(await idJag(idp, { jti: undefined })), 'invalid_grant', /no jti/],
      [grant(await idJag(idp, { exp: Math.floor(Date.now() / 1000) - 300 })), 'invalid_grant', /expired/],
      [grant(await idJag(idp, { aud: 'https://elsewhere.example' })), 'invalid_grant', /not for this gateway/],
      [grant(await idJag(idp, { resource: 'https://other.example/mcp' })), 'invalid_grant', /another resource/],
      [grant(await idJag(idp, { sub: '' })), 'invalid_grant', /no subject/],
      [grant(await idJag(idp), { client_id: 'client-2' }), 'invalid_grant', /another client/],
      [grant('not.a.jwt'), 'invalid_grant', /not base64url|not a JSON object/],
      [{ grant_type: 'client_credentials' }, 'unsupported_grant_type', /jwt-bearer/],
      [{ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' }, 'invalid_request', /assertion parameter/],
    ];
    const tampered = (await idJag(idp)).split('.');
    tampered[2] = tampered[2].slice(0, -4) + (tampered[2].endsWith('AAAA') ? 'BBBB' : 'AAAA');
    cases.push([grant(tampered.join('.')), 'invalid_grant', /signature does not verify/]);
    for (const [form, error, why] of cases) {
      const r = await redeem(gate, form);
      assert.equal(r.status, 400, JSON.stringify([form, r.body]));
      assert.equal(r.body.error, error, JSON.stringify(r.body));
      assert.match(r.body.error_description, why);
    }
    const json = await redeem(gate, JSON.stringify(grant(await idJag(idp))), 'application/json');
    assert.equal(json.body.error, 'invalid_request');
    const twice = await redeem(gate, `${new URLSearchParams(grant(await idJag(idp)))}&grant_type=x`);
    assert.match(twice.body.error_description, /repeated/);
    assert.equal(stranger.fetches(), 0, 'an assertion of another issuer fetches nothing');
  });
});

describe('auth.ema edges', { timeout: 60_000 }, () => {
  let everything;
  let idp;

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
  });
  after(async () => {
    await idp?.stop();
    await everything?.stop();
  });

  test('the token endpoint is rate limited', async () => {
    const gate = await startGate({
      env: { GATE_SIGNING_KEY: SIGNING_KEY },
      config: emaConfig(everything, idp, { tokenRateLimitPerMinute: 3 }),
    });
    try {
      const answers = [];
      for (let i = 0; i < 4; i += 1) answers.push(await redeem(gate, grant(await idJag(idp))));
      assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 429]);
      assert.ok(Number(answers[3].headers['retry-after']) >= 1);
      const metrics = await (await fetch(`${gate.base}/metrics`)).text();
      assert.match(metrics, /gate_http_rejections_total\{reason="oauth_token_rate_limited"\} 1/);
    } finally {
      await gate.stop();
    }
  });

  test('a missing or wrong signing key stops gate at start', async () => {
    const config = JSON.stringify(emaConfig(everything, idp));
    const missing = await runGate(['--port', '0'], { env: { GATE_CONFIG: config } });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /\/auth\/ema\/signingKeyRef: the environment variable GATE_SIGNING_KEY is not set/);
    const rsa = execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'], { encoding: 'utf8' });
    const wrong = await runGate(['--port', '0'], { env: { GATE_CONFIG: config, GATE_SIGNING_KEY: rsa } });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /not an EC key on P-256/);
    assert.doesNotMatch(wrong.stderr, /BEGIN/, 'the key is never printed');
  });
});
