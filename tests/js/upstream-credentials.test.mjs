// Upstream credentials of one service identity per upstream, against the real binary:
// `static` (a secret from the environment in a header) and `client-credentials` (a token from a
// real token endpoint started here, cached, single-flight), with recording proxies in front of
// server-everything to see exactly what each upstream receives; the failures a token endpoint
// can have, a missing secret, a redirecting upstream, and secrets kept out of every output.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import {
  connectClient,
  eventually,
  expectMcpError,
  runGate,
  startEverything,
  startGate,
  startRecordingProxy,
} from './lib/index.mjs';
import { json, startFormEndpoint } from './lib/form-endpoint.mjs';

const CC_SECRET = 'cc-secret-value-7f3a';
const API_KEY = 'api-key-value-91bd';

async function startTokenEndpoint() {
  let mode = 'ok';
  let issued = 0;
  const endpoint = await startFormEndpoint((form, res) => {
    if (mode === 'hang') return;
    if (mode === 'fail') return json(res, 500, { error: 'server_error' });
    if (mode === 'garbage') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
    issued += 1;
    return json(res, 200, { access_token: `tok-${issued}`, token_type: 'Bearer', expires_in: 3600 });
  });
  return {
    ...endpoint,
    setMode: (m) => {
      mode = m;
    },
  };
}

describe('upstream credentials', { timeout: 90_000 }, () => {
  let everything;
  let tokens;
  let ccProxy;
  let staticProxy;
  let gate;
  let client;

  before(async () => {
    everything = await startEverything();
    tokens = await startTokenEndpoint();
    [ccProxy, staticProxy] = await Promise.all([startRecordingProxy(everything.url), startRecordingProxy(everything.url)]);
    gate = await startGate({
      env: { CC_SECRET, API_KEY },
      config: {
        audit: { sinks: [{ type: 'stdout' }] },
        upstreams: [
          {
            id: 'cc',
            url: ccProxy.url,
            namespace: 'cc',
            auth: {
              strategy: 'client-credentials',
              tokenEndpoint: tokens.url,
              clientId: 'gate client',
              clientAuth: { type: 'client_secret_post', secretRef: 'CC_SECRET' },
              scopes: ['mcp.read', 'mcp.write'],
              resource: 'https://upstream.example/mcp',
            },
          },
          { id: 'st', url: staticProxy.url, namespace: 'st', auth: { strategy: 'static', secretRef: 'API_KEY', header: 'X-Api-Key' } },
        ],
      },
    });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close().catch(() => {});
    await gate?.stop();
    await Promise.all([ccProxy?.stop(), staticProxy?.stop(), tokens?.stop()]);
    await everything?.stop();
  });

  test('client-credentials: one token, cached, on every request', async () => {
    for (let i = 0; i < 3; i += 1) {
      const r = await client.callTool({ name: 'cc__echo', arguments: { message: `m${i}` } });
      assert.match(r.content[0].text, new RegExp(`m${i}`));
    }
    const posts = ccProxy.seen.filter((s) => s.httpMethod === 'POST');
    assert.ok(posts.length >= 4, 'initialize and the calls');
    for (const p of posts) assert.equal(p.headers.authorization, 'Bearer tok-1', JSON.stringify(p.headers));
    assert.equal(tokens.requests.length, 1, 'one token for all of them');
    const [first] = tokens.requests;
    assert.deepEqual(first.form, {
      grant_type: 'client_credentials',
      client_id: 'gate client',
      client_secret: CC_SECRET,
      scope: 'mcp.read mcp.write',
      resource: 'https://upstream.example/mcp',
    });
    assert.equal(first.headers.authorization, undefined);
  });

  test('static: the secret goes in the configured header', async () => {
    const r = await client.callTool({ name: 'st__echo', arguments: { message: 'static' } });
    assert.match(r.content[0].text, /static/);
    const posts = staticProxy.seen.filter((s) => s.httpMethod === 'POST');
    assert.ok(posts.length >= 2);
    for (const p of posts) {
      assert.equal(p.headers['x-api-key'], API_KEY, 'no scheme outside Authorization');
      assert.equal(p.headers.authorization, undefined);
    }
    // Each upstream gets its own credential only.
    assert.ok(ccProxy.seen.every((s) => s.headers['x-api-key'] === undefined));
  });

  test('secrets appear in no log, audit event or /health', async () => {
    const health = await (await fetch(`${gate.base}/health`)).text();
    const everything = [gate.stderrLines.join('\n'), gate.stdoutLines.join('\n'), health].join('\n');
    for (const secret of [CC_SECRET, API_KEY, 'tok-1']) assert.ok(!everything.includes(secret), secret);
  });

  test('a failing token endpoint gives -32041 naming the upstream, never a hang', async () => {
    // A new gate whose token endpoint fails from the start, so no token is ever cached.
    tokens.setMode('fail');
    const g = await startGate({
      env: { CC_SECRET },
      config: {
        upstreams: [
          {
            id: 'cc',
            url: ccProxy.url,
            namespace: 'cc',
            auth: { strategy: 'client-credentials', tokenEndpoint: tokens.url, clientId: 'g', clientAuth: { type: 'client_secret_post', secretRef: 'CC_SECRET' } },
          },
        ],
      },
    });
    const c = await connectClient(g.url);
    try {
      for (const mode of ['fail', 'garbage', 'hang']) {
        tokens.setMode(mode);
        const asked = tokens.requests.length;
        // Within the pause after the previous failure calls fail at once without asking the
        // endpoint; then one call asks it, in this mode.
        let last;
        await eventually(async () => {
          const started = Date.now();
          last = await expectMcpError(() => c.callTool({ name: 'cc__echo', arguments: { message: 'x' } }));
          last.ms = Date.now() - started;
          return tokens.requests.length > asked;
        }, { timeoutMs: 20_000, everyMs: 100 });
        assert.equal(last.code, -32041, mode);
        assert.match(last.message, /token endpoint of upstream cc failed/, mode);
        assert.ok(!last.message.includes(CC_SECRET));
        assert.ok(last.ms < 15_000, `${mode}: answered after ${last.ms} ms (bounded, never a hang)`);
      }
      await eventually(async () => {
        tokens.setMode('ok');
        try {
          await c.callTool({ name: 'cc__echo', arguments: { message: 'probe' } });
          return true;
        } catch {
          return false;
        }
      }, { timeoutMs: 20_000, everyMs: 100 });
      tokens.setMode('ok');
      const r = await c.callTool({ name: 'cc__echo', arguments: { message: 'recovered' } });
      assert.match(r.content[0].text, /recovered/);
    } finally {
      tokens.setMode('ok');
      await c.close();
      await g.stop();
    }
  });
});

describe('client_secret_basic and the edges', { timeout: 60_000 }, () => {
  let everything;
  let tokens;

  before(async () => {
    everything = await startEverything();
    tokens = await startTokenEndpoint();
  });
  after(async () => {
    await tokens?.stop();
    await everything?.stop();
  });

  test('client_secret_basic sends the client in the Basic header', async () => {
    const gate = await startGate({
      env: { CC_SECRET: 'p@ss:w rd' },
      config: {
        upstreams: [
          {
            id: 'cc',
            url: everything.url,
            namespace: 'cc',
            auth: { strategy: 'client-credentials', tokenEndpoint: tokens.url, clientId: 'id:1', clientAuth: { type: 'client_secret_basic', secretRef: 'CC_SECRET' } },
          },
        ],
      },
    });
    const c = await connectClient(gate.url);
    try {
      await c.listTools();
      const last = tokens.requests.at(-1);
      const expected = Buffer.from(`${encodeURIComponent('id:1')}:${encodeURIComponent('p@ss:w rd')}`).toString('base64');
      assert.equal(last.headers.authorization, `Basic ${expected}`);
      assert.equal(last.form.client_secret, undefined);
      assert.equal(last.form.client_id, undefined);
      assert.equal(last.form.grant_type, 'client_credentials');
    } finally {
      await c.close();
      await gate.stop();
    }
  });

  test('a missing secret stops gate at start, naming the variable and the field', async () => {
    const env = {
      GATE_CONFIG: JSON.stringify({
        upstreams: [{ id: 'st', url: everything.url, auth: { strategy: 'static', secretRef: 'NOT_SET_ANYWHERE' } }],
      }),
    };
    const r = await runGate(['--port', '0'], { env });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\/upstreams\/0\/auth\/secretRef: the environment variable NOT_SET_ANYWHERE is not set/);
    assert.doesNotMatch(r.stderr, /listening on/);
    const v = await runGate(['--validate'], { env });
    assert.equal(v.code, 0, '--validate checks the document, not the environment');
  });

  test('an upstream that redirects elsewhere: the other host receives nothing', async () => {
    const elsewhere = [];
    const other = http.createServer((req, res) => {
      elsewhere.push(req.headers);
      res.writeHead(500).end();
    });
    await new Promise((r) => other.listen(0, '127.0.0.1', r));
    const redirecting = http.createServer((req, res) => {
      res.writeHead(307, { location: `http://127.0.0.1:${other.address().port}/mcp` }).end();
    });
    await new Promise((r) => redirecting.listen(0, '127.0.0.1', r));
    const gate = await startGate({
      env: { API_KEY },
      config: {
        upstreams: [
          { id: 'ev', url: everything.url, namespace: 'ev' },
          { id: 'redir', url: `http://127.0.0.1:${redirecting.address().port}/mcp`, namespace: 'rd', auth: { strategy: 'static', secretRef: 'API_KEY' } },
        ],
      },
    });
    const c = await connectClient(gate.url);
    try {
      const err = await expectMcpError(() => c.callTool({ name: 'rd__echo', arguments: {} }));
      assert.equal(err.code, -32041);
      assert.equal(elsewhere.length, 0, 'gate follows no redirect: the credential stays home');
    } finally {
      await c.close();
      await gate.stop();
      redirecting.closeAllConnections();
      other.closeAllConnections();
      await new Promise((r) => redirecting.close(r));
      await new Promise((r) => other.close(r));
    }
  });
});
