// Tool search (server.toolSearch; docs/tool-search.md) against the real binary, the real
// server-everything and a real SDK server, with real SDK clients: the callers it is on for are
// listed gate's two tools and what their session selected; the search finds, by what a tool
// does, only what the caller may call (the policy filters before the cut); a selection lists
// what was chosen and tells that session alone; a 2026-07-28 client searches and calls what it
// found by name; the callers it is not on for see the federation as before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, expectMcpError, modernRequest, post, startEverything, startFilesServer, startGate, startIdp } from './lib/index.mjs';

const RESOURCE = 'https://gate.test/mcp';

describe('tool search', { timeout: 90_000 }, () => {
  let everything;
  let files;
  let idp;
  let gate;
  const tokens = {};

  const auth = (who) => ({ authorization: `Bearer ${tokens[who]}` });
  const connectAs = (who) => connectClient(gate.url, { requestInit: { headers: auth(who) } });
  const names = (tools) => tools.map((t) => t.name);
  const search = async (client, query, limit) => {
    const r = await client.callTool({ name: 'gate_search_tools', arguments: limit ? { query, limit } : { query } });
    assert.ok(!r.isError, JSON.stringify(r.content));
    return names(r.structuredContent.tools);
  };

  before(async () => {
    [everything, files, idp] = await Promise.all([startEverything(), startFilesServer(), startIdp()]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'every', url: everything.url, namespace: 'every' },
          { id: 'files', url: files.url, namespace: 'files' },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
        policy: {
          rules: [
            { id: 'everything', allow: [{ server: 'every' }] },
            { id: 'readers', subjects: { groups: ['readers'] }, allow: [{ server: 'files', names: ['read_file'] }] },
          ],
        },
        server: { toolSearch: { enabled: true, subjects: { groups: ['agents'] } } },
      },
    });
    tokens.ann = await idp.mint({ aud: RESOURCE, sub: 'ann', groups: ['agents', 'readers'] });
    tokens.al = await idp.mint({ aud: RESOURCE, sub: 'al', groups: ['agents'] });
    tokens.bob = await idp.mint({ aud: RESOURCE, sub: 'bob', groups: ['readers'] });
  });

  after(async () => {
    await gate?.stop();
    await files?.stop();
    await everything?.stop();
    await idp?.stop();
  });

  test('tool search finds what the caller may call and a session lists what it selects', async () => {
    const client = await connectAs('ann');
    const other = await connectAs('ann');
    const changed = [];
    const heard = new Promise((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve(changed.push(1))));
    let otherHeard = 0;
    other.setNotificationHandler(ToolListChangedNotificationSchema, () => (otherHeard += 1));
    try {
      // Listed: gate's two tools, nothing selected yet.
      const listed = await client.listTools();
      assert.deepEqual(names(listed.tools), ['gate_search_tools', 'gate_select_tools']);
      assert.ok(listed.tools[0].inputSchema.required.includes('query'));

      // Found by what it does, best first, as gate lists it; called by that name though unlisted.
      assert.equal((await search(client, 'echo back the input'))[0], 'every__echo');
      const echoed = await client.callTool({ name: 'every__echo', arguments: { message: 'hi' } });
      assert.match(JSON.stringify(echoed.content), /hi/);

      // The policy filters before the cut: only read_file of the files server is ann's.
      const fileTools = await search(client, 'file', 50);
      assert.ok(fileTools.includes('files__read_file'), fileTools.join());
      for (const refused of ['files__write_file', 'files__delete_file', 'files__exec', 'files__plain'])
        assert.ok(!fileTools.includes(refused), `${refused} is not ann's to call`);
      assert.deepEqual(await search(client, 'file', 1), ['files__read_file']);

      // A selection lists what was chosen, and names back what the caller may not call.
      const chosen = await client.callTool({ name: 'gate_select_tools', arguments: { names: ['every__echo', 'files__write_file', 'nope__x'] } });
      assert.ok(!chosen.isError, JSON.stringify(chosen.content));
      assert.deepEqual(chosen.structuredContent, { selected: ['every__echo'], unknown: ['files__write_file', 'nope__x'] });
      await heard;
      assert.deepEqual(names((await client.listTools()).tools), ['gate_search_tools', 'gate_select_tools', 'every__echo']);
      // The selection is the session's: ann's other session lists and heard nothing of it.
      assert.deepEqual(names((await other.listTools()).tools), ['gate_search_tools', 'gate_select_tools']);
      assert.equal(otherHeard, 0);
      // An empty selection lists none again.
      await client.callTool({ name: 'gate_select_tools', arguments: { names: [] } });
      assert.deepEqual(names((await client.listTools()).tools), ['gate_search_tools', 'gate_select_tools']);
    } finally {
      await client.close();
      await other.close();
    }
  });

  test('tool search is on only for the subjects it names', async () => {
    // al is an agent without the readers' grant: no file tool is found for him.
    const al = await connectAs('al');
    try {
      const found = await search(al, 'file', 50);
      assert.ok(!found.some((n) => n.startsWith('files__')), found.join());
    } finally {
      await al.close();
    }
    // bob is no agent: the federation's whole list, and gate's tools are no tools of his.
    const bob = await connectAs('bob');
    try {
      const all = names((await bob.listTools()).tools);
      assert.ok(all.includes('every__echo') && all.includes('files__read_file'), all.join());
      assert.ok(!all.includes('gate_search_tools'));
      const err = await expectMcpError(() => bob.callTool({ name: 'gate_search_tools', arguments: { query: 'echo' } }));
      assert.match(err.message, /gate_search_tools/);
    } finally {
      await bob.close();
    }
  });

  test('a 2026-07-28 client searches and calls what it found by its name', async () => {
    const ask = async (method, params) => {
      const { body, headers } = modernRequest(method, params);
      const res = await post(gate.url, body, { ...headers, ...auth('ann') });
      assert.equal(res.status, 200, res.text);
      return res.json.result;
    };
    assert.deepEqual(names((await ask('tools/list')).tools), ['gate_search_tools']);
    const found = await ask('tools/call', { name: 'gate_search_tools', arguments: { query: 'sum of two numbers' } });
    const name = found.structuredContent.tools[0].name;
    assert.equal(name, 'every__get-sum');
    const sum = await ask('tools/call', { name, arguments: { a: 2, b: 3 } });
    assert.match(JSON.stringify(sum.content), /5/);
    // No session keeps a selection: said, as a tool error the model can act on.
    const refused = await ask('tools/call', { name: 'gate_select_tools', arguments: { names: [name] } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /has none: call the tools gate_search_tools found by their names/);
  });

  test('hostile arguments get a tool error that says what was wrong, and change nothing', async () => {
    const client = await connectAs('ann');
    try {
      const bad = [
        [{ query: '' }, /non-empty string/],
        [{ query: 'x'.repeat(1025) }, /at most 1024/],
        [{ query: 'x', limit: 51 }, /limit must be an integer from 1 to 50/],
        [{ query: 'x', limit: 1.5 }, /limit must be an integer/],
        [{ query: 'x', extra: 1 }, /takes query and limit, not "extra"/],
      ];
      for (const [args, why] of bad) {
        const r = await client.callTool({ name: 'gate_search_tools', arguments: args });
        assert.equal(r.isError, true, JSON.stringify(args));
        assert.match(r.content[0].text, why);
      }
      const many = await client.callTool({ name: 'gate_select_tools', arguments: { names: Array.from({ length: 257 }, (_, i) => `every__t${i}`) } });
      assert.equal(many.isError, true);
      assert.match(many.content[0].text, /at most 256/);
      // Control characters, quotes and non-ASCII in a query find nothing and break nothing.
      const odd = await search(client, '\u0000\u001b[31m"\\\n\u00e9\u{1F600} echo');
      assert.equal(odd[0], 'every__echo');
      assert.deepEqual(names((await client.listTools()).tools), ['gate_search_tools', 'gate_select_tools']);
    } finally {
      await client.close();
    }
  });
});
