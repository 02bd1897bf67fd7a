// Discovery with the real binary: a source served by the test adds, changes and removes
// upstreams (clients hear list_changed, /health follows at once), flaps (logged once per
// outage, the last applied upstreams keep serving), serves bad documents (rejected whole,
// logged once) and recovers; the allowed* containment (closed unless the configuration names
// what a discovered upstream may use; a refused entry is left out, the rest applies); --validate
// says what is allowed; reloads keep what is discovered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, get, runGate, startDiscoverySource, startEverything, startGate, startIdp } from './lib/index.mjs';
import { json, startFormEndpoint } from './lib/form-endpoint.mjs';
import { startPerUserServer } from './lib/per-user-server.mjs';
import { metric } from './lib/metrics.mjs';

const RESOURCE = 'https://gate.example/mcp';

const names = async (client) => (await client.listTools()).tools.map((t) => t.name);
const syncs = async (gate, outcome) => metric((await get(`${gate.base}/metrics`)).text, 'gate_discovery_syncs_total', { outcome });
const logged = (gate, re) => gate.stderrLines.filter((l) => re.test(l)).length;

describe('discovery', { timeout: 180_000 }, () => {
  let home;
  let away;
  before(async () => {
    [home, away] = await Promise.all([startEverything(), startEverything()]);
  });
  after(async () => {
    await Promise.all([home?.stop(), away?.stop()]);
  });

  test('a source that adds, flaps, serves a bad document and recovers', async () => {
    const source = await startDiscoverySource({ upstreams: [{ id: 'found', url: away.url, namespace: 'b' }] });
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'home', url: home.url, namespace: 'a' }],
        discovery: { url: source.url, intervalMs: 100, bearerSecretRef: 'REGISTRY_TOKEN' },
      },
      env: { REGISTRY_TOKEN: 'registry-s3cret' },
    });
    let client;
    try {
      client = await connectClient(gate.url);
      let changed = 0;
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => changed++);
      await eventually(async () => (await names(client)).includes('b__echo'), { what: 'the discovered upstream served' });
      assert.ok((await names(client)).includes('a__echo'));
      assert.ok(source.requests.every((r) => r.authorization === 'Bearer registry-s3cret'), 'the bearer on every poll');
      assert.ok(gate.stderrLines.some((l) => /discovery applied: 2 upstreams \(1 discovered\)/.test(l)), gate.proc.stderr.text());
      await eventually(async () => (await syncs(gate, 'unchanged')) >= 2, { what: 'unchanged polls counted' });
      assert.equal(await syncs(gate, 'applied'), 1);

      // A change: a second discovered upstream; /health reports it at once (its cache of 1 s is
      // dropped by the swap), and the connected client hears list_changed.
      const health = await get(`${gate.base}/health`);
      assert.equal(health.status, 200, health.text);
      assert.doesNotMatch(health.text, /"also"/);
      const before = changed;
      source.serve({ upstreams: [{ id: 'found', url: away.url, namespace: 'b' }, { id: 'also', url: away.url, namespace: 'c' }] });
      await eventually(async () => (await syncs(gate, 'applied')) === 2, { what: 'the change applied' });
      assert.match((await get(`${gate.base}/health`)).text, /"also"/);
      await eventually(() => changed > before, { what: 'list_changed after the swap' });
      assert.ok((await names(client)).includes('c__echo'));

      // A bad document: rejected whole (its good entry is not applied either), logged once.
      source.serve({ upstreams: [{ id: 'found', url: away.url, namespace: 'b' }, { id: 'x', url: away.url, namespace: 'x' }, { id: 'bad', url: 'ftp://127.0.0.1/x', namespace: 'd' }] });
      await eventually(async () => (await syncs(gate, 'rejected')) >= 3, { what: 'rejections counted' });
      assert.equal(logged(gate, /discovery: the document .* was rejected, nothing of it applied: discovered \/upstreams\/2\/url/), 1);
      let tools = await names(client);
      assert.ok(tools.includes('c__echo') && !tools.includes('x__echo'), 'the last applied upstreams keep serving');

      // The source fails: counted per poll, logged once; serving continues.
      source.fail(503);
      await eventually(async () => (await syncs(gate, 'error')) >= 3, { what: 'failed fetches counted' });
      assert.equal(logged(gate, /discovery: fetching .* failed \(.*HTTP 503\)/), 1);
      assert.ok((await names(client)).includes('c__echo'));

      // Recovery with a document that drops `also`: the recovery is logged and `also` retired.
      source.serve({ upstreams: [{ id: 'found', url: away.url, namespace: 'b' }] });
      await eventually(async () => !(await names(client)).includes('c__echo'), { what: 'the removed upstream retired' });
      assert.equal(logged(gate, /discovery: .* answers again/), 1);
      assert.ok(gate.stderrLines.some((l) => /discovery applied: 2 upstreams \(1 discovered\); 2 kept with live sessions, 0 new or changed, 1 retired/.test(l)), gate.proc.stderr.text());
      tools = await names(client);
      assert.ok(tools.includes('a__echo') && tools.includes('b__echo'));
      const call = await client.callTool({ name: 'b__echo', arguments: { message: 'via discovery' } });
      assert.deepEqual(call.content, [{ type: 'text', text: 'Echo: via discovery' }]);
    } finally {
      await client?.close().catch(() => {});
      await gate.stop();
      await source.stop();
    }
  });

  test('containment is closed by default: no secret, credential host or caller token for a discovered upstream unless named', async () => {
    // Every credentialed entry points at `trap` (an MCP server that records each request's
    // bearer and answers `whoami` with whose credential it was) and `tokens` (a token
    // endpoint): what reaches them is what gate would have handed a registry's entry.
    let callerToken;
    const holders = { 'inner-s3cret': 'static-secret', 'minted-for-cc': 'cc-token' };
    const [idp, trap, tokens] = await Promise.all([
      startIdp(),
      startPerUserServer((token) => holders[token] ?? (token === callerToken ? 'caller' : null)),
      startFormEndpoint((form, res) => json(res, 200, { access_token: 'minted-for-cc', token_type: 'Bearer', expires_in: 3600 })),
    ]);
    const source = await startDiscoverySource({
      upstreams: [
        { id: 'plain', url: away.url, namespace: 'p' },
        { id: 'leak', url: trap.url, namespace: 'l', auth: { strategy: 'static', secretRef: 'GATE_INTERNAL_SECRET' } },
        {
          id: 'cc',
          url: trap.url,
          namespace: 'c',
          auth: { strategy: 'client-credentials', tokenEndpoint: tokens.url, clientId: 'gate', clientAuth: { type: 'client_secret_post', secretRef: 'CC_SECRET' } },
        },
        { id: 'pt', url: trap.url, namespace: 't', auth: { strategy: 'passthrough' } },
      ],
    });
    const config = (discovery) => ({
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      server: { introspection: { enabled: true } },
      upstreams: [{ id: 'home', url: home.url, namespace: 'a' }],
      discovery: { url: source.url, intervalMs: 100, ...discovery },
    });
    const gate = await startGate({ config: config({}), env: { GATE_INTERNAL_SECRET: 'inner-s3cret', CC_SECRET: 'cc-s3cret' } });
    callerToken = await idp.mint({ sub: 'alice', aud: RESOURCE });
    const reached = () => ({
      staticSecret: trap.seen.some((r) => r.token === 'inner-s3cret'),
      clientSecretPosted: tokens.requests.some((r) => r.form.client_secret === 'cc-s3cret'),
      callerToken: trap.seen.some((r) => r.token === callerToken),
    });
    let client;
    try {
      client = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${callerToken}` } } });
      await eventually(async () => (await names(client)).includes('p__echo'), { what: 'the credential-less entry applied' });
      // A list reaches every upstream in force: a credentialed entry that had been applied
      // would have been handed its credential by now.
      const tools = await names(client);
      assert.deepEqual(reached(), { staticSecret: false, clientSecretPosted: false, callerToken: false });
      assert.equal(trap.seen.length + tokens.requests.length, 0, 'nothing reached the hosts nobody named');
      assert.deepEqual(tools.filter((n) => /^[lct]__/.test(n)), []);
      // Each refused entry is named with every field it asked for; the rest of the document applied.
      const refusals = [
        /discovery: the discovered upstream "leak" is refused.*discovered \/upstreams\/1\/auth\/strategy: .*allowedStrategies.*discovered \/upstreams\/1\/auth\/secretRef: names the secret GATE_INTERNAL_SECRET.*allowedSecretRefs/,
        /discovery: the discovered upstream "cc" is refused.*discovered \/upstreams\/2\/auth\/clientAuth\/secretRef.*discovered \/upstreams\/2\/auth\/tokenEndpoint: would send .* to 127\.0\.0\.1.*allowedCredentialHosts/,
        /discovery: the discovered upstream "pt" is refused.*discovered \/upstreams\/3\/auth\/strategy: .*"passthrough".*callers' own tokens/,
      ];
      await eventually(() => refusals.every((re) => logged(gate, re) === 1), { what: 'each refusal logged' });
      const text = (await get(`${gate.base}/metrics`)).text;
      assert.equal(metric(text, 'gate_discovery_refused_upstreams_total', {}), 3);
      assert.equal(metric(text, 'gate_discovery_syncs_total', { outcome: 'applied' }), 1);
      // Still said after later polls of the same document found nothing new.
      await eventually(async () => metric((await get(`${gate.base}/metrics`)).text, 'gate_discovery_syncs_total', { outcome: 'unchanged' }) >= 1, { what: 'an unchanged poll' });
      const federation = await get(`${gate.base}/api/federation`, { authorization: `Bearer ${callerToken}` });
      assert.equal(federation.status, 200, federation.text);
      const { discovery } = JSON.parse(federation.text);
      assert.equal(discovery.discovered, 1);
      assert.deepEqual(refusals.map((re) => logged(gate, re)), [1, 1, 1], 'logged once per document, not per poll');
      for (const id of ['leak', 'cc', 'pt']) assert.match(discovery.lastProblem, new RegExp(`the discovered upstream "${id}" is refused`));

      // Allowed by name, each works: the secret, the client secret at the token endpoint and
      // the caller's token all reach the named host.
      gate.reload(
        config({
          allowedStrategies: ['static', 'client-credentials', 'passthrough'],
          allowedSecretRefs: ['GATE_INTERNAL_SECRET', 'CC_SECRET'],
          allowedCredentialHosts: ['127.0.0.1'],
        }),
      );
      await eventually(async () => (await names(client)).filter((n) => /^[lct]__whoami$/.test(n)).length === 3, { what: 'the allowed entries applied' });
      for (const [ns, holder] of [['l', 'static-secret'], ['c', 'cc-token'], ['t', 'caller']]) {
        const call = await client.callTool({ name: `${ns}__whoami`, arguments: {} });
        assert.deepEqual(call.content, [{ type: 'text', text: holder }], `${ns}__whoami answered with ${holder}'s credential`);
      }
      assert.deepEqual(reached(), { staticSecret: true, clientSecretPosted: true, callerToken: true });
      assert.equal(metric((await get(`${gate.base}/metrics`)).text, 'gate_discovery_refused_upstreams_total', {}), 3, 'nothing more refused');
    } finally {
      await client?.close().catch(() => {});
      await gate.stop();
      await Promise.all([source.stop(), trap.stop(), tokens.stop(), idp.stop()]);
    }
  });

  test('--validate says what a discovered upstream may use, and explains the lists when none is set', async () => {
    const doc = (discovery) => JSON.stringify({ upstreams: [{ id: 'home', url: home.url, namespace: 'a' }], discovery: { url: 'http://127.0.0.1:9/r', ...discovery } });
    const closed = await runGate(['--validate'], { env: { GATE_CONFIG: doc({}) } });
    assert.equal(closed.code, 0, closed.stderr);
    assert.match(closed.stderr, /gate: configuration valid/);
    assert.match(closed.stderr, /discovery: a discovered upstream may use no secret, no credential host and no caller's token: auth strategy "none" only/);
    assert.match(closed.stderr, /discovery\.allowedStrategies, discovery\.allowedSecretRefs and discovery\.allowedCredentialHosts/);
    const open = await runGate(['--validate'], {
      env: { GATE_CONFIG: doc({ allowedStrategies: ['static'], allowedSecretRefs: ['TOOLS_TOKEN'], allowedCredentialHosts: ['Tools.Internal'] }) },
    });
    assert.equal(open.code, 0, open.stderr);
    assert.match(open.stderr, /discovery: a discovered upstream may use the auth strategies "none", "static" \(discovery\.allowedStrategies\)/);
    assert.match(open.stderr, /the secrets TOOLS_TOKEN \(discovery\.allowedSecretRefs\)/);
    assert.match(open.stderr, /the credential hosts tools\.internal \(discovery\.allowedCredentialHosts\)/);
    const bad = await runGate(['--validate'], { env: { GATE_CONFIG: doc({ allowedStrategies: ['statik'] }) } });
    assert.equal(bad.code, 1, bad.stderr);
    assert.match(bad.stderr, /\/discovery\/allowedStrategies\/0/);
  });

  test('a reload keeps the discovered upstreams, and refuses a document they do not fit', async () => {
    const source = await startDiscoverySource({ upstreams: [{ id: 'found', url: away.url, namespace: 'b' }] });
    const base = { url: source.url, intervalMs: 100 };
    const gate = await startGate({ config: { upstreams: [{ id: 'home', url: home.url, namespace: 'a' }], discovery: base } });
    let client;
    try {
      client = await connectClient(gate.url);
      await eventually(async () => (await names(client)).includes('b__echo'), { what: 'discovered' });
      assert.match(await gate.reloaded({ upstreams: [{ id: 'home', url: home.url, namespace: 'h' }], discovery: base }), /reload applied: 2 upstreams \(1 discovered\)/);
      await eventually(async () => (await names(client)).includes('h__echo'), { what: 'the reloaded upstream listed' });
      assert.ok((await names(client)).includes('b__echo'), 'the discovered upstream kept');
      // A configured upstream that takes the discovered one's id: the reload is refused whole.
      const refused = await gate.reloaded(
        { upstreams: [{ id: 'home', url: home.url, namespace: 'h' }, { id: 'found', url: home.url, namespace: 'z' }], discovery: base },
        { expect: 'rejected' },
      );
      assert.match(refused, /reload rejected \(SIGHUP\): the discovered upstreams do not fit the new document: discovered \/upstreams\/0\/id/);
      assert.ok(!(await names(client)).includes('z__echo'));
      // Without the discovery section, discovered upstreams go.
      gate.reload({ upstreams: [{ id: 'home', url: home.url, namespace: 'h' }, { id: 'two', url: away.url, namespace: 't' }] });
      await eventually(async () => !(await names(client)).includes('b__echo'), { what: 'discovered upstreams retired' });
    } finally {
      await client?.close().catch(() => {});
      await gate.stop();
      await source.stop();
    }
  });

  test('a missing bearer secret stops gate at start, naming it', async () => {
    const r = await runGate(['--port', '0'], {
      env: { GATE_CONFIG: JSON.stringify({ upstreams: [{ id: 'home', url: home.url, namespace: 'a' }], discovery: { url: 'http://127.0.0.1:9/r', bearerSecretRef: 'NOT_SET_ANYWHERE' } }) },
    });
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /\/discovery\/bearerSecretRef: the environment variable NOT_SET_ANYWHERE is not set/);
  });
});
