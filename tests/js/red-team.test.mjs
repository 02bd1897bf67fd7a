// What held when gate was attacked (issue 32), kept in the suite so it keeps holding: gate
// follows no redirect (upstreams, token endpoints, key sets, discovery, audit webhooks); JSON
// nested too deep, batches, members written twice and ids of every type; Host and Origin
// spellings sent on a raw socket; the session ids of other principals. One gate and one pair
// of bare upstreams (plain node:http, every body kept as text) serve the whole file.
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { eventually, get, metric, notification, openRawSession, post, rawRequest, rpc, startGate, startIdp } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';
const REDIRECTS = [301, 302, 307, 308];

const listen = async (handler) => {
  const server = http.createServer(handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${server.address().port}`,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(r);
      }),
  };
};

// A bare MCP upstream: answers in JSON, keeps every request body as text. Tools: echo and
// wipe (say which ran), deep {n} (a result nested n deep), hold (answers when released).
async function startBareUpstream(name) {
  const bodies = [];
  const held = [];
  const server = await listen((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (req.method !== 'POST') return res.writeHead(405).end();
      bodies.push(text);
      const m = JSON.parse(text);
      if (m.id === undefined) return res.writeHead(202).end();
      const send = (resultText) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(`{"jsonrpc":"2.0","id":${JSON.stringify(m.id)},"result":${resultText}}`);
      const text1 = (t) => send(JSON.stringify({ content: [{ type: 'text', text: t }] }));
      if (m.method === 'initialize') {
        return send(JSON.stringify({ protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name, version: '1.0.0' } }));
      }
      if (m.method === 'tools/list') {
        return send(JSON.stringify({ tools: ['echo', 'wipe', 'deep', 'hold'].map((t) => ({ name: t, inputSchema: { type: 'object' } })) }));
      }
      if (m.method !== 'tools/call') return send('{}');
      const tool = m.params.name;
      if (tool === 'deep') {
        const n = m.params.arguments.n;
        return send(`{"content":[],"structuredContent":{"x":${'['.repeat(n)}${']'.repeat(n)}}}`);
      }
      if (tool === 'hold') return held.push(() => text1(`${name} held`));
      return text1(`${name} ran ${tool}`);
    });
  });
  return {
    url: `${server.base}/mcp`,
    bodies,
    held,
    /** The bodies received since `from` that carry `method`. */
    since: (from, method) => bodies.slice(from).filter((b) => JSON.parse(b).method === method),
    stop: server.stop,
  };
}

/** One exchange on a raw socket (what fetch and node:http refuse to send); `connection: close`. */
function rawExchange(port, text) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(text));
    const parts = [];
    socket.on('data', (d) => parts.push(d));
    socket.on('error', reject);
    socket.on('close', () => {
      const all = Buffer.concat(parts).toString('utf8');
      const [head, body = ''] = all.split('\r\n\r\n');
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), head, body });
    });
  });
}

describe('red team: what held when gate was attacked', { timeout: 60_000 }, () => {
  let idp; // the trusted issuer of alice and bob
  let idp2; // another trusted issuer, whose "alice" is somebody else
  let alpha;
  let beta;
  let elsewhere; // where every redirect points: must never hear from gate
  const heardElsewhere = [];
  let redirector; // answers /<status>/... with that redirect; /registry cycles through them
  const redirected = []; // "<METHOD> <path> <status>"
  let gate;
  let alice; // a session of alice's
  let bearer; // alice's Authorization header

  before(async () => {
    [idp, idp2, alpha, beta] = await Promise.all([startIdp(), startIdp(), startBareUpstream('alpha'), startBareUpstream('beta')]);
    elsewhere = await listen((req, res) => {
      heardElsewhere.push(`${req.method} ${req.url}`);
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    let polls = 0;
    redirector = await listen((req, res) => {
      req.resume();
      const status = Number(/^\/(30[1278])\//.exec(req.url)?.[1] ?? REDIRECTS[polls++ % REDIRECTS.length]);
      redirected.push(`${req.method} ${req.url} ${status}`);
      res.writeHead(status, { location: `${elsewhere.base}${req.url}` }).end();
    });
    const R = redirector.base;
    const byStatus = (f) => REDIRECTS.map(f);
    gate = await startGate({
      env: { RED_TEAM_CLIENT_SECRET: 'the-client-secret' },
      config: {
        upstreams: [
          { id: 'alpha', url: alpha.url, namespace: 'alpha' },
          { id: 'beta', url: beta.url, namespace: 'beta' },
          // Upstreams that redirect (a breaker that never opens: every call reaches them).
          ...byStatus((s) => ({ id: `r${s}`, url: `${R}/${s}/mcp`, namespace: `r${s}`, circuitBreaker: { failureThreshold: 1000 } })),
          // Upstreams whose token endpoint redirects.
          ...byStatus((s) => ({
            id: `cc${s}`,
            url: alpha.url,
            namespace: `cc${s}`,
            auth: { strategy: 'client-credentials', tokenEndpoint: `${R}/${s}/token`, clientId: 'gate', clientAuth: { type: 'client_secret_post', secretRef: 'RED_TEAM_CLIENT_SECRET' } },
          })),
        ],
        auth: {
          mode: 'required',
          resource: RESOURCE,
          // Issuers whose key set redirects.
          issuers: [{ issuer: idp.issuer }, { issuer: idp2.issuer }, ...byStatus((s) => ({ issuer: `${R}/${s}/issuer`, jwksUri: `${R}/${s}/jwks` }))],
        },
        policy: {
          rules: [
            {
              id: 'alpha-echo-only',
              allow: [
                { server: 'alpha', methods: ['tools/call', 'tools/list'], names: ['echo'] },
                { server: 'beta' },
                ...byStatus((s) => ({ server: `r${s}` })),
                ...byStatus((s) => ({ server: `cc${s}` })),
              ],
            },
          ],
        },
        audit: { sinks: byStatus((s) => ({ type: 'webhook', url: `${R}/${s}/audit` })) },
        discovery: { url: `${R}/registry`, intervalMs: 100 },
        server: { allowedHosts: ['127.0.0.1', 'gate.example', '::1'] },
      },
    });
    bearer = { authorization: `Bearer ${await idp.mint({ aud: RESOURCE, sub: 'alice' })}` };
    alice = await openRawSession(gate.url, bearer);
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([idp, idp2, alpha, beta, elsewhere, redirector].map((p) => p?.stop()));
  });

  const call = (body, headers = alice.headers) => post(gate.url, body, headers);
  const tool = (name, args = {}, id) => rpc('tools/call', { name, arguments: args }, id);
  const sawRedirect = (method, path, status) => redirected.includes(`${method} ${path} ${status}`);

  describe('redirects are never followed', () => {
    test('an upstream that redirects: the call fails naming the status, and the other host hears nothing', async () => {
      for (const s of REDIRECTS) {
        const r = await call(tool(`r${s}__echo`));
        assert.equal(r.json.error?.code, -32041, r.text);
        assert.match(r.json.error.message, new RegExp(`^upstream r${s} unavailable: initialize answered HTTP ${s}$`));
        assert.ok(sawRedirect('POST', `/${s}/mcp`, s), redirected.join('\n'));
      }
      assert.deepEqual(heardElsewhere, []);
    });

    test('a token endpoint that redirects: the client secret stays home, the call fails naming the endpoint', async () => {
      for (const s of REDIRECTS) {
        const r = await call(tool(`cc${s}__echo`));
        assert.equal(r.json.error?.code, -32041, r.text);
        assert.match(r.json.error.message, new RegExp(`the token endpoint of upstream cc${s} failed: the token endpoint answered HTTP ${s}$`));
        assert.ok(sawRedirect('POST', `/${s}/token`, s), redirected.join('\n'));
      }
      assert.ok(!alpha.bodies.some((b) => b.includes('the-client-secret')));
      assert.deepEqual(heardElsewhere, []);
    });

    test('a key set that redirects: the token is refused (401) saying the key set could not be fetched', async () => {
      for (const s of REDIRECTS) {
        const token = await idp.mint({ aud: RESOURCE, iss: `${redirector.base}/${s}/issuer` });
        const r = await post(gate.url, rpc('ping'), { authorization: `Bearer ${token}` });
        assert.equal(r.status, 401, r.text);
        assert.match(JSON.parse(r.text).error_description, new RegExp(`^the key set of ${redirector.base}/${s}/issuer could not be fetched$`));
        assert.ok(sawRedirect('GET', `/${s}/jwks`, s), redirected.join('\n'));
        assert.ok(gate.stderrLines.some((l) => l.includes(`cannot fetch the key set ${redirector.base}/${s}/jwks: ${redirector.base}/${s}/jwks answered HTTP ${s}`)));
      }
      assert.deepEqual(heardElsewhere, []);
    });

    test('a discovery source and audit webhooks that redirect: polls fail and batches are dropped, logged and counted', async () => {
      assert.equal((await call(rpc('ping'))).status, 200, 'an event for the audit sinks');
      const logged = (re) => gate.stderrLines.some((l) => re.test(l));
      await eventually(() => REDIRECTS.every((s) => sawRedirect('GET', '/registry', s) && logged(new RegExp(`audit webhook ${redirector.base}/${s}/audit: the receiver refused a batch \\(HTTP ${s}\\); it is dropped`))), {
        what: 'every redirect of the registry and of each audit sink',
      });
      assert.ok(logged(/discovery: fetching \S+\/registry failed \(\S+ answered HTTP 30[1278]\); the last applied upstreams keep serving/), gate.proc.stderr.text());
      // The registry saw each redirected poll before gate counted its failure: the count is
      // waited for too (a slow build, ASan's, read it one poll short).
      let text = '';
      await eventually(async () => {
        text = (await get(`${gate.base}/metrics`)).text;
        return metric(text, 'gate_discovery_syncs_total', { outcome: 'error' }) >= REDIRECTS.length &&
          metric(text, 'gate_audit_events_dropped_total', {}) >= REDIRECTS.length;
      }, { what: 'every redirected poll and dropped batch counted' });
      assert.equal(metric(text, 'gate_discovery_syncs_total', { outcome: 'applied' }), 0);
      assert.ok(metric(text, 'gate_audit_events_dropped_total', {}) >= REDIRECTS.length);
      assert.equal(metric(text, 'gate_audit_webhook_events_total', { outcome: 'delivered' }), 0);
      assert.deepEqual(heardElsewhere, []);
    });
  });

  describe('JSON', () => {
    test('nesting deeper than 32 is a parse error at any size; 32 deep is forwarded whole, both ways', async () => {
      const seen = alpha.bodies.length;
      const nested = (n) => `${'['.repeat(n)}${']'.repeat(n)}`;
      for (const body of [
        nested(33),
        '['.repeat(100_000),
        '{"a":'.repeat(100_000),
        '['.repeat(1024 * 1024), // the whole body cap
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"alpha__echo","arguments":{"x":${nested(30)}}}}`,
      ]) {
        const r = await call(body);
        assert.equal(r.status, 400, `${body.slice(0, 40)}: ${r.text}`);
        assert.deepEqual(r.json, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error: too deep' } });
      }
      assert.equal(alpha.bodies.length, seen, 'nothing reached an upstream');
      // 32 levels: the message, params, arguments and 29 arrays.
      const ok = await call(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"alpha__echo","arguments":{"x":${nested(29)}}}}`);
      assert.equal(ok.json.result?.content[0].text, 'alpha ran echo', ok.text);
      assert.equal(JSON.stringify(JSON.parse(alpha.since(seen, 'tools/call')[0]).params.arguments.x), nested(29));
      // An upstream's answer 32 deep passes; 33 or 100,000 deep is a failed call, and gate goes on.
      const deep = await call(tool('beta__deep', { n: 29 }));
      assert.equal(JSON.stringify(deep.json.result?.structuredContent.x), nested(29), deep.text);
      for (const n of [30, 100_000]) {
        const r = await call(tool('beta__deep', { n }));
        assert.equal(r.json.error?.code, -32041, r.text);
        assert.match(r.json.error.message, /^upstream beta unavailable: upstream answered HTTP 200 without a JSON-RPC response$/);
      }
      assert.deepEqual((await call(rpc('ping'))).json.result, {});
    });

    test('a batch is refused with -32600, whatever it holds, and reaches no upstream', async () => {
      const seen = alpha.bodies.length + beta.bodies.length;
      for (const [body, headers] of [
        [[rpc('ping')], alice.headers],
        [[], alice.headers],
        [[tool('beta__echo'), tool('beta__wipe')], alice.headers],
        [[notification('notifications/initialized')], alice.headers],
        [[{ jsonrpc: '2.0', id: 'gate-1', result: {} }], alice.headers],
        [[rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } })], bearer],
      ]) {
        const r = await call(body, headers);
        assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
        assert.deepEqual(r.json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: batch requests are not supported' } });
      }
      assert.equal(alpha.bodies.length + beta.bodies.length, seen);
    });

    test('a member written twice: gate reads, authorizes and forwards the last one, and only it', async () => {
      const head = '"jsonrpc":"2.0","id":7';
      const ran = async (text) => {
        const seen = alpha.bodies.length;
        const r = await call(text);
        return { r, forwarded: alpha.since(seen, 'tools/call') };
      };
      // How many members of that name the text holds, however each key is spelled (a key
      // may keep the escapes it was written with): string tokens followed by a colon.
      const once = (text, member) =>
        [...text.matchAll(/"(?:[^"\\]|\\.)*"/g)].filter((m) => /^\s*:/.test(text.slice(m.index + m[0].length)) && JSON.parse(m[0]) === member).length;
      // The policy grants alpha's echo only. Whichever spelling comes last decides.
      for (const params of [
        '{"name":"alpha__wipe","name":"alpha__echo","arguments":{}}',
        '{"na\\u006de":"alpha__wipe","name":"alpha__echo","arguments":{}}',
        '{"name":"alpha__wipe","na\\u006de":"alpha__echo","arguments":{}}',
      ]) {
        const { r, forwarded } = await ran(`{${head},"method":"tools/call","params":${params}}`);
        assert.equal(r.json.result?.content[0].text, 'alpha ran echo', `${params}: ${r.text}`);
        assert.equal(forwarded.length, 1);
        assert.equal(JSON.parse(forwarded[0]).params.name, 'echo');
        assert.equal(once(forwarded[0], 'name'), 1, forwarded[0]);
        assert.ok(!forwarded[0].includes('wipe'), forwarded[0]);
      }
      for (const params of [
        '{"name":"alpha__echo","name":"alpha__wipe","arguments":{}}',
        '{"name":"alpha__echo","na\\u006de":"alpha__wipe","arguments":{}}',
        '{"na\\u006de":"alpha__echo","name":"alpha__wipe","arguments":{}}',
      ]) {
        const { r, forwarded } = await ran(`{${head},"method":"tools/call","params":${params}}`);
        assert.equal(r.json.error?.code, -32042, `${params}: ${r.text}`);
        assert.equal(r.json.error.message, 'policy denied tools/call of alpha__wipe on alpha for alice');
        assert.deepEqual(forwarded, []);
      }
      // params, method and the arguments' own members.
      const twice = await ran(`{${head},"method":"tools/call","params":{"name":"alpha__wipe","arguments":{}},"params":{"name":"alpha__echo","arguments":{"cmd":"ls","cmd":"rm"}}}`);
      assert.equal(twice.r.json.result?.content[0].text, 'alpha ran echo', twice.r.text);
      assert.deepEqual(JSON.parse(twice.forwarded[0]).params.arguments, { cmd: 'rm' });
      assert.equal(once(twice.forwarded[0], 'cmd'), 1, twice.forwarded[0]);
      const ping = await ran(`{${head},"method":"tools/call","method":"ping","params":{"name":"alpha__wipe","arguments":{}}}`);
      assert.deepEqual(ping.r.json, { jsonrpc: '2.0', id: 7, result: {} });
      assert.deepEqual(ping.forwarded, []);
      const ids = await call('{"jsonrpc":"2.0","id":1,"id":"second","method":"ping"}');
      assert.equal(ids.json.id, 'second');
      const version = await call('{"jsonrpc":"2.0","jsonrpc":"1.0","id":1,"method":"ping"}');
      assert.equal(version.json.error?.code, -32600, version.text);
    });

    test('ids: strings and integers within 64 bits are echoed as sent; any other id is refused with -32600', async () => {
      const idOf = (text) => /"id":((?:"(?:[^"\\]|\\.)*")|[^,}]+)/.exec(text)?.[1];
      for (const id of ['"s"', '""', '"a\\"b"', '"gate-1"', '0', '-1', '9223372036854775807', '-9223372036854775808', '9223372036854775808', '18446744073709551615']) {
        const r = await call(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
        assert.equal(r.status, 200, `${id}: ${r.text}`);
        assert.equal(idOf(r.text), id, r.text);
      }
      // Escapes are read: the same string comes back, written as JSON may write it.
      const escaped = await call('{"jsonrpc":"2.0","id":"\\u00e9\\ud83d\\ude00","method":"ping"}');
      assert.equal(escaped.json.id, 'é😀', escaped.text);
      for (const id of ['18446744073709551616', '123456789012345678901234567890', '1.5', '1.0', '1e3', '-1e0', 'null', '{}', '[]', '{"a":1}', '[1]', 'true', 'false']) {
        const r = await call(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
        assert.equal(r.status, 400, `${id}: ${r.text}`);
        assert.deepEqual(r.json, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'invalid request: "id" must be a string or an integer' } }, id);
      }
      // A call's id never reaches the upstream, which sees gate's own; the answer carries the
      // client's back as sent.
      for (const id of ['"gate-1"', '"\\u00e9"', '18446744073709551615', '-9223372036854775808']) {
        const seen = beta.bodies.length;
        const r = await call(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"beta__echo","arguments":{}}}`);
        assert.equal(r.json.result?.content[0].text, 'beta ran echo', r.text);
        assert.deepEqual(r.json.id, JSON.parse(id));
        if (!id.includes('\\')) assert.equal(idOf(r.text), id);
        const [forwarded] = beta.since(seen, 'tools/call');
        assert.notEqual(idOf(forwarded), id, forwarded);
      }
    });
  });

  describe('Host and Origin', () => {
    const ping = JSON.stringify(rpc('ping'));
    const request = (headerLines, target = '/mcp') =>
      `POST ${target} HTTP/1.1\r\n${headerLines.map((h) => `${h}\r\n`).join('')}` +
      `authorization: ${bearer.authorization}\r\nmcp-session-id: ${alice.sessionId}\r\n` +
      `content-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
      `content-length: ${Buffer.byteLength(ping)}\r\nconnection: close\r\n\r\n${ping}`;
    const exchange = (headerLines, target) => rawExchange(gate.port, request(headerLines, target));

    test('Host: only the listed names pass, in any case and with any port; every other spelling is 403', async () => {
      const port = gate.port;
      for (const host of ['gate.example', 'GATE.Example', `gate.example:${port}`, 'gate.example:1', '127.0.0.1', `127.0.0.1:${port}`, '[::1]', `[::1]:${port}`]) {
        const r = await exchange([`Host: ${host}`]);
        assert.equal(r.status, 200, `${host}: ${r.head}`);
        assert.deepEqual(JSON.parse(r.body).result, {});
      }
      for (const host of [
        'gate.example.', // the root's dot
        '.gate.example',
        'x.gate.example',
        'gate.example.evil.test',
        'gate%2eexample',
        'gate.example%00',
        'user@gate.example',
        'gate.example@evil.test',
        'gate.example:80@evil.test',
        'gate.example:',
        'gate.example:80a',
        'gate.example:80.evil.test',
        'gate.example/x',
        'gate.example?',
        'gate.example#',
        'gate .example',
        'gate\\example',
        '127.0.0.1.',
        '127.1',
        '2130706433',
        '0x7f000001',
        '0177.0.0.1',
        '[0:0:0:0:0:0:0:1]', // ::1 written out: names are compared as written
        '[::ffff:127.0.0.1]',
        '[::1',
        '[::1]x',
        'localhost', // not listed here
        'localhost.',
        '127.0.0.1, gate.example',
        '',
      ]) {
        const r = await exchange([`Host: ${host}`]);
        assert.equal(r.status, 403, `${JSON.stringify(host)}: ${r.head}`);
        assert.match(r.body, /host/i, r.body);
      }
      assert.equal((await exchange([])).status, 403, 'no Host at all');
    });

    test('a request target in absolute or authority form is never served as the MCP endpoint', async () => {
      for (const [target, host] of [
        ['http://evil.test/mcp', '127.0.0.1'],
        [`http://127.0.0.1:${gate.port}/mcp`, '127.0.0.1'],
        [`http://127.0.0.1:${gate.port}/mcp`, 'evil.test'],
        [`127.0.0.1:${gate.port}`, '127.0.0.1'],
        ['*', '127.0.0.1'],
        ['mcp', '127.0.0.1'],
      ]) {
        const r = await exchange([`Host: ${host}`], target);
        assert.ok(r.status >= 400 && r.status < 500, `${target} (Host ${host}): ${r.head}`);
        assert.doesNotMatch(r.body, /"result"/);
      }
    });

    test('Origin: only a listed host passes, whatever the scheme, case and port; every trick is 403', async () => {
      for (const origin of ['http://gate.example', 'HTTPS://GATE.EXAMPLE:8443', 'http://127.0.0.1:3000', 'http://[::1]:3000']) {
        const r = await exchange(['Host: 127.0.0.1', `Origin: ${origin}`]);
        assert.equal(r.status, 200, `${origin}: ${r.head}`);
      }
      for (const origin of [
        'null',
        '',
        'gate.example',
        'http:/gate.example',
        'file://',
        'http://evil.test',
        'http://gate.example.',
        'http://gate.example.evil.test',
        'http://gate%2eexample',
        'http://user@gate.example',
        'http://gate.example@evil.test',
        'http://evil.test#@gate.example',
        'http://evil.test?@gate.example',
        'http://evil.test\\@gate.example',
        'http://gate.example:-1',
        'http://gate.example:80.evil.test',
        'http://127.1',
        'http://[::ffff:127.0.0.1]',
        'http://localhost:3000',
      ]) {
        const r = await exchange(['Host: 127.0.0.1', `Origin: ${origin}`]);
        assert.equal(r.status, 403, `${JSON.stringify(origin)}: ${r.head}`);
        assert.match(r.body, /origin/i, r.body);
      }
      assert.equal((await exchange(['Host: 127.0.0.1', 'Origin: http://evil.test', 'Origin: http://gate.example'])).status, 403, 'a foreign Origin first');
    });

    test('the guard stands before every method: a foreign Host cannot end or read a session', async () => {
      const del = await rawRequest(gate.url, { method: 'DELETE', headers: { ...alice.headers, host: 'evil.test' } });
      assert.equal(del.status, 403);
      const stream = await rawRequest(gate.url, { method: 'GET', headers: { ...alice.headers, host: 'evil.test', accept: 'text/event-stream' } });
      assert.equal(stream.status, 403);
      assert.deepEqual((await call(rpc('ping'))).json.result, {}, 'the session lives on');
      const text = (await get(`${gate.base}/metrics`)).text;
      assert.ok(metric(text, 'gate_http_rejections_total', { reason: 'forbidden_host' }) > 0);
      assert.ok(metric(text, 'gate_http_rejections_total', { reason: 'forbidden_origin' }) > 0);
    });

    // RFC 9112 section 3.2: a request with more than one Host field line MUST be answered 400.
    // gate checks the first and serves the request: a proxy in front that routes by the last
    // one would be told a different story than gate's guard (a hole found by this file, left
    // to the owners of transport/http/host_guard).
    test('two Host fields are refused, whichever comes first', async () => {
      for (const hosts of [['127.0.0.1', 'evil.test'], ['evil.test', '127.0.0.1'], ['127.0.0.1', '127.0.0.1']]) {
        const r = await exchange(hosts.map((h) => `Host: ${h}`));
        assert.equal(r.status, 400, `${hosts}: ${r.head}`);
        assert.match(r.body, /more than one Host header/);
      }
    });
  });

  describe('sessions of other principals', () => {
    test("another principal, or the same subject of another issuer, meets alice's session as an unknown one", async () => {
      const bob = { authorization: `Bearer ${await idp.mint({ aud: RESOURCE, sub: 'bob' })}` };
      const otherAlice = { authorization: `Bearer ${await idp2.mint({ aud: RESOURCE, sub: 'alice' })}` };
      const unknownId = alice.sessionId.replace(/[0-9a-f]/g, (c) => (c === '0' ? '1' : '0'));
      const attempts = async (headers) => [
        await post(gate.url, rpc('tools/list', {}, 5), headers),
        await post(gate.url, notification('notifications/cancelled', { requestId: 5 }), headers),
        await post(gate.url, { jsonrpc: '2.0', id: 'gate-1', result: {} }, headers),
        await rawRequest(gate.url, { method: 'GET', headers: { ...headers, accept: 'text/event-stream' } }),
        await rawRequest(gate.url, { method: 'DELETE', headers }),
      ];
      const unknown = await attempts({ ...alice.headers, ...bob, 'mcp-session-id': unknownId });
      for (const who of [bob, otherAlice]) {
        const answers = await attempts({ ...alice.headers, ...who });
        answers.forEach((r, i) => {
          assert.equal(r.status, 404, r.text);
          assert.equal(r.text, unknown[i].text, 'the same answer as for an id nobody holds');
        });
      }
      assert.deepEqual((await call(rpc('ping'))).json.result, {}, 'alice carries on');
      const { authorization: _, ...noToken } = alice.headers;
      assert.equal((await post(gate.url, rpc('ping'), noToken)).status, 401);
    });

    test("another principal cannot cancel alice's call in flight, nor end her session under it", async () => {
      const seen = beta.bodies.length;
      const inFlight = call(tool('beta__hold', {}, 'held'));
      await eventually(() => beta.held.length === 1, { what: 'the call held at beta' });
      const bob = { ...alice.headers, authorization: `Bearer ${await idp.mint({ aud: RESOURCE, sub: 'bob' })}` };
      const cancel = await post(gate.url, notification('notifications/cancelled', { requestId: 'held', reason: 'bob says so' }), bob);
      assert.equal(cancel.status, 404, cancel.text);
      assert.equal((await rawRequest(gate.url, { method: 'DELETE', headers: bob })).status, 404);
      beta.held.shift()();
      const r = await inFlight;
      assert.deepEqual(r.json, { jsonrpc: '2.0', id: 'held', result: { content: [{ type: 'text', text: 'beta held' }] } });
      assert.deepEqual(beta.since(seen, 'notifications/cancelled'), [], 'no cancellation reached beta');
    });
  });
});
