// A federation of many small upstreams (issue 50's table): N upstreams of T tools each, served
// by one Node process on 127.0.0.1 (one listener, a path per upstream, a minimal MCP server over
// JSON responses: initialize, tools/list, tools/call, no sessions, no GET stream), all behind
// one gate. Measures, for a fresh SDK client: the first full tools/list (every page), a warm
// one, gate's resident memory after them, and the first call to an upstream no call has
// reached yet (then a second call to it, then the first to another upstream), and new
// sessions' first calls after that. Prints one JSON line.
//   GATE_BIN=<gate> <node22> simulations/bench_federation.mjs [upstreams] [tools]
//   (from the repository root; default 1000 upstreams of 10 tools)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { connectClient, startGate } from '../tests/js/lib/index.mjs';

const upstreams = Number(process.argv[2] ?? 1000);
const toolsEach = Number(process.argv[3] ?? 10);

const toolsOf = (u) =>
  Array.from({ length: toolsEach }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool ${i} of upstream ${u}: does its one thing with the input it is given.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  }));

const listener = createServer((req, res) => {
  const u = Number(req.url.split('/')[2]);
  if (req.method !== 'POST') {
    res.writeHead(405).end();
    return;
  }
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const msg = JSON.parse(Buffer.concat(chunks).toString() || '{}');
    if (msg.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    let result;
    if (msg.method === 'initialize')
      result = { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: `u${u}`, version: '1.0.0' } };
    else if (msg.method === 'tools/list') result = { tools: toolsOf(u) };
    else if (msg.method === 'tools/call') result = { content: [{ type: 'text', text: `u${u} ${msg.params.name}` }] };
    else result = {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
});
await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${listener.address().port}`;

const config = {
  upstreams: Array.from({ length: upstreams }, (_, u) => ({ id: `u${u}`, url: `${base}/u/${u}/mcp`, namespace: `u${u}` })),
};
const gate = await startGate({ config });
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gate.proc.pid}/status`, 'utf8'))[1]) / 1024;
const rssStarted = rssMiB();

const client = await connectClient(gate.url);
const fullList = async () => {
  const t0 = performance.now();
  let cursor;
  let pages = 0;
  let tools = 0;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    pages += 1;
    tools += page.tools.length;
    cursor = page.nextCursor;
  } while (cursor);
  return { ms: Math.round(performance.now() - t0), pages, tools };
};
const first = await fullList();
const warm = await fullList();
const rssListed = rssMiB();
const timed = async (c, name) => {
  const t0 = performance.now();
  await c.callTool({ name, arguments: { text: 'x' } });
  return Math.round((performance.now() - t0) * 10) / 10;
};
const callMs = (name) => timed(client, name);
const target = `u${Math.floor(upstreams / 2)}__tool_3`;
const firstCall = await callMs(target);
const secondCall = await callMs(target);
// Another upstream no call has reached: is the first call's cost the upstream's or the session's?
const otherFirstCall = await callMs(`u${Math.floor(upstreams / 3)}__tool_1`);
await client.close();
// New sessions after that, listing first or not: each one's first call to an upstream no call
// has reached yet (its handshake included), then a call to another.
const laterSessions = [];
for (const [i, listFirst] of [false, true, false].entries()) {
  const c = await connectClient(gate.url);
  if (listFirst) await c.listTools();
  laterSessions.push({ listFirst, firstCallMs: await timed(c, `u${7 + 2 * i}__tool_2`), nextCallMs: await timed(c, `u${8 + 2 * i}__tool_2`) });
  await c.close();
}
await gate.stop();
listener.close();
console.log(
  JSON.stringify({
    upstreams,
    toolsEach,
    firstList: first,
    warmList: warm,
    rssStartedMiB: Math.round(rssStarted),
    rssListedMiB: Math.round(rssListed),
    firstCallMs: firstCall,
    secondCallMs: secondCall,
    otherUpstreamFirstCallMs: otherFirstCall,
    laterSessions,
  }),
);
