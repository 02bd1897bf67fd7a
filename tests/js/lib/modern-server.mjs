// A 2026-07-28 MCP server built on the v2 SDK (@modelcontextprotocol/server 2.4.0), served
// statelessly over HTTP on 127.0.0.1 and a kernel-chosen port. Its tools ask for input the
// 2026-07-28 way (an input_required result, answered by the client's retry):
//   echo {message}       -> "Echo: <message>"
//   confirm {action}     -> elicits {name}; "<action> confirmed by <name>" (or "declined")
//   sample {prompt}      -> asks for a sampled message; "sampled: <text>"
// and one resource, modern://status. `bus.publish({kind: 'resource_updated', uri})` (or
// 'tools_list_changed', ...) reaches every subscriptions/listen stream that asked for it.
// `legacy: 'reject'` makes it modern-only; 'stateless' also answers 2025-era requests.
import http from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { InMemoryServerEventBus, McpServer, acceptedContent, createMcpHandler, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';

function makeServer() {
  const server = new McpServer(
    { name: 'gate-test-modern-server', version: '2.0.0' },
    { capabilities: { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true } } },
  );
  server.registerResource('status', 'modern://status', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'all well' }],
  }));
  server.registerTool('echo', { description: 'echoes', inputSchema: z.object({ message: z.string() }) }, async ({ message }) => ({
    content: [{ type: 'text', text: `Echo: ${message}` }],
  }));
  server.registerTool('confirm', { description: 'asks who confirms', inputSchema: z.object({ action: z.string() }) }, async ({ action }, ctx) => {
    const responses = ctx.mcpReq.inputResponses;
    if (!responses?.who) {
      return inputRequired({
        inputRequests: {
          who: inputRequired.elicit({
            message: `Who confirms ${action}?`,
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
          }),
        },
        requestState: `state-for-${action}`,
      });
    }
    const content = acceptedContent(responses, 'who');
    return { content: [{ type: 'text', text: content ? `${action} confirmed by ${content.name}` : `${action} declined` }] };
  });
  server.registerTool('sample', { description: 'asks the client to sample', inputSchema: z.object({ prompt: z.string() }) }, async ({ prompt }, ctx) => {
    const sampled = ctx.mcpReq.inputResponses?.llm;
    if (!sampled) {
      return inputRequired({
        inputRequests: {
          llm: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 20 }),
        },
      });
    }
    return { content: [{ type: 'text', text: `sampled: ${sampled.content?.text ?? JSON.stringify(sampled)}` }] };
  });
  return server;
}

/** Starts the server. Returns { url, requests, bus, stop() }; `requests` holds every POST body. */
export async function startModernServer({ legacy = 'reject' } = {}) {
  const requests = [];
  const bus = new InMemoryServerEventBus();
  const handler = createMcpHandler(() => makeServer(), { legacy, bus });
  const node = toNodeHandler(handler);
  const httpServer = http.createServer(async (req, res) => {
    if (req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        requests.push({ headers: req.headers, body: JSON.parse(text) });
      } catch {
        requests.push({ headers: req.headers, body: text });
      }
      // Hand the body on: the adapter reads the request stream, which is now consumed.
      const { Readable } = await import('node:stream');
      const replay = Readable.from([Buffer.from(text)]);
      Object.assign(replay, { method: req.method, url: req.url, headers: req.headers });
      return node(replay, res);
    }
    return node(req, res);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    bus,
    stop: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(resolve);
      }),
  };
}
