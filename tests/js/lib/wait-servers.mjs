// Two upstreams with a slow tool, one per era, that tell a test whether a call was cancelled
// and how (docs/protocol-eras.md, "Cancellation"):
//   wait {ms} -> "waited <ms> ms" after `ms`, unless cancelled first.
//   ask-then-wait {ms} (2025-11-25 server only) -> elicits {go} from the client, reports
//     progress 1/2 on the call's token, then waits like `wait` (the elicited answer is in
//     `events` as { outcome: 'answered', content }).
// startClassicWaitServer: the 2025-11-25 SDK (@modelcontextprotocol/sdk), sessions on streamable
//   HTTP; a `notifications/cancelled` naming the call's id aborts it (the SDK's own handling):
//   `events` gets { outcome: 'cancelled', reason, requestId }, or { outcome: 'finished' }.
// startModernWaitServer: the 2026-07-28 SDK (@modelcontextprotocol/server), stateless; the
//   revision's cancellation is the closing of the call's HTTP response: `events` gets
//   { outcome: 'closed', id, name, ms } when a POST's response was closed before it was written whole.
// Both on 127.0.0.1 and a port the kernel picks; `methods` lists every JSON-RPC method received.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { Readable } from 'node:stream';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer as ClassicServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { McpServer as ModernServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

function listening(httpServer, extra) {
  return new Promise((resolve) =>
    httpServer.listen(0, '127.0.0.1', () => {
      const { port } = httpServer.address();
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        ...extra,
        stop: () =>
          new Promise((done) => {
            httpServer.closeAllConnections();
            httpServer.close(done);
          }),
      });
    }),
  );
}

async function readBody(req) {
  const chunks = [];
  for await (const c of req) chunks.push(c);
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits `ms` unless the SDK aborts the call first (its `notifications/cancelled`); says which in `events`. */
async function waitOrCancel(ms, extra, events) {
  const cancelled = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms).unref();
    extra.signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  events.push(cancelled ? { outcome: 'cancelled', reason: String(extra.signal.reason ?? ''), requestId: extra.requestId } : { outcome: 'finished' });
}

export async function startClassicWaitServer() {
  const events = [];
  const methods = [];
  const transports = new Map();
  const makeServer = () => {
    const server = new ClassicServer({ name: 'gate-test-classic-wait', version: '0.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('wait', { description: 'waits', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      await waitOrCancel(ms, extra, events);
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    });
    server.registerTool('ask-then-wait', { description: 'asks, reports progress, waits', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
      const answer = await extra.sendRequest(
        { method: 'elicitation/create', params: { message: 'go on?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } } } },
        ElicitResultSchema,
      );
      events.push({ outcome: 'answered', content: answer.content });
      const progressToken = extra._meta?.progressToken;
      if (progressToken !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken, progress: 1, total: 2 } });
      await waitOrCancel(ms, extra, events);
      return { content: [{ type: 'text', text: `asked, then waited ${ms} ms` }] };
    });
    return server;
  };
  const httpServer = http.createServer(async (req, res) => {
    const text = req.method === 'POST' ? await readBody(req) : '';
    const body = text ? JSON.parse(text) : undefined;
    if (body?.method) methods.push({ method: body.method, id: body.id, params: body.params });
    const id = req.headers['mcp-session-id'];
    let transport = id ? transports.get(id) : undefined;
    if (!transport) {
      if (id) {
        res.writeHead(404).end();
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  });
  return listening(httpServer, { events, methods });
}

export async function startModernWaitServer() {
  const events = [];
  const methods = [];
  const makeServer = () => {
    const server = new ModernServer({ name: 'gate-test-modern-wait', version: '0.0.0' }, { capabilities: { tools: {} } });
    server.registerTool('wait', { description: 'waits', inputSchema: z.object({ ms: z.number() }) }, async ({ ms }) => {
      // Unreferenced: a call left waiting keeps no test process alive.
      await new Promise((resolve) => setTimeout(resolve, ms).unref());
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    });
    return server;
  };
  const node = toNodeHandler(createMcpHandler(() => makeServer(), { legacy: 'reject' }));
  const httpServer = http.createServer(async (req, res) => {
    if (req.method !== 'POST') return node(req, res);
    const text = await readBody(req);
    const body = JSON.parse(text);
    methods.push({ method: body.method, id: body.id, params: body.params });
    res.on('close', () => {
      if (!res.writableFinished) events.push({ outcome: 'closed', id: body.id, name: body.params?.name, ms: body.params?.arguments?.ms });
    });
    // The adapter reads the request stream, consumed here: it gets the body again.
    const replay = Readable.from([Buffer.from(text)]);
    Object.assign(replay, { method: req.method, url: req.url, headers: req.headers });
    return node(replay, res);
  });
  return listening(httpServer, { events, methods });
}
