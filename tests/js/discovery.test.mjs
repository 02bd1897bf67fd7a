// Discovery with the real binary: a source served by the test adds, changes and removes
// upstreams (clients hear list_changed, /health follows at once), flaps (logged once per
// outage, the last applied upstreams keep serving), serves bad documents (rejected whole,
// logged once) and recovers; the allowed* containment; reloads keep what is discovered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, get, runGate, startDiscoverySource, startEverything, startGate } from './lib/index.mjs';
import { metric } from './lib/metrics.mjs';

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

  test('a discovered upstream may only use allowedSecretRefs and send credentials to allowedCredentialHosts', async () => {
    const away127 = away.url;
    const awayLocalhost = away.url.replace('127.0.0.1', 'localhost');
    const entry = (url, secretRef) => ({ id: 'cred', url, namespace: 'k', auth: { strategy: 'static', secretRef } });
    const source = await startDiscoverySource({ upstreams: [entry(away127, 'PAYROLL_DB_PASSWORD')] });
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'home', url: home.url, namespace: 'a' }],
        discovery: { url: source.url, intervalMs: 100, allowedSecretRefs: ['TOOLS_TOKEN'], allowedCredentialHosts: ['127.0.0.1'] },
      },
      env: { TOOLS_TOKEN: 't', PAYROLL_DB_PASSWORD: 'p' },
    });
    let client;
    try {
      client = await connectClient(gate.url);
      await eventually(() => logged(gate, /discovered \/upstreams\/0\/auth\/secretRef: names the secret PAYROLL_DB_PASSWORD/) === 1, { what: 'the secret refused' });
      source.serve({ upstreams: [entry(awayLocalhost, 'TOOLS_TOKEN')] });
      await eventually(() => logged(gate, /discovered \/upstreams\/0\/url: would send credentials .* to localhost/) === 1, { what: 'the host refused' });
      assert.ok(!(await names(client)).some((n) => n.startsWith('k__')));
      source.serve({ upstreams: [entry(away127, 'TOOLS_TOKEN')] });
      await eventually(async () => (await names(client)).includes('k__echo'), { what: 'the contained upstream applied' });
    } finally {
      await client?.close().catch(() => {});
      await gate.stop();
      await source.stop();
    }
  });

  test('a reload keeps the discovered upstreams, and refuses a document they do not fit', async () => {
    const source = await startDiscoverySource({ upstreams: [{ id: 'found', url: away.url, namespace: 'b' }] });
    const base = { url: source.url, intervalMs: 100 };
    const gate = await startGate({ config: { upstreams: [{ id: 'home', url: home.url, namespace: 'a' }], discovery: base } });
    let client;
    try {
      client = await connectClient(gate.url);
      await eventually(async () => (await names(client)).includes('b__echo'), { what: 'discovered' });
      gate.reload({ upstreams: [{ id: 'home', url: home.url, namespace: 'h' }], discovery: base });
      await eventually(async () => (await names(client)).includes('h__echo'), { what: 'the reload applied' });
      assert.ok((await names(client)).includes('b__echo'), 'the discovered upstream kept');
      assert.ok(gate.stderrLines.some((l) => /reload applied: 2 upstreams \(1 discovered\)/.test(l)));
      // A configured upstream that takes the discovered one's id: the reload is refused whole.
      gate.reload({ upstreams: [{ id: 'home', url: home.url, namespace: 'h' }, { id: 'found', url: home.url, namespace: 'z' }], discovery: base });
      await eventually(() => logged(gate, /reload rejected \(SIGHUP\): the discovered upstreams do not fit the new document: discovered \/upstreams\/0\/id/) === 1, {
        what: 'the reload refused',
      });
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
