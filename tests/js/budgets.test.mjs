// Budgets against the real binary: allowances of upstream invocations per UTC calendar period
// for an upstream, the server and a tenant; -32044 naming the reset instant (and the tenant),
// audited as budget_exhausted; an upstream over its own budget left out of lists; a reload
// that changes server.budget refused.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, expectMcpError, startEverything, startGate, startIdp } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

// The next UTC boundary of a calendar period after `now`, as gate prints it.
function nextBoundary(period, now) {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), period === 'hour' ? now.getUTCHours() : 0));
  if (period === 'hour') d.setUTCHours(d.getUTCHours() + 1);
  else d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString();
}

// The refusal names the end of the period it fell in. It fell between `from` (read before
// the calls) and now; in the rare run that a boundary passes in between, either period's
// end is right, and no other instant is.
function assertRefusal(message, reason, period, from) {
  const allowed = [...new Set([nextBoundary(period, from), nextBoundary(period, new Date())])].map(
    (at) => `MCP error -32044: budget exhausted: ${reason}; it resets at ${at}`,
  );
  assert.ok(allowed.includes(message), `${message}\nexpected one of:\n${allowed.join('\n')}`);
}

const echo = (c, name) => c.callTool({ name, arguments: { message: 'x' } });

describe('budgets', { timeout: 90_000 }, () => {
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

  test('budgets: -32044 naming the reset instant, per upstream, server and tenant', async () => {
    const config = {
      upstreams: [
        { id: 'alpha', url: everything.url, namespace: 'a', budget: { period: 'day', upstreamCalls: 2 } },
        { id: 'beta', url: everything.url, namespace: 'b' },
      ],
      audit: { sinks: [{ type: 'stdout' }] },
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
      server: { budget: { period: 'day', upstreamCalls: 7 } },
      tenants: [{ id: 'acme', subjects: { claims: { org: 'acme' } }, budget: { period: 'hour', upstreamCalls: 2 } }],
    };
    const gate = await startGate({ config });
    const connect = async (sub, claims = {}) =>
      connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${await idp.mint({ sub, aud: RESOURCE, ...claims })}` } } });
    const bob = await connect('bob');
    const alice = await connect('alice', { org: 'acme' });
    try {
      // Read before the calls: the instants gate names are computed from when it refused.
      const from = new Date();
      // The upstream's own: two calls a day at alpha (server: 2 of 7).
      await echo(bob, 'a__echo');
      await echo(bob, 'a__echo');
      const upstream = await expectMcpError(() => echo(bob, 'a__echo'));
      assert.equal(upstream.code, -32044);
      assertRefusal(upstream.message, '2 upstream calls per day for upstream alpha', 'day', from);
      // Other upstreams still answer; a list leaves alpha out (server: 3, then 4).
      await echo(bob, 'b__echo');
      const names = (await bob.listTools({})).tools.map((t) => t.name);
      assert.ok(names.length > 0 && names.every((n) => n.startsWith('b__')), JSON.stringify(names));

      // The tenant's: two an hour for acme's principals (server: 6).
      await echo(alice, 'b__echo');
      await echo(alice, 'b__echo');
      const tenant = await expectMcpError(() => echo(alice, 'b__echo'));
      assert.equal(tenant.code, -32044);
      assertRefusal(tenant.message, '2 upstream calls per hour for tenant acme', 'hour', from);

      // The server's: seven a day in all; a refused call charged nothing.
      await echo(bob, 'b__echo');
      const server = await expectMcpError(() => echo(bob, 'b__echo'));
      assertRefusal(server.message, '7 upstream calls per day for the server', 'day', from);

      const events = await gate.waitForAudit((ev) => ev.filter((e) => e.outcome === 'budget_exhausted').length === 3);
      const refused = events.filter((e) => e.outcome === 'budget_exhausted');
      assert.deepEqual(refused.map((e) => e.principal), ['bob', 'alice', 'bob']);
      assert.equal(refused[1].tenant, 'acme');
      assert.ok(refused.every((e) => e.upstreamCalls === 0), 'a refused call reached no upstream');

      // server.budget is fixed at construction.
      const refusedReload = await gate.reloaded({ ...config, server: { budget: { period: 'day', upstreamCalls: 100 } } }, { expect: 'rejected' });
      assert.match(refusedReload, /reload rejected \(SIGHUP\): server.budget cannot change without a restart/);
      const still = await expectMcpError(() => echo(bob, 'b__echo'));
      assert.equal(still.code, -32044);
    } finally {
      await bob.close().catch(() => {});
      await alice.close().catch(() => {});
      await gate.stop();
    }
  });
});
