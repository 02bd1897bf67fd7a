// A 2026-07-28 MCP server on the v2 SDK (@modelcontextprotocol/server), served statelessly on
// 127.0.0.1 and a kernel-chosen port, whose one tool, `chatty`, logs one message at each of
// debug, info, warning and error through the SDK's request logger before it answers. The SDK
// follows the revision: a request whose `_meta` carries no logLevel hears none of them, one
// that carries a level hears those at it or above. `requests` holds every POST body.
import http from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

import { CHATTY_LEVELS } from './logging-server.mjs';

function makeChattyServer() {
  const server = new McpServer({ name: 'gate-test-modern-logging', version: '2.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('chatty', { description: 'logs at four levels, then answers', inputSchema: z.object({}) }, async (_args, ctx) => {
    for (const level of CHATTY_LEVELS) await ctx.mcpReq.log(level, `a ${level} line`, 'chatty');
    return { content: [{ type: 'text', text: 'said it all' }] };
  });
  return server;
}

export async function startModernLoggingServer() {
  const requests = [];
  const node = toNodeHandler(createMcpHandler(() => makeChattyServer(), { legacy: 'reject' }));
  const httpServer = http.createServer(async (req, res) => {
    if (req.method !== 'POST') return node(req, res);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    requests.push(JSON.parse(text));
    // The adapter reads the request's stream, consumed here: it gets the body again.
    const { Readable } = await import('node:stream');
    const replay = Readable.from([Buffer.from(text)]);
    Object.assign(replay, { method: req.method, url: req.url, headers: req.headers });
    return node(replay, res);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    requests,
    stop: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(resolve);
      }),
  };
}
