// A federation of many small upstreams (issue 50's table): N upstreams of T tools each, served
// by one Node process on 127.0.0.1 (one listener, a path per upstream, a minimal MCP server over
// JSON responses: initialize, tools/list, tools/call, no sessions, no GET stream), all behind
// one gate. Measures, for a fresh SDK client: the first full tools/list (every page), a warm
// one, gate's resident memory after them, and the first call to an upstream no call has
// reached yet (then a second call to it, then the first to another upstream), and new
// sessions' first calls after that. Prints one JSON line.
// Then times initialize on fresh sessions (gate composes its answer from the configuration;
// with GATE_BENCH_INSTRUCTIONS=1 each upstream gives instructions and gate composes them under
// server.instructions.fromUpstreams).
//   GATE_BIN=<gate> [GATE_BENCH_PAGE_SIZE=n] <node22> simulations/bench_federation.mjs [upstreams] [tools]
//   (from the repository root; default 1000 upstreams of 10 tools)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { connectClient, openRawSession, post, startGate } from '../tests/js/lib/index.mjs';

const upstreams = Number(process.argv[2] ?? 1000);
const toolsEach = Number(process.argv[3] ?? 10);
const withInstructions = process.env.GATE_BENCH_INSTRUCTIONS === '1';

const toolsOf = (u) =>
  Array.from({ length: toolsEach }, (_, i) => ({
    name: `tool_${i}`,
    description: `Tool ${i} of upstream ${u}: does its one thing with the input it is given.`,
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  }));

// The reference for a warm list: one server that holds the whole federated list in memory
// (every tool under its namespaced name) and serves it in gate's pages, at /paged/mcp.
const pageSize = Number(process.env.GATE_BENCH_PAGE_SIZE ?? 200);
let allTools;
const pagedList = (cursor) => {
  allTools ??= Array.from({ length: upstreams }, (_, u) => toolsOf(u).map((t) => ({ ...t, name: `u${u}__${t.name}` }))).flat();
  const start = Number(cursor ?? 0);
  const end = pageSize > 0 ? Math.min(start + pageSize, allTools.length) : allTools.length;
  return { tools: allTools.slice(start, end), ...(end < allTools.length ? { nextCursor: String(end) } : {}) };
};

const listener = createServer((req, res) => {
  const paged = req.url.startsWith('/paged/');
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
      result = {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: `u${u}`, version: '1.0.0' },
        ...(withInstructions ? { instructions: `Upstream ${u} does its one thing; call its tools with short text.` } : {}),
      };
    else if (msg.method === 'tools/list') result = paged ? pagedList(msg.params?.cursor) : { tools: toolsOf(u) };
    else if (msg.method === 'tools/call') result = { content: [{ type: 'text', text: `u${u} ${msg.params.name}` }] };
    else result = {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
});
await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${listener.address().port}`;

const config = {
  // GATE_BENCH_PAGE_SIZE: routing.pageSize (default gate's 200; -1 serves one page).
  ...(process.env.GATE_BENCH_PAGE_SIZE ? { routing: { pageSize: Number(process.env.GATE_BENCH_PAGE_SIZE) } } : {}),
  upstreams: Array.from({ length: upstreams }, (_, u) => ({ id: `u${u}`, url: `${base}/u/${u}/mcp`, namespace: `u${u}` })),
  ...(withInstructions ? { server: { instructions: { text: 'A federation for the benchmark.', fromUpstreams: true } } } : {}),
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
// The warm list without the SDK client's own work (its schema checks of 10,000 tools): what
// gate spends, read as raw JSON-RPC over HTTP.
const rawWarmList = async (url = gate.url) => {
  const raw = await openRawSession(url);
  const t0 = performance.now();
  let cursor;
  let id = 1;
  do {
    const res = await post(url, { jsonrpc: '2.0', id: id++, method: 'tools/list', params: cursor ? { cursor } : {} }, raw.headers);
    cursor = res.json.result.nextCursor;
  } while (cursor);
  return Math.round(performance.now() - t0);
};
const warmRawMs = await rawWarmList();
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
  laterSessions.push({ listFirst, firstCallMs: await timed(c, `u${(7 + 2 * i) % upstreams}__tool_2`), nextCallMs: await timed(c, `u${(8 + 2 * i) % upstreams}__tool_2`) });
  await c.close();
}
// initialize on fresh sessions, one at a time (last: the sessions stay open): the answer gate
// composes for each.
const initializeUs = [];
for (let i = 0; i < 300; i++) {
  const t0 = performance.now();
  await post(gate.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } });
  initializeUs.push((performance.now() - t0) * 1000);
}
initializeUs.sort((a, b) => a - b);
const initialize = { p50Us: Math.round(initializeUs[150]), p90Us: Math.round(initializeUs[270]) };
await gate.stop();
// The direct path, for reference: this process asks every upstream itself, all at once, as a
// client of each would (a handshake, then its list), through the same event loop that serves
// them. No gateway can list them first faster than they answer.
const direct = async (handshake) => {
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: upstreams }, async (_, u) => {
      const url = `${base}/u/${u}/mcp`;
      const headers = handshake ? (await openRawSession(url)).headers : {};
      await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, headers);
    }),
  );
  return Math.round(performance.now() - t0);
};
const directFirstListMs = await direct(true);
const directWarmRawMs = await rawWarmList(`${base}/paged/mcp`);
const directListsOnlyMs = await direct(false);
listener.close();
console.log(
  JSON.stringify({
    upstreams,
    toolsEach,
    firstList: first,
    warmList: warm,
    warmRawMs,
    directWarmRawMs,
    directFirstListMs,
    directListsOnlyMs,
    rssStartedMiB: Math.round(rssStarted),
    rssListedMiB: Math.round(rssListed),
    firstCallMs: firstCall,
    secondCallMs: secondCall,
    otherUpstreamFirstCallMs: otherFirstCall,
    initialize,
    laterSessions,
  }),
);
