// gate's memory per downstream session (issue 50: 10,000 sessions' memory): one gate in front
// of two small upstreams (one Node process, as bench_federation.mjs starts them), then N raw
// sessions opened (initialize and its notification), then a call on each (each call opens the
// session's bridged session at its upstream). gate's VmRSS is read after each step. Prints one
// JSON line: the RSS at each step and the KiB each session adds.
//   GATE_BIN=<gate> <node22> simulations/bench_sessions_memory.mjs [sessions]
//   (from the repository root; default 10,000)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

import { openRawSession, post, startGate } from '../tests/js/lib/index.mjs';

const sessions = Number(process.argv[2] ?? 10000);

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
    let result = {};
    if (msg.method === 'initialize')
      result = { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: `u${u}`, version: '1.0.0' } };
    else if (msg.method === 'tools/list') result = { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    else if (msg.method === 'tools/call') result = { content: [{ type: 'text', text: 'ok' }] };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, result }));
  });
});
await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${listener.address().port}`;

const gate = await startGate({
  config: {
    server: { sessions: { max: sessions, perPrincipal: sessions } },
    upstreams: [0, 1].map((u) => ({ id: `u${u}`, url: `${base}/u/${u}/mcp`, namespace: `u${u}` })),
  },
});
const rssMiB = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${gate.proc.pid}/status`, 'utf8'))[1]) / 1024;
const settle = () => new Promise((resolve) => setTimeout(resolve, 500));

await settle();
const started = rssMiB();
const opened = [];
// 64 at a time: the driver's own sockets stay few.
for (let i = 0; i < sessions; i += 64)
  opened.push(...(await Promise.all(Array.from({ length: Math.min(64, sessions - i) }, () => openRawSession(gate.url)))));
await settle();
const withSessions = rssMiB();
let id = 10;
for (let i = 0; i < opened.length; i += 64)
  await Promise.all(
    opened.slice(i, i + 64).map((s, k) => post(gate.url, { jsonrpc: '2.0', id: id++, method: 'tools/call', params: { name: `u${(i + k) % 2}__echo`, arguments: {} } }, s.headers)),
  );
await settle();
const withCalls = rssMiB();
await gate.stop();
listener.close();
const kib = (mib) => Math.round(((mib * 1024) / sessions) * 10) / 10;
console.log(
  JSON.stringify({
    sessions,
    rssStartedMiB: Math.round(started),
    rssSessionsMiB: Math.round(withSessions),
    rssCalledMiB: Math.round(withCalls),
    kibPerSession: kib(withSessions - started),
    kibPerSessionCalled: kib(withCalls - started),
  }),
);
