// Short aliases for long names (routing.maxNameLength, docs/configuration.md "Shortened
// names"): a federation of a 2025-era SDK server with long tool and prompt names (one over the
// specification's 128) and a 2026-07-28 v2 SDK server whose long-named tool asks for
// Mcp-Param-* headers. Every listed name fits the maximum; a call by an alias reaches the tool
// it stands for, from a session client, a 2026-07-28 client, and a second gate that never
// listed anything (the alias is derived, not remembered).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import * as z from 'zod';

import { connectClient, modernRequest, post, startGate, startParamServer } from './lib/index.mjs';
import { requireGateBin } from './lib/paths.mjs';
import { startStatelessServer } from './lib/stateless-server.mjs';

const MAX = 40;
const FINE = 'fine';
const LONG = 'summarize_the_quarterly_revenue_report_for_every_region';
const LONGER = 'summarize_the_quarterly_revenue_report_for_every_country';
const OVER = 'o'.repeat(140);
const PROMPT = 'draft_a_polite_reply_to_an_unhappy_customer_email';
const REGIONAL = 'regional_lookup_with_a_name_long_enough_to_need_an_alias';

describe('short aliases for long names through gate', { timeout: 120_000 }, () => {
  let names;
  let params;
  let gate;
  const config = () => ({
    upstreams: [
      { id: 'names', url: names.url, namespace: 'tools' },
      { id: 'params', url: params.url, namespace: 'p', protocol: '2026-07-28' },
    ],
    routing: { maxNameLength: MAX },
  });
  const warn = console.warn;

  before(async () => {
    console.warn = () => {}; // the SDK warns of the 140-character name on every request
    names = await startStatelessServer('names', { capabilities: { tools: {}, prompts: {} } }, (server) => {
      // Each tool answers with its own name: a call proves which one it reached.
      for (const name of [FINE, LONG, LONGER, OVER])
        server.registerTool(name, { description: name.slice(0, 8), inputSchema: { q: z.string().optional() } }, async () => ({
          content: [{ type: 'text', text: `called ${name}` }],
        }));
      server.registerPrompt(PROMPT, { description: 'a reply', argsSchema: { tone: z.string() } }, ({ tone }) => ({
        messages: [{ role: 'user', content: { type: 'text', text: `${PROMPT} in a ${tone} tone` } }],
      }));
    });
    params = await startParamServer({ regionalAlso: [REGIONAL] });
    gate = await startGate({ config: config() });
  });

  after(async () => {
    await gate?.stop();
    await names?.stop();
    await params?.stop();
    console.warn = warn;
  });

  /** The name a client sees for `full`: whole, or its alias (the first characters, '-', 8 hex digits of SHA-256 of the whole). */
  const aliasOf = (full) => (full.length <= MAX ? full : `${full.slice(0, MAX - 9)}-${createHash('sha256').update(full).digest('hex').slice(0, 8)}`);
  /** The name `own` of the upstream under `prefix` as `listed` shows it, if it does. */
  const listedFor = (listed, prefix, own) => listed.find((n) => n === aliasOf(`${prefix}${own}`));

  test('every listed name fits the maximum; a call by an alias reaches the tool it stands for', async () => {
    const client = await connectClient(gate.url);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      for (const n of tools) assert.ok(n.length <= MAX, `${n} is ${n.length} characters`);
      assert.ok(tools.includes('tools__fine'), 'a short name is listed whole');
      const long = listedFor(tools, 'tools__', LONG);
      const longer = listedFor(tools, 'tools__', LONGER);
      const over = listedFor(tools, 'tools__', OVER);
      assert.ok(long && longer && over, tools.join('\n'));
      // The same first characters, told apart by the digest of the whole name.
      assert.equal(long.slice(0, MAX - 9), longer.slice(0, MAX - 9));
      assert.notEqual(long, longer);
      for (const [alias, own] of [[long, LONG], [longer, LONGER], [over, OVER], ['tools__fine', FINE]]) {
        const r = await client.callTool({ name: alias, arguments: {} });
        assert.deepEqual(r.content, [{ type: 'text', text: `called ${own}` }], alias);
      }
      const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
      const prompt = listedFor(prompts, 'tools__', PROMPT);
      assert.ok(prompt, prompts.join('\n'));
      const got = await client.getPrompt({ name: prompt, arguments: { tone: 'warm' } });
      assert.equal(got.messages[0].content.text, `${PROMPT} in a warm tone`);
    } finally {
      await client.close();
    }
  });

  test('a second gate that never listed anything lists the same aliases and reverses a call by one', async () => {
    const first = await connectClient(gate.url);
    let listed;
    try {
      listed = (await first.listTools()).tools.map((t) => t.name).sort();
    } finally {
      await first.close();
    }
    const fresh = await startGate({ config: config() });
    try {
      const client = await connectClient(fresh.url);
      try {
        // The call comes first: this gate learns the upstream's list to reverse the alias.
        const r = await client.callTool({ name: listedFor(listed, 'tools__', LONGER), arguments: {} });
        assert.deepEqual(r.content, [{ type: 'text', text: `called ${LONGER}` }]);
        assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), listed);
      } finally {
        await client.close();
      }
    } finally {
      await fresh.stop();
    }
  });

  test("a 2026-07-28 client calls an alias with the tool's Mcp-Param-* headers; contradicting ones are refused", async () => {
    const list = modernRequest('tools/list');
    const tools = (await post(gate.url, list.body, list.headers)).json.result.tools.map((t) => t.name);
    const alias = listedFor(tools, 'p__', REGIONAL);
    assert.ok(alias, tools.join('\n'));
    const call = modernRequest('tools/call', { name: alias, arguments: { region: 'eu-west' } }, { headers: { 'mcp-param-region': 'eu-west' } });
    const r = await post(gate.url, call.body, call.headers);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.result?.content, [{ type: 'text', text: 'region=eu-west count=undefined id=undefined' }], r.text);
    // The upstream is called by its own name, with the headers its tool asks for.
    const seen = params.requests.filter((q) => q.body.method === 'tools/call').at(-1);
    assert.equal(seen.body.params.name, REGIONAL);
    assert.equal(seen.headers['mcp-name'], REGIONAL);
    assert.equal(seen.headers['mcp-param-region'], 'eu-west');
    // gate found the annotations through the alias: a header contradicting the body is 400.
    const calls = params.requests.length;
    const bad = modernRequest('tools/call', { name: alias, arguments: { region: 'eu-west' } }, { headers: { 'mcp-param-region': 'us-east' } });
    const refused = await post(gate.url, bad.body, bad.headers);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error?.code, -32020, refused.text);
    assert.equal(params.requests.length, calls, 'nothing reached the upstream');
  });

  test('/api/explain and gate policy test answer for the tool an alias stands for, never for the alias itself', async () => {
    const policy = {
      defaultDecision: 'deny',
      rules: [{ id: 'long-only', allow: [{ server: 'names', methods: ['tools/call'], names: [LONG] }] }],
    };
    const governed = { ...config(), policy, server: { introspection: { enabled: true } } };
    const explained = async (g, name) => {
      const r = await fetch(`${g.base}/api/explain?${new URLSearchParams({ method: 'tools/call', name })}`);
      return { status: r.status, body: await r.json() };
    };
    const fresh = await startGate({ config: governed });
    try {
      const client = await connectClient(fresh.url);
      let tools;
      try {
        tools = (await client.listTools()).tools.map((t) => t.name);
        const r = await client.callTool({ name: listedFor(tools, 'tools__', LONG), arguments: {} });
        assert.deepEqual(r.content, [{ type: 'text', text: `called ${LONG}` }], 'the call the rule allows');
      } finally {
        await client.close();
      }
      const long = await explained(fresh, listedFor(tools, 'tools__', LONG));
      assert.equal(long.status, 200, JSON.stringify(long.body));
      assert.equal(long.body.decision, 'allow');
      assert.equal(long.body.ruleId, 'long-only');
      assert.equal(long.body.server, 'names');
      assert.equal(long.body.name, LONG);
      assert.equal(long.body.clientName, listedFor(tools, 'tools__', LONG));
      // Left out of the caller's list (the policy denies it), and still explained.
      assert.equal(listedFor(tools, 'tools__', LONGER), undefined);
      const longer = await explained(fresh, aliasOf(`tools__${LONGER}`));
      assert.equal(longer.status, 200, JSON.stringify(longer.body));
      assert.equal(longer.body.decision, 'deny');
      assert.equal(longer.body.name, LONGER, 'the same first characters, another tool');
      // Of the alias shape, but no listed name shortens to it: decided as sent.
      const lookalike = await explained(fresh, `tools__${'x'.repeat(MAX - 7 - 9)}-0123abcd`);
      assert.equal(lookalike.status, 200, JSON.stringify(lookalike.body));
      assert.equal(lookalike.body.name, `${'x'.repeat(MAX - 7 - 9)}-0123abcd`);
    } finally {
      await fresh.stop();
    }
    // Offline nothing was listed: an alias is refused, asking for the tool's own name.
    const dir = mkdtempSync(path.join(tmpdir(), 'gate-alias-policy-'));
    try {
      writeFileSync(path.join(dir, 'gate.json'), JSON.stringify(governed));
      const alias = aliasOf(`tools__${LONG}`);
      const cases = [
        { label: 'by alias', method: 'tools/call', name: alias, expect: 'allow' },
        { label: 'by own name', method: 'tools/call', server: 'names', name: LONG, expect: 'allow', rule: 'long-only' },
      ];
      writeFileSync(path.join(dir, 'cases.json'), JSON.stringify({ cases }));
      const run = spawnSync(requireGateBin(), ['policy', 'test', '--config', path.join(dir, 'gate.json'), path.join(dir, 'cases.json')], { encoding: 'utf8' });
      assert.equal(run.status, 1, run.stdout + run.stderr);
      assert.match(run.stdout, /FAIL +by alias +allow +error +".*" has the shape of a short alias \(routing\.maxNameLength\).*ask by its own name, with server=names/);
      assert.match(run.stdout, /ok +by own name +allow long-only/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a name of the alias shape that no long name shortens to is called as sent', async () => {
    const client = await connectClient(gate.url);
    try {
      await client.listTools();
      const lookalike = `tools__${'x'.repeat(MAX - 7 - 9)}-0123abcd`;
      assert.equal(lookalike.length, MAX);
      const r = await client.callTool({ name: lookalike, arguments: {} });
      // The upstream's own answer for a tool it does not have: gate did not guess another.
      assert.equal(r.isError, true, JSON.stringify(r));
      assert.match(r.content[0].text, /xxxxxxxx-0123abcd not found/);
    } finally {
      await client.close();
    }
  });
});
