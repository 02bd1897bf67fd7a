// The authorization policy against the real binary: principals from a test identity provider,
// server-everything as the upstream. Deny by default, per-principal lists (a caller never sees
// what it may not invoke), -32042 on the rest, the decision and the granting rule in audit.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { CreateMessageRequestSchema, ElicitRequestSchema, ErrorCode, ListRootsRequestSchema, McpError, UrlElicitationRequiredError } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, expectMcpError, startEverything, startGate, startIdp } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

describe('policy with principals', { timeout: 60_000 }, () => {
  let everything;
  let idp;
  let gate;
  let alice;
  let bob;

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
        policy: {
          rules: [
            { id: 'alice-echo', subjects: { subs: ['alice'] }, allow: [{ server: 'ev', methods: ['tools/call'], names: ['echo'] }] },
            { id: 'eng-getters', subjects: { groups: ['eng'] }, allow: [{ server: 'ev', methods: ['tools/call'], names: ['ev__get-*'] }] },
            { id: 'eng-prompts', subjects: { groups: ['eng'] }, allow: [{ server: 'ev', methods: ['prompts/get'] }] },
          ],
        },
      },
    });
    const connect = async (sub, groups) =>
      connectClient(gate.url, {
        requestInit: { headers: { authorization: `Bearer ${await idp.mint({ aud: RESOURCE, sub, groups })}` } },
      });
    alice = await connect('alice', []);
    bob = await connect('bob', ['eng']);
  });

  after(async () => {
    await alice?.close().catch(() => {});
    await bob?.close().catch(() => {});
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test("two principals see different lists and get -32042 on each other's tools", async () => {
    const aliceTools = (await alice.listTools()).tools.map((t) => t.name);
    const bobTools = (await bob.listTools()).tools.map((t) => t.name);
    assert.deepEqual(aliceTools, ['ev__echo']);
    assert.ok(bobTools.length >= 2, JSON.stringify(bobTools));
    assert.ok(bobTools.every((n) => n.startsWith('ev__get-')), JSON.stringify(bobTools));
    const denied = await expectMcpError(() => alice.callTool({ name: bobTools[0], arguments: {} }));
    assert.equal(denied.code, -32042);
    assert.match(denied.message, /policy denied tools\/call .* for alice/);
    // 2025-11-25 also names -32042 URL_ELICITATION_REQUIRED: the SDK client makes a
    // UrlElicitationRequiredError only of an error whose data carries `elicitations`, which a
    // denial never does; it is a plain McpError, though its code equals that constant
    // (docs/security.md, "A denial's code").
    assert.ok(denied instanceof McpError);
    assert.ok(!(denied instanceof UrlElicitationRequiredError));
    assert.equal(denied.code, ErrorCode.UrlElicitationRequired);
    assert.equal(denied.data?.elicitations, undefined);
    const alsoDenied = await expectMcpError(() => bob.callTool({ name: 'ev__echo', arguments: { message: 'x' } }));
    assert.equal(alsoDenied.code, -32042);
    // Prompts: bob's group may get them, alice sees none.
    assert.equal((await alice.listPrompts()).prompts.length, 0);
    assert.ok((await bob.listPrompts()).prompts.length > 0);
    const events = await gate.waitForAudit((ev) => ev.filter((e) => e.outcome === 'denied').length >= 2);
    const deny = events.find((e) => e.outcome === 'denied' && e.principal === 'alice');
    assert.equal(deny.decision, 'deny');
    assert.equal(deny.ruleId, undefined, 'the default decided it');
    assert.equal(deny.upstreamCalls, 0, 'a denied call never reaches the upstream');
    const lists = events.filter((e) => e.method === 'tools/list' && e.principal === 'alice');
    assert.equal(lists.at(-1).itemsServed, 1, 'itemsServed counts what was handed out');
  });

  test('the granting rule is named in audit as ruleId', async () => {
    const r = await alice.callTool({ name: 'ev__echo', arguments: { message: 'hi' } });
    assert.match(r.content[0].text, /hi/);
    const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tools/call' && e.principal === 'alice' && e.outcome === 'ok'));
    const ok = events.find((e) => e.method === 'tools/call' && e.principal === 'alice' && e.outcome === 'ok');
    assert.equal(ok.decision, 'allow');
    assert.equal(ok.ruleId, 'alice-echo');
  });
});

describe('policy without authentication', { timeout: 60_000 }, () => {
  let everything;

  before(async () => {
    everything = await startEverything();
  });
  after(async () => {
    await everything?.stop();
  });

  test('defaultDecision allow lets through what no rule grants', async () => {
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        audit: { sinks: [{ type: 'stdout' }] },
        policy: { defaultDecision: 'allow', rules: [] },
      },
    });
    const client = await connectClient(gate.url);
    try {
      assert.ok((await client.listTools()).tools.some((t) => t.name === 'ev__echo'));
      const r = await client.callTool({ name: 'ev__echo', arguments: { message: 'open' } });
      assert.match(r.content[0].text, /open/);
      const events = await gate.waitForAudit((ev) => ev.some((e) => e.method === 'tools/call'));
      const call = events.find((e) => e.method === 'tools/call');
      assert.equal(call.decision, 'allow');
      assert.equal(call.ruleId, undefined);
    } finally {
      await client.close();
      await gate.stop();
    }
  });

  test('a policy with no rule for anonymous callers lists nothing and denies every call', async () => {
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        policy: { rules: [{ id: 'only-alice', subjects: { subs: ['alice'] }, allow: [{ server: 'ev' }] }] },
      },
    });
    const client = await connectClient(gate.url);
    try {
      assert.deepEqual((await client.listTools()).tools, []);
      assert.deepEqual((await client.listResources()).resources, []);
      const denied = await expectMcpError(() => client.callTool({ name: 'ev__echo', arguments: { message: 'x' } }));
      assert.equal(denied.code, -32042);
      const read = await expectMcpError(() => client.readResource({ uri: 'demo://resource/static/document/architecture.md' }));
      assert.equal(read.code, -32042, JSON.stringify(read));
    } finally {
      await client.close();
      await gate.stop();
    }
  });
});

describe('server-initiated requests are governed by the policy', { timeout: 90_000 }, () => {
  let everything;
  let idp;
  let gate;
  const users = {};

  const connectAs = async (sub) => {
    const seen = { sampling: 0, elicitation: 0, roots: 0 };
    const client = await connectClient(gate.url, {
      capabilities: { sampling: {}, elicitation: {}, roots: {} },
      requestInit: { headers: { authorization: `Bearer ${await idp.mint({ aud: RESOURCE, sub })}` } },
    });
    client.setRequestHandler(CreateMessageRequestSchema, async () => {
      seen.sampling += 1;
      return { role: 'assistant', content: { type: 'text', text: `sampled for ${sub}` }, model: 'stub' };
    });
    client.setRequestHandler(ElicitRequestSchema, async () => {
      seen.elicitation += 1;
      return { action: 'decline' };
    });
    client.setRequestHandler(ListRootsRequestSchema, async () => {
      seen.roots += 1;
      return { roots: [{ uri: `file:///roots/${sub}`, name: sub }] };
    });
    users[sub] = { client, seen };
  };

  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        policy: {
          rules: [
            {
              id: 'carol-samples',
              subjects: { subs: ['carol'] },
              allow: [{ server: 'ev', methods: ['tools/call', 'sampling/createMessage'], names: ['trigger-*', 'get-roots-list'] }],
            },
            { id: 'dave-all', subjects: { subs: ['dave'] }, allow: [{ server: 'ev' }] },
          ],
        },
      },
    });
    await connectAs('carol');
    await connectAs('dave');
  });

  after(async () => {
    for (const u of Object.values(users)) await u.client.close().catch(() => {});
    await gate?.stop();
    await idp?.stop();
    await everything?.stop();
  });

  test('a rule that lists sampling/createMessage lets the upstream sample that client', async () => {
    const r = await users.carol.client.callTool({ name: 'ev__trigger-sampling-request', arguments: { prompt: 'p', maxTokens: 5 } });
    assert.match(JSON.stringify(r.content), /sampled for carol/);
    assert.equal(users.carol.seen.sampling, 1);
  });

  test('what no rule grants never reaches the client: -32042 to the upstream, audited as denied', async () => {
    await users.carol.client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} }).catch((e) => e);
    await users.carol.client.callTool({ name: 'ev__get-roots-list', arguments: {} }).catch((e) => e);
    assert.equal(users.carol.seen.elicitation, 0);
    assert.equal(users.carol.seen.roots, 0);
    const events = await gate.waitForAudit(
      (ev) =>
        ev.some((e) => e.method === 'elicitation/create' && e.principal === 'carol') &&
        ev.some((e) => e.method === 'roots/list' && e.principal === 'carol'),
    );
    for (const method of ['elicitation/create', 'roots/list']) {
      const e = events.find((x) => x.method === method && x.principal === 'carol');
      assert.equal(e.outcome, 'denied', JSON.stringify(e));
      assert.equal(e.decision, 'deny');
      assert.equal(e.upstream, 'ev');
    }
  });

  test('an entry for the whole server grants what the server asks too', async () => {
    await users.dave.client.callTool({ name: 'ev__trigger-elicitation-request', arguments: {} });
    const roots = await users.dave.client.callTool({ name: 'ev__get-roots-list', arguments: {} });
    assert.equal(users.dave.seen.elicitation, 1);
    assert.match(JSON.stringify(roots.content), /file:\/\/\/roots\/dave/);
    const events = gate.auditEvents();
    assert.ok(!events.some((e) => e.principal === 'dave' && e.outcome === 'denied'), 'nothing of dave denied');
  });
});
