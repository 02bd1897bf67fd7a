// Policy beyond grants against the real binary and a real 2025 SDK server whose tools declare
// behaviour hints: deny entries that win, conditions on a call's arguments and on a tool's
// annotations (read as the upstream declared them, listed before the first call is decided),
// token scopes as subjects, and MCP's step-up answer for a missing scope, which the SDK's
// client acts on (a new token with the scope, the call retried).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { connectClient, expectMcpError, metric, openRawSession, post, requireGateBin, rpc, startFilesServer, startGate, startScopedIssuer } from './lib/index.mjs';
import { freePort } from './lib/free-port.mjs';

const POLICY = {
  rules: [
    { id: 'read-only', allow: [{ server: 'files', methods: ['tools/call'], annotations: { readOnlyHint: true } }] },
    {
      id: 'srv-writes',
      subjects: { scopes: ['files:write'] },
      allow: [
        {
          server: 'files',
          methods: ['tools/call'],
          names: ['write_file'],
          arguments: [
            { pointer: '/path', prefix: '/srv/' },
            { pointer: '/path', pattern: '[a-z/]+' },
          ],
        },
      ],
    },
    {
      id: 'exec-not-root',
      allow: [{ server: 'files', names: ['exec'] }],
      deny: [{ server: 'files', names: ['exec'], arguments: [{ pointer: '/user', equals: 'root' }] }],
    },
    { id: 'no-destruction', deny: [{ server: '*', annotations: { destructiveHint: true } }] },
  ],
};

describe('policy depth', { timeout: 90_000 }, () => {
  let files;
  let issuer;
  let gate;
  let resource;

  const connectWith = async (scope) =>
    connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${await issuer.mint('alice', scope)}` } } });

  before(async () => {
    files = await startFilesServer();
    const port = await freePort();
    resource = `http://127.0.0.1:${port}/mcp`;
    issuer = await startScopedIssuer({ resource });
    gate = await startGate({
      args: ['--port', String(port)],
      config: {
        upstreams: [{ id: 'files', url: files.url, namespace: 'files' }],
        auth: { mode: 'required', resource, issuers: [{ issuer: issuer.issuer }] },
        audit: { sinks: [{ type: 'stdout' }] },
        server: { introspection: { enabled: true } },
        policy: POLICY,
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await issuer?.stop();
    await files?.stop();
  });

  test("a tool's annotations decide its first call, before any list was asked for", async () => {
    // read_file is read-only as the upstream declares it; by MCP's defaults it would not be.
    const client = await connectWith('files:read');
    try {
      const r = await client.callTool({ name: 'files__read_file', arguments: { path: '/srv/a' } });
      assert.match(r.content[0].text, /read_file/);
    } finally {
      await client.close();
    }
  });

  test('a deny entry wins over grants: destructive tools, and those that declare nothing', async () => {
    const client = await connectWith('files:read files:write');
    try {
      for (const name of ['files__delete_file', 'files__plain']) {
        const before = files.calls.length;
        const err = await expectMcpError(() => client.callTool({ name, arguments: { path: '/srv/a' } }));
        assert.equal(err.code, -32042, name);
        assert.match(err.message, /rule no-destruction denies it/, name);
        assert.equal(files.calls.length, before, `${name} never reached the upstream`);
      }
      const names = (await client.listTools()).tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['files__exec', 'files__read_file', 'files__write_file']);
      const events = await gate.waitForAudit((ev) => ev.some((e) => e.name === 'files__plain' && e.outcome === 'denied'));
      const denied = events.find((e) => e.name === 'files__plain' && e.outcome === 'denied');
      assert.equal(denied.decision, 'deny');
      assert.equal(denied.ruleId, 'no-destruction');
      assert.equal(denied.upstreamCalls, 0);
    } finally {
      await client.close();
    }
  });

  test("argument conditions allow some calls of a tool and refuse others, before the upstream", async () => {
    const client = await connectWith('files:write');
    try {
      const ok = await client.callTool({ name: 'files__write_file', arguments: { path: '/srv/notes' } });
      assert.match(ok.content[0].text, /\/srv\/notes/);
      for (const path of ['/etc/passwd', '/srv/../etc', '/srv/Notes']) {
        const before = files.calls.length;
        const err = await expectMcpError(() => client.callTool({ name: 'files__write_file', arguments: { path } }));
        assert.equal(err.code, -32042, path);
        assert.equal(files.calls.length, before, `${path} never reached the upstream`);
      }
      // A deny on an argument: only root is refused, and the tool stays listed.
      assert.match((await client.callTool({ name: 'files__exec', arguments: { user: 'bob' } })).content[0].text, /bob/);
      const root = await expectMcpError(() => client.callTool({ name: 'files__exec', arguments: { user: 'root' } }));
      assert.equal(root.code, -32042);
      assert.match(root.message, /rule exec-not-root denies it/);
      // A value of another kind than the deny compares fails closed: a list may be read as
      // its element upstream.
      const before = files.calls.length;
      const listed = await expectMcpError(() => client.callTool({ name: 'files__exec', arguments: { user: ['root'] } }));
      assert.equal(listed.code, -32042);
      assert.equal(files.calls.length, before);
    } finally {
      await client.close();
    }
  });

  test('a missing scope is answered 403 insufficient_scope with the scopes, over HTTP and in the error', async () => {
    const token = await issuer.mint('alice', 'files:read');
    const modernCall = (name, args, bearer = token) =>
      fetch(gate.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${bearer}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': name,
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 8,
          method: 'tools/call',
          params: {
            name,
            arguments: args,
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientCapabilities': {},
              'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' },
            },
          },
        }),
      });
    // Arguments that are not an object are refused, not decided as none.
    const odd = await (await modernCall('files__exec', 'user=root')).json();
    assert.equal(odd.error.code, -32602, JSON.stringify(odd));
    assert.match(odd.error.message, /arguments must be an object/);
    const res = await fetch(gate.url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'files__write_file',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'files__write_file',
          arguments: { path: '/srv/a' },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '0' },
          },
        },
      }),
    });
    assert.equal(res.status, 403, await res.clone().text());
    const challenge = res.headers.get('www-authenticate');
    assert.match(challenge, /^Bearer error="insufficient_scope"/);
    // The token's scopes and the rule's, for a client of either era: one that asks for the
    // challenge's scope alone (a 2025 SDK) keeps what it held, one that adds it to what it
    // asked before (SEP-2350) asks for the same.
    assert.match(challenge, /scope="files:read files:write"/);
    assert.match(challenge, new RegExp(`resource_metadata="http://127\\.0\\.0\\.1:\\d+/\\.well-known/oauth-protected-resource`));
    const body = await res.json();
    assert.equal(body.id, 7);
    assert.equal(body.error.data.error, 'insufficient_scope');
    assert.deepEqual(body.error.data.scopes, ['files:write']);
    assert.match(body.error.message, /rule srv-writes/);
    // A 2025-11-25 client is challenged alike; `data.scopes` names what the rule adds.
    const session = await openRawSession(gate.url, { authorization: `Bearer ${token}` });
    const older = await post(gate.url, rpc('tools/call', { name: 'files__write_file', arguments: { path: '/srv/a' } }), session.headers);
    assert.equal(older.status, 403, older.text);
    assert.equal(older.headers['www-authenticate'], challenge);
    assert.deepEqual(older.json.error.data, body.error.data);
    assert.equal(older.json.error.message, body.error.message);
    // Audit names the scopes; the metrics count the step-up and each deciding rule.
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.requiredScopes));
    const stepUp = events.find((e) => e.requiredScopes);
    assert.deepEqual(stepUp.requiredScopes, ['files:write']);
    assert.equal(stepUp.decision, 'deny');
    assert.equal(stepUp.upstreamCalls, 0);
    const exposition = await (await fetch(`${gate.base}/metrics`)).text();
    assert.ok(metric(exposition, 'gate_policy_decisions_total', { decision: 'step_up', rule: '' }) >= 1, exposition);
    assert.ok(metric(exposition, 'gate_policy_decisions_total', { decision: 'deny', rule: 'no-destruction' }) >= 2);
    assert.ok(metric(exposition, 'gate_policy_decisions_total', { decision: 'allow', rule: 'read-only' }) >= 1);
    // A call no rule grants, whatever the scopes: a plain denial, no challenge.
    const plain = await connectWith('files:read');
    try {
      const err = await expectMcpError(() => plain.callTool({ name: 'files__delete_file', arguments: { path: '/x' } }));
      assert.equal(err.code, -32042);
    } finally {
      await plain.close();
    }
  });

  test("the SDK's client takes the answer as a step-up challenge and re-authorizes", async () => {
    // The SDK (1.32) re-authorizes on 403 insufficient_scope; its client-credentials flow then
    // asks for the scope it was configured with, not the challenge's (its limitation), so the
    // retry is refused again and it gives up after one try, as the spec asks.
    const connect = async (scope) => {
      const provider = new ClientCredentialsProvider({ clientId: issuer.clientId, clientSecret: issuer.clientSecret, scope, expectedIssuer: issuer.issuer });
      const client = new Client({ name: 'step-up', version: '0.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(gate.url), { authProvider: provider }));
      return client;
    };
    const reader = await connect('files:read'); // 401 first: the SDK fetches a token
    try {
      const asked = issuer.requests.length;
      await assert.rejects(reader.callTool({ name: 'files__write_file', arguments: { path: '/srv/stepped' } }), /403 after trying upscoping/);
      assert.equal(issuer.requests.length, asked + 1, 'the challenge made the SDK ask for a new token once');
    } finally {
      await reader.close();
    }
    const writer = await connect('files:read files:write');
    try {
      const before = files.calls.length;
      const r = await writer.callTool({ name: 'files__write_file', arguments: { path: '/srv/stepped' } });
      assert.match(r.content[0].text, /\/srv\/stepped/);
      assert.equal(files.calls.length, before + 1);
    } finally {
      await writer.close();
    }
  });

  test('/api/explain names the rule that decides an invocation for the caller, and why', async () => {
    const explain = async (scope, query) => {
      const headers = scope === null ? {} : { authorization: `Bearer ${await issuer.mint('alice', scope)}` };
      const res = await fetch(`${gate.base}/api/explain?${new URLSearchParams(query)}`, { headers });
      return { status: res.status, body: await res.json() };
    };
    const write = { method: 'tools/call', name: 'files__write_file', arguments: JSON.stringify({ path: '/srv/a' }) };
    let r = await explain('files:read', write);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.decision, 'deny');
    assert.equal(r.body.principal, 'alice');
    assert.deepEqual(r.body.requiredScopes, ['files:write']);
    assert.equal(r.body.stepUpRule, 'srv-writes');
    r = await explain('files:write', write);
    assert.equal(r.body.decision, 'allow');
    assert.equal(r.body.ruleId, 'srv-writes');
    assert.equal(r.body.entry, '/policy/rules/1/allow/0');
    // The annotations are the tool's as gate listed them.
    r = await explain('files:write', { method: 'tools/call', name: 'files__delete_file' });
    assert.equal(r.body.decision, 'deny');
    assert.equal(r.body.ruleId, 'no-destruction');
    assert.match(r.body.reason, /rule no-destruction denies it \(\/policy\/rules\/3\/deny\/0\)/);
    r = await explain('files:write', { method: 'tools/call', name: 'files__read_file' });
    assert.equal(r.body.ruleId, 'read-only');
    // Bad questions get a 400 saying what is wrong; no token, the 401 of /mcp.
    for (const [query, why] of [
      [{ name: 'files__x' }, /method is required/],
      [{ method: 'tools/call', name: 'nope__x' }, /unknown namespace/],
      [{ method: 'tools/call', name: 'files__x', arguments: '[1]' }, /arguments must be a JSON object/],
      [{ method: 'resources/read', uri: 'file:///a' }, /server is required/],
      [{ method: 'tools/call', who: 'bob' }, /unknown query parameter "who"/],
    ]) {
      const bad = await explain('files:read', query);
      assert.equal(bad.status, 400, JSON.stringify(query));
      assert.match(bad.body.error, why);
    }
    assert.equal((await explain(null, write)).status, 401);
  });
});

describe('gate policy test', { timeout: 30_000 }, () => {
  let dir;
  const config = {
    upstreams: [{ id: 'files', url: 'http://127.0.0.1:9/mcp', namespace: 'files' }],
    auth: { mode: 'required', resource: 'https://gate.example/mcp', issuers: [{ issuer: 'https://idp.example', groupsClaim: 'groups' }] },
    policy: POLICY,
  };
  const principal = (scope, extra = {}) => ({ sub: 'alice', iss: 'https://idp.example', scope, ...extra });
  const run = (cases) => {
    writeFileSync(path.join(dir, 'cases.json'), typeof cases === 'string' ? cases : JSON.stringify({ cases }));
    return spawnSync(requireGateBin(), ['policy', 'test', '--config', path.join(dir, 'gate.json'), path.join(dir, 'cases.json')], {
      encoding: 'utf8',
    });
  };

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-policy-test-'));
    writeFileSync(path.join(dir, 'gate.json'), JSON.stringify(config));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('every case that holds passes; a mismatch fails the run and says why', () => {
    const cases = [
      { label: 'reads', principal: principal('files:read'), method: 'tools/call', name: 'files__read_file', annotations: { readOnlyHint: true, destructiveHint: false }, expect: 'allow', rule: 'read-only' },
      { label: 'srv writes', principal: principal('files:write'), method: 'tools/call', name: 'files__write_file', arguments: { path: '/srv/a' }, annotations: { destructiveHint: false }, expect: 'allow', rule: 'srv-writes' },
      { label: 'etc writes', principal: principal('files:write'), method: 'tools/call', name: 'files__write_file', arguments: { path: '/etc/a' }, annotations: { destructiveHint: false }, expect: 'deny', rule: null },
      { label: 'root exec', principal: null, method: 'tools/call', name: 'files__exec', arguments: { user: 'root' }, annotations: { destructiveHint: false }, expect: 'deny', rule: 'exec-not-root' },
      { label: 'undeclared', principal: null, method: 'tools/call', server: 'files', name: 'plain', expect: 'deny', rule: 'no-destruction' },
    ];
    const ok = run(cases);
    assert.equal(ok.status, 0, ok.stdout + ok.stderr);
    assert.match(ok.stdout, /5 cases, 0 failed/);
    assert.match(ok.stdout, /ok +srv writes +allow srv-writes +allow srv-writes +rule srv-writes allows it \(\/policy\/rules\/1\/allow\/0\)/);
    const wrong = run([
      ...cases,
      { label: 'wrong', principal: principal('files:read'), method: 'tools/call', name: 'files__write_file', arguments: { path: '/srv/a' }, annotations: { destructiveHint: false }, expect: 'allow' },
    ]);
    assert.equal(wrong.status, 1, wrong.stdout + wrong.stderr);
    assert.match(wrong.stdout, /FAIL +wrong +allow +deny \(default\) +no rule allows it: defaultDecision deny; rule srv-writes would allow it to a token with the scope files:write/);
    assert.match(wrong.stdout, /6 cases, 1 failed/);
  });

  test('a malformed case file is refused with where and why, and nothing is decided', () => {
    const bad = run([{ method: 'tools/call', expect: 'maybe', extra: 1 }, { principal: 3, expect: 'allow' }]);
    assert.equal(bad.status, 2);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /cases\.json at \/cases\/0\/extra: unknown field "extra"/);
    assert.match(bad.stderr, /at \/cases\/0\/expect: "maybe" is not allowed/);
    assert.match(bad.stderr, /at \/cases\/1\/principal: must be the token's claims/);
    assert.match(bad.stderr, /at \/cases\/1\/method: required/);
    const notJson = run('{"cases": [');
    assert.equal(notJson.status, 2);
    assert.match(notJson.stderr, /is not valid JSON/);
    const usage = spawnSync(requireGateBin(), ['policy', 'test', path.join(dir, 'cases.json')], { encoding: 'utf8' });
    assert.equal(usage.status, 2);
    assert.match(usage.stderr, /usage: gate policy test --config/);
  });
});
