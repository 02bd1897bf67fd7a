// Upstreams' icons through a federation (docs/security.md, Icons): a real SDK server lists
// tools, prompts, resources and templates with icons on its own origin (PNG bytes it serves
// itself), on another origin, as data:, as SVG, oversized, behind a redirect, and hostile
// srcs; its serverInfo has an icon. Through the real gate binary and a real SDK client: the
// icons on the upstream's origin come back as gate's URLs and gate serves the upstream's
// bytes without any credential (gate holds a static bearer for the upstream, the client sends
// its own headers), the others are left out and counted, SVG, oversized and redirected icons
// are refused (502), unknown and hostile paths are 404, and /api/federation shows the
// upstream's own identity.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

import { connectClient, get, metric, startGate } from './lib/index.mjs';

// A real 1x1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const BIG = Buffer.concat([PNG, Buffer.alloc(300 * 1024, 1)]);
const DATA_ICON = `data:image/png;base64,${PNG.toString('base64')}`;
const SECRET = 'upstream-s3cret';

// The fixture: MCP on /mcp (a fresh low-level SDK Server per request, stateless), its icons
// on the same origin; every request's path and headers recorded.
async function startIconServer() {
  const seen = [];
  let base = '';
  const icons = () => {
    const own = (p) => `${base}${p}`;
    return [
      { src: own('/icon.png'), mimeType: 'image/png', sizes: ['16x16'], theme: 'light' },
      { src: own('/icon.png').replace('127.0.0.1', 'localhost') }, // another origin, same server
      { src: DATA_ICON },
      { src: own('/logo.svg'), mimeType: 'image/svg+xml' },
      { src: own('/big.png') },
      { src: own('/moved.png') },
      { src: `${base}/a\r\nX-Injected: 1` },
      { src: own(`/${'l'.repeat(5000)}.png`) },
      { src: 'javascript:alert(1)' },
      { src: 'file:///etc/passwd' },
    ];
  };
  const serverInfo = () => ({
    name: 'icon-fixture',
    title: 'Icon Fixture',
    version: '1.2.3',
    websiteUrl: 'https://example.com/icons',
    icons: [{ src: `${base}/icon.png?server=1`, mimeType: 'image/png' }, { src: 'https://elsewhere.example/x.png' }],
  });
  const httpServer = http.createServer(async (req, res) => {
    seen.push({ path: req.url, method: req.method, headers: { ...req.headers } });
    if (req.url.startsWith('/mcp')) {
      const server = new Server(serverInfo(), { capabilities: { tools: {}, prompts: {}, resources: {} } });
      server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: 't1', inputSchema: { type: 'object' }, icons: icons() }] }));
      // A call's resource link names its icon as list items do.
      server.setRequestHandler(CallToolRequestSchema, async () => ({
        content: [{ type: 'resource_link', uri: 'file:///linked', name: 'linked', icons: [{ src: `${base}/icon.png?link=1` }, { src: 'https://elsewhere.example/l.png' }] }],
      }));
      server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [{ name: 'p1', icons: [{ src: `${base}/icon.png` }] }] }));
      // A prompt's messages may hold resource links too; one without icons stays as it is.
      server.setRequestHandler(GetPromptRequestSchema, async () => ({
        messages: [
          { role: 'user', content: { type: 'text', text: 'see the links' } },
          { role: 'user', content: { type: 'resource_link', uri: 'file:///p', name: 'p', icons: [{ src: `${base}/icon.png?prompt=1` }, { src: 'https://elsewhere.example/p.png' }] } },
          { role: 'user', content: { type: 'resource_link', uri: 'file:///q', name: 'q' } },
        ],
      }));
      server.setRequestHandler(ListResourcesRequestSchema, async () => ({
        resources: [{ uri: 'file:///r1', name: 'r1', icons: [{ src: `${base}/icon.png?r=1` }, { src: 'http://10.0.0.1/x.png' }] }],
      }));
      server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
        resourceTemplates: [{ uriTemplate: 'file:///t/{x}', name: 't', icons: [{ src: `${base}/icon.png?t=1` }] }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        transport.close();
        server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res);
      return;
    }
    const path = req.url.split('?')[0];
    const body = { '/icon.png': PNG, '/logo.svg': SVG, '/big.png': BIG }[path];
    if (path === '/moved.png') {
      res.writeHead(302, { location: '/icon.png' }).end();
    } else if (body) {
      res.writeHead(200, { 'content-type': path.endsWith('.svg') ? 'image/svg+xml' : 'image/png' }).end(body);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${httpServer.address().port}`;
  return {
    base,
    url: `${base}/mcp`,
    seen,
    stop: () =>
      new Promise((r) => {
        httpServer.closeAllConnections?.();
        httpServer.close(() => r());
      }),
  };
}

// A GET whose path is sent exactly as written (fetch and URL would resolve dot segments).
function rawGet(base, path) {
  const u = new URL(base);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, path, method: 'GET', agent: false }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    req.end();
  });
}

const GATE_ORIGIN = 'https://gw.example'; // auth.resource's origin: the URLs gate writes

describe('icons through gate', { timeout: 60_000 }, () => {
  let upstream;
  let gate;
  const onGate = (src) => `${gate.base}${new URL(src).pathname}`;
  // What reached the upstream other than MCP (gate's own list and health requests), from `at`.
  const iconHits = (at) => upstream.seen.slice(at).filter((r) => !r.path.startsWith('/mcp'));
  /** The src gate lists for the first tool's first icon. */
  const listedSrc = async () => {
    const client = await connectClient(gate.url);
    try {
      return (await client.listTools()).tools[0].icons[0].src;
    } finally {
      await client.close();
    }
  };
  // The icon fixture behind namespace `art`, its credential static; gate's origin from auth.resource.
  const artConfig = () => ({
    upstreams: [{ id: 'art', url: upstream.url, namespace: 'art', auth: { strategy: 'static', secretRef: 'ICON_UP_SECRET' } }],
    auth: { mode: 'disabled', resource: `${GATE_ORIGIN}/mcp` },
  });

  before(async () => {
    upstream = await startIconServer();
    gate = await startGate({ config: { ...artConfig(), server: { introspection: { enabled: true } } }, env: { ICON_UP_SECRET: SECRET } });
  });

  after(async () => {
    await gate?.stop();
    await upstream?.stop();
  });

  test('icons on the upstream origin are gate URLs serving the upstream bytes, fetched without credentials', async () => {
    const client = await connectClient(gate.url);
    let tool;
    try {
      [tool] = (await client.listTools()).tools;
    } finally {
      await client.close();
    }
    assert.equal(tool.name, 'art__t1');
    const srcs = tool.icons.map((i) => i.src);
    // Kept in order: own PNG (rewritten), data:, own SVG, own oversized, own redirect
    // (rewritten, refused when fetched); left out: the other origin, CRLF, too long,
    // javascript:, file:.
    assert.equal(srcs.length, 5, JSON.stringify(srcs));
    assert.equal(srcs[1], DATA_ICON);
    for (const i of [0, 2, 3, 4]) assert.match(srcs[i], /^https:\/\/gw\.example\/icons\/art\/[0-9a-f]{32}$/);
    assert.equal(new Set(srcs).size, 5);
    assert.deepEqual(tool.icons[0], { src: srcs[0], mimeType: 'image/png', sizes: ['16x16'], theme: 'light' });
    assert.ok(!JSON.stringify(tool.icons).includes('localhost'));

    // Sent from the upstream's own identity: the MCP requests carried gate's credential.
    assert.ok(upstream.seen.some((r) => r.path.startsWith('/mcp') && r.headers.authorization === `Bearer ${SECRET}`));
    const before = upstream.seen.length;
    const res = await fetch(onGate(srcs[0]), { headers: { authorization: 'Bearer client-token', cookie: 'session=client' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'image/png');
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('content-security-policy'), "default-src 'none'");
    assert.match(res.headers.get('cache-control'), /^max-age=\d+$/);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
    const fetches = iconHits(before);
    assert.deepEqual(fetches.map((r) => r.path), ['/icon.png']);
    for (const h of ['authorization', 'cookie', 'mcp-session-id', 'proxy-authorization'])
      assert.equal(fetches[0].headers[h], undefined, h);
    // Cached: a second GET does not reach the upstream.
    assert.equal((await get(onGate(srcs[0]))).status, 200);
    assert.equal(iconHits(before).length, 1);

    // SVG, oversized and redirected icons are refused with a reason; the redirect not followed.
    const svg = await get(onGate(srcs[2]));
    assert.equal(svg.status, 502);
    assert.match(svg.text, /not PNG, JPEG, GIF or WebP.*SVG/);
    const big = await get(onGate(srcs[3]));
    assert.equal(big.status, 502);
    assert.match(big.text, /more than 262144 bytes/);
    const at = upstream.seen.length;
    const moved = await get(onGate(srcs[4]));
    assert.equal(moved.status, 502);
    assert.match(moved.text, /HTTP 302 \(gate follows no redirect\)/);
    assert.deepEqual(iconHits(at).map((r) => r.path), ['/moved.png']);
    // /icons/ needs no token: its refusals say what was wrong, never where the upstream is
    // (its address stays in gate's log).
    const upstreamAt = new URL(upstream.url).host;
    for (const r of [svg, big, moved]) {
      assert.ok(!r.text.includes(upstreamAt), `the upstream's address is not told: ${r.text}`);
      assert.doesNotMatch(r.text, /\/(big|moved|icon)\.(png|svg)/);
    }
    assert.ok(gate.stderrLines.some((l) => l.includes(upstreamAt) && /262144 bytes/.test(l)), 'the log names it');

    const text = (await get(`${gate.base}/metrics`)).text;
    assert.ok(metric(text, 'gate_icons_dropped_total', { upstream: 'art', reason: 'other_origin' }) >= 1);
    assert.ok(metric(text, 'gate_icons_dropped_total', { upstream: 'art', reason: 'malformed' }) >= 2);
    assert.ok(metric(text, 'gate_icons_dropped_total', { upstream: 'art', reason: 'scheme' }) >= 2);
    assert.ok(gate.stderrLines.some((l) => /upstream art: \d+ icon\(s\) left out of tools\/list/.test(l)));
    assert.ok(!gate.stderrLines.some((l) => l.includes('X-Injected: 1')), 'no raw CRLF src in the log');
  });

  test('prompts, resources and templates carry gate URLs too', async () => {
    const client = await connectClient(gate.url);
    try {
      const [prompt] = (await client.listPrompts()).prompts;
      const [resource] = (await client.listResources()).resources;
      const [template] = (await client.listResourceTemplates()).resourceTemplates;
      for (const item of [prompt, resource, template]) {
        assert.equal(item.icons.length, 1, JSON.stringify(item));
        assert.match(item.icons[0].src, /^https:\/\/gw\.example\/icons\/art\/[0-9a-f]{32}$/);
        const res = await fetch(onGate(item.icons[0].src));
        assert.equal(res.status, 200);
        assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
      }
    } finally {
      await client.close();
    }
  });

  test('a call\'s resource link carries its icon from gate too', async () => {
    const client = await connectClient(gate.url);
    try {
      const result = await client.callTool({ name: 'art__t1', arguments: {} });
      const [link] = result.content;
      assert.equal(link.type, 'resource_link', JSON.stringify(result));
      assert.equal(link.icons.length, 1, JSON.stringify(link)); // the other origin's left out
      assert.match(link.icons[0].src, /^https:\/\/gw\.example\/icons\/art\/[0-9a-f]{32}$/);
      const res = await fetch(onGate(link.icons[0].src));
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
    } finally {
      await client.close();
    }
  });

  test("a prompt's resource links carry their icons from gate too", async () => {
    const client = await connectClient(gate.url);
    try {
      const { messages } = await client.getPrompt({ name: 'art__p1' });
      assert.deepEqual(messages[0].content, { type: 'text', text: 'see the links' });
      const link = messages[1].content;
      assert.equal(link.icons.length, 1, JSON.stringify(link)); // the other origin's left out
      assert.match(link.icons[0].src, /^https:\/\/gw\.example\/icons\/art\/[0-9a-f]{32}$/);
      const res = await fetch(onGate(link.icons[0].src));
      assert.equal(res.status, 200);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
      assert.deepEqual(messages[2].content, { type: 'resource_link', uri: 'file:///q', name: 'q' });
    } finally {
      await client.close();
    }
  });

  test('another instance that never listed the upstream serves its icons, learning them once', async (t) => {
    const src = await listedSrc();
    // The same configuration: a second instance of a fleet, or this one after a restart.
    const second = await startGate({ config: artConfig(), env: { ICON_UP_SECRET: SECRET } });
    t.after(() => second.stop());
    const onSecond = (u) => `${second.base}${new URL(u).pathname}`;
    const res = await fetch(onSecond(src));
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
    // A digest it cannot learn is 404, and asking for more of them lists nothing again.
    const mcpBefore = upstream.seen.filter((r) => r.path.startsWith('/mcp')).length;
    for (let i = 0; i < 5; i++) {
      const miss = await fetch(`${second.base}/icons/art/${String(i).repeat(32)}`);
      assert.equal(miss.status, 404);
      await miss.arrayBuffer();
    }
    assert.equal(upstream.seen.filter((r) => r.path.startsWith('/mcp')).length, mcpBefore, 'learnt at most once per interval');
  });

  test('unknown and hostile icon paths are 404, and nothing is fetched for them', async () => {
    const src = await listedSrc();
    const digest = new URL(src).pathname.split('/').pop();
    const at = upstream.seen.length;
    for (const path of [
      `/icons/art/${'0'.repeat(32)}`,
      `/icons/nope/${digest}`,
      `/icons/art/../art/${digest}`,
      `/icons/%2e%2e/art/${digest}`,
      `/icons/%2E%2E/${digest}`,
      `/icons/art%2F..%2Fx/${digest}`,
      `/icons/art/${digest}/..`,
      `/icons/art/${digest.toUpperCase()}`,
      `/icons/art/${digest}%0d%0aX:1`,
      `/icons/${'a'.repeat(1000)}/${digest}`,
      '/icons/',
    ]) {
      const r = await rawGet(gate.base, path);
      assert.equal(r.status, 404, path);
    }
    assert.deepEqual(iconHits(at), [], 'no fetch for a path gate did not write');
    assert.equal((await rawGet(gate.base, new URL(src).pathname)).status, 200);
  });

  test('/api/federation shows the upstream identity from its handshake', async () => {
    const view = JSON.parse((await get(`${gate.base}/api/federation`)).text);
    const [art] = view.upstreams;
    assert.equal(art.id, 'art');
    const { icons, ...rest } = art.server;
    assert.deepEqual(rest, {
      name: 'icon-fixture',
      title: 'Icon Fixture',
      version: '1.2.3',
      websiteUrl: 'https://example.com/icons',
      protocolVersion: '2025-11-25',
    });
    assert.equal(icons.length, 1, 'the other origin left out');
    assert.match(icons[0].src, /^https:\/\/gw\.example\/icons\/art\/[0-9a-f]{32}$/);
    const at = upstream.seen.length;
    const res = await fetch(onGate(icons[0].src));
    assert.equal(res.status, 200);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), PNG);
    const [hit] = iconHits(at);
    assert.equal(hit.path, '/icon.png?server=1');
    assert.equal(hit.headers.authorization, undefined);
  });
});
