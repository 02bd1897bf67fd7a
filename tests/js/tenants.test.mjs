// Tenants against the real binary: principals from a test identity provider placed in
// tenants by their verified claims, each tenant's view of the upstreams (two upstream entries
// over one server-everything), the tenant in every audit event and in the gate_tenant_*
// metrics, one rate bucket shared by a tenant's principals, and a principal two tenants
// select refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import {
  connectClient,
  expectMcpError,
  get,
  metric,
  openRawSession,
  post,
  rpc,
  startEverything,
  startGate,
  startIdp,
} from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

describe('tenants', { timeout: 90_000 }, () => {
  let everything;
  let idp;
  let gate;
  const clients = [];

  const token = (sub, claims = {}) => idp.mint({ sub, aud: RESOURCE, ...claims });
  const connectAs = async (sub, claims) => {
    const c = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${await token(sub, claims)}` } } });
    clients.push(c);
    return c;
  };

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'alpha', url: everything.url, namespace: 'a' },
          { id: 'beta', url: everything.url, namespace: 'b' },
        ],
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
        tenants: [
          { id: 'acme', subjects: { claims: { org: 'acme' } }, upstreams: ['alpha'] },
          { id: 'globex', subjects: { groups: ['globex'] } },
          { id: 'initech', subjects: { claims: { org: 'initech' } }, rateLimit: { requestsPerMinute: 3 } },
        ],
      },
    });
  });

  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test("tenants: each principal's tenant in audit and metrics, denials included", async () => {
    const alice = await connectAs('alice', { org: 'acme' });
    const bob = await connectAs('bob', { groups: ['globex'] });
    const dave = await connectAs('dave', { org: 'nobody' });
    await alice.callTool({ name: 'a__echo', arguments: { message: 'x' } });
    await bob.callTool({ name: 'b__echo', arguments: { message: 'y' } });
    await dave.callTool({ name: 'b__echo', arguments: { message: 'z' } });
    await expectMcpError(() => alice.callTool({ name: 'b__echo', arguments: { message: 'no' } }));
    const events = await gate.waitForAudit((ev) => ev.filter((e) => e.method === 'tools/call').length >= 4);
    const calls = events.filter((e) => e.method === 'tools/call');
    const of = (sub) => calls.filter((e) => e.principal === sub);
    assert.deepEqual(of('alice').map((e) => [e.tenant, e.outcome]).sort(), [['acme', 'error'], ['acme', 'ok']]);
    assert.deepEqual(of('bob').map((e) => e.tenant), ['globex']);
    assert.equal(of('dave')[0].tenant, undefined, 'no tenant selects dave');
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_tenant_requests_total', { tenant: 'acme', outcome: 'error' }), 1);
    assert.ok(metric(m, 'gate_tenant_requests_total', { tenant: 'acme', outcome: 'ok' }) >= 2); // initialize, the call
    assert.ok(metric(m, 'gate_tenant_upstream_calls_total', { tenant: 'acme' }) >= 1);
    assert.ok(metric(m, 'gate_tenant_upstream_calls_total', { tenant: 'globex' }) >= 1);
  });

  test('tenants[].upstreams: the others are absent from lists and answer like unknown ones', async () => {
    const alice = await connectAs('alice', { org: 'acme' });
    const bob = await connectAs('bob', { groups: ['globex'] });
    const names = async (c) => (await c.listTools({})).tools.map((t) => t.name);
    const aliceTools = await names(alice);
    assert.ok(aliceTools.length > 0 && aliceTools.every((n) => n.startsWith('a__')), JSON.stringify(aliceTools));
    const bobTools = await names(bob);
    assert.ok(bobTools.some((n) => n.startsWith('b__')) && bobTools.some((n) => n.startsWith('a__')));
    const hidden = await expectMcpError(() => alice.callTool({ name: 'b__echo', arguments: { message: 'x' } }));
    const unknown = await expectMcpError(() => alice.callTool({ name: 'zz__echo', arguments: { message: 'x' } }));
    assert.equal(hidden.code, -32043);
    assert.equal(hidden.code, unknown.code);
    assert.equal(hidden.message.replace('b__echo', 'zz__echo'), unknown.message, 'indistinguishable from an unknown one');
  });

  test("tenants[].rateLimit: one bucket shared by the tenant's principals", async () => {
    const carol = { authorization: `Bearer ${await token('carol', { org: 'initech' })}` };
    const erin = { authorization: `Bearer ${await token('erin', { org: 'initech' })}` };
    const c = await openRawSession(gate.url, carol); // 1 of 3
    const e = await openRawSession(gate.url, erin); // 2 of 3
    assert.equal((await post(gate.url, rpc('ping'), c.headers)).status, 200); // 3 of 3
    const refused = await post(gate.url, rpc('ping'), e.headers);
    assert.equal(refused.status, 429, refused.text);
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    assert.match(JSON.parse(refused.text).error, /rate limit of 3 requests per minute for tenant initech reached/);
    // Another tenant's principal is not in that bucket.
    const bob = await openRawSession(gate.url, { authorization: `Bearer ${await token('bob', { groups: ['globex'] })}` });
    assert.equal((await post(gate.url, rpc('ping'), bob.headers)).status, 200);
    const events = await gate.waitForAudit((ev) => ev.some((x) => x.outcome === 'rate_limited'));
    const limited = events.find((x) => x.outcome === 'rate_limited');
    assert.equal(limited.tenant, 'initech');
    assert.equal(limited.principal, 'erin');
  });

  test('a principal two tenants select is refused with 403, naming both', async () => {
    const both = { authorization: `Bearer ${await token('mallory', { org: 'acme', groups: ['globex'] })}` };
    const r = await post(gate.url, rpc('ping'), both);
    assert.equal(r.status, 403, r.text);
    const body = JSON.parse(r.text);
    assert.equal(body.error, 'ambiguous_tenant');
    assert.match(body.error_description, /selected by tenants acme and globex/);
    const events = await gate.waitForAudit((ev) => ev.some((x) => x.principal === 'mallory'));
    const refused = events.find((x) => x.principal === 'mallory');
    assert.equal(refused.outcome, 'forbidden');
    assert.equal(refused.method, 'http');
    const m = (await get(`${gate.base}/metrics`)).text;
    assert.equal(metric(m, 'gate_http_rejections_total', { reason: 'ambiguous_tenant' }), 1);
  });
});
