// Mcp-Param-* headers (2026-07-28, SEP-2243) through gate, against a real v2 SDK server that
// checks them (lib/param-server.mjs): gate drops a tool whose x-mcp-header breaks the rules,
// writes the headers a tool asks for on its calls (learning the tools first when it never
// listed them), forwards a client's headers it does not write, and refuses a 2026-07-28
// client's headers that contradict the body before anything reaches the upstream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

import { closeRawSession, eventually, openRawSession, post, rpc, startGate, startParamServer } from './lib/index.mjs';

const MODERN = '2026-07-28';

describe('Mcp-Param-* headers through gate', { timeout: 120_000 }, () => {
  let upstream;
  let gate;

  const calls = () => upstream.requests.filter((r) => r.body.method === 'tools/call');
  const lastCall = () => calls().at(-1);
  /** A 2026-07-28 tools/call posted as is, with `headers` added. */
  const modernCall = (name, args, headers = {}) =>
    post(
      gate.url,
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: {
          name,
          arguments: args,
          _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': {} },
        },
      },
      { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/call', 'mcp-name': name, ...headers },
    );

  before(async () => {
    upstream = await startParamServer();
    gate = await startGate({ config: { upstreams: [{ id: 'params', url: upstream.url, namespace: 'p', protocol: MODERN }] } });
  });

  after(async () => {
    await gate?.stop();
    await upstream?.stop();
  });

  test('a call gate never listed the tool for is sent again with the headers the upstream asked for', async () => {
    // Nothing listed yet: gate does not know of x-mcp-header, the upstream answers -32020,
    // gate learns the tools (as the revision tells a client) and sends once more.
    const session = await openRawSession(gate.url);
    try {
      const r = await post(gate.url, rpc('tools/call', { name: 'p__regional', arguments: { region: 'eu-west', count: 3 } }), session.headers);
      assert.deepEqual(r.json.result?.content, [{ type: 'text', text: 'region=eu-west count=3 id=undefined' }], JSON.stringify(r.json));
      // The call's own requests: gate's upkeep on its root session (server/discover, the
      // subscriptions/listen its publication sends on its own) races them to the upstream.
      const methods = upstream.requests.map((x) => x.body.method).filter((m) => m === 'tools/call' || m === 'tools/list');
      assert.deepEqual(methods.slice(-3), ['tools/call', 'tools/list', 'tools/call']);
      assert.equal(lastCall().headers['mcp-param-region'], 'eu-west');
      assert.equal(lastCall().headers['mcp-param-count'], '3');
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  test('an invalid x-mcp-header drops the tool from every list, with a log line; valid ones keep their schema', async () => {
    const session = await openRawSession(gate.url);
    try {
      const r = await post(gate.url, rpc('tools/list', {}), session.headers);
      const names = r.json.result.tools.map((t) => t.name).sort();
      assert.deepEqual(names, ['p__plain', 'p__regional']);
      const regional = r.json.result.tools.find((t) => t.name === 'p__regional');
      assert.equal(regional.inputSchema.properties.region['x-mcp-header'], 'Region');
      // A call of the dropped tool says why and is not sent.
      const sent = calls().length;
      const broken = await post(gate.url, rpc('tools/call', { name: 'p__broken', arguments: {} }), session.headers);
      assert.equal(broken.json.error?.code, -32602, JSON.stringify(broken.json));
      assert.match(broken.json.error.message, /^tool "p__broken" is left out of the lists and not called: its x-mcp-header definition is invalid \(x-mcp-header is allowed only on a property reached from the root/);
      assert.equal(calls().length, sent);
    } finally {
      await closeRawSession(gate.url, session);
    }
    assert.ok(
      gate.stderrLines.some((l) => /upstream params: tool broken dropped from tools\/list: x-mcp-header is allowed only on a property reached from the root/.test(l)),
      'the drop is logged with its reason',
    );
  });

  test("a session's calls carry the headers, encoded as the revision says, and the SDK server takes them", async () => {
    const session = await openRawSession(gate.url);
    try {
      const cases = [
        [{ region: 'Zürich', target: { id: 7 } }, { 'mcp-param-region': '=?base64?WsO8cmljaA==?=', 'mcp-param-targetid': '7' }, 'region=Zürich count=undefined id=7'],
        [{ region: ' padded ', count: 0 }, { 'mcp-param-region': '=?base64?IHBhZGRlZCA=?=', 'mcp-param-count': '0' }, 'region= padded  count=0 id=undefined'],
        [{ region: 'us west 1' }, { 'mcp-param-region': 'us west 1' }, 'region=us west 1 count=undefined id=undefined'],
      ];
      for (const [args, headers, text] of cases) {
        const r = await post(gate.url, rpc('tools/call', { name: 'p__regional', arguments: args }), session.headers);
        assert.deepEqual(r.json.result?.content, [{ type: 'text', text }], JSON.stringify(r.json));
        for (const [h, v] of Object.entries(headers)) assert.equal(lastCall().headers[h], v, h);
        assert.equal(lastCall().headers['mcp-param-count'] !== undefined, args.count !== undefined, 'an absent argument has no header');
      }
    } finally {
      await closeRawSession(gate.url, session);
    }
  });

  test('a real 2026-07-28 SDK client writes its headers; gate checks them and the call goes through', async () => {
    const client = new Client({ name: 'param-client', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode: 'auto' } });
    await client.connect(new StreamableHTTPClientTransport(new URL(gate.url)));
    try {
      assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
      const { tools } = await client.listTools();
      assert.ok(!tools.some((t) => t.name === 'p__broken'));
      const r = await client.callTool({ name: 'p__regional', arguments: { region: 'ap-south', count: 12 } });
      assert.deepEqual(r.content, [{ type: 'text', text: 'region=ap-south count=12 id=undefined' }]);
      assert.equal(lastCall().headers['mcp-param-region'], 'ap-south');
    } finally {
      await client.close();
    }
  });

  test("a 2026-07-28 client's headers that contradict its body are 400 / -32020, and nothing reaches the upstream", async () => {
    const before = calls().length;
    const cases = [
      [{ region: 'eu-west' }, { 'mcp-param-region': 'us-east' }, /Mcp-Param-Region header value 'us-east' does not match body value 'eu-west'/],
      [{ region: 'eu-west' }, {}, /Mcp-Param-Region header is absent but arguments.region is in the body/],
      [{ region: 'eu-west', count: 2 }, { 'mcp-param-region': 'eu-west', 'mcp-param-count': '3' }, /Mcp-Param-Count header value '3' does not match body value '2'/],
      [{ region: 'eu-west' }, { 'mcp-param-region': 'eu-west', 'mcp-param-count': '1' }, /Mcp-Param-Count header is sent but arguments.count is absent/],
      [{ region: 'Zürich' }, { 'mcp-param-region': '=?base64?@@@@?=' }, /invalid characters or encoding/],
    ];
    for (const [args, headers, message] of cases) {
      const r = await modernCall('p__regional', args, headers);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.error.code, -32020);
      assert.match(r.json.error.message, message);
    }
    assert.equal(calls().length, before, 'refused before the upstream');
    // Numbers compare as numbers; names without regard to case.
    const ok = await modernCall('p__regional', { region: 'eu-west', count: 2 }, { 'MCP-PARAM-REGION': 'eu-west', 'mcp-param-count': '2.0' });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(ok.json.result.content, [{ type: 'text', text: 'region=eu-west count=2 id=undefined' }]);
  });

  test("a client's Mcp-Param-* header gate does not know is forwarded as sent", async () => {
    const r = await modernCall('p__plain', { text: 'hi' }, { 'mcp-param-tenant': 'blue' });
    assert.equal(r.status, 200, r.text);
    assert.equal(lastCall().headers['mcp-param-tenant'], 'blue');
    assert.equal(lastCall().headers['mcp-name'], 'plain', "the upstream's own name");
  });
});
