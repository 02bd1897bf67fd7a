// Short aliases for long names (routing.maxNameLength, docs/configuration.md "Shortened
// names"): a federation of a 2025-era SDK server with long tool and prompt names (one over the
// specification's 128) and a 2026-07-28 v2 SDK server whose long-named tool asks for
// Mcp-Param-* headers. Every listed name fits the maximum; a call by an alias reaches the tool
// it stands for, from a session client, a 2026-07-28 client, and a second gate that never
// listed anything (the alias is derived, not remembered).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';

import * as z from 'zod';

import { connectClient, modernRequest, post, startGate, startParamServer } from './lib/index.mjs';
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

  /** The name `own` of the upstream under `prefix` is listed as: whole, or its alias (the first characters, '-', 8 hex digits of SHA-256 of the whole), if listed. */
  const listedFor = (listed, prefix, own) => {
    const full = `${prefix}${own}`;
    const expected = full.length <= MAX ? full : `${full.slice(0, MAX - 9)}-${createHash('sha256').update(full).digest('hex').slice(0, 8)}`;
    return listed.find((n) => n === expected);
  };

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
