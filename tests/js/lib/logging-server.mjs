// A stateless MCP server of the 2025 era (@modelcontextprotocol/sdk, streamable HTTP on
// 127.0.0.1, a port the kernel picks) whose one tool, `chatty`, logs one message at each of
// debug, info, warning and error on the call's own stream before it answers: what a client
// hears of an upstream's logs during a call.
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export const CHATTY_LEVELS = ['debug', 'info', 'warning', 'error'];

export async function startLoggingServer() {
  const httpServer = http.createServer(async (req, res) => {
    const server = new McpServer({ name: 'gate-test-logging', version: '0.0.0' }, { capabilities: { logging: {} } });
    server.registerTool('chatty', { description: 'logs at four levels, then answers' }, async (extra) => {
      for (const level of CHATTY_LEVELS)
        await extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'chatty', data: `a ${level} line` } });
      return { content: [{ type: 'text', text: 'said it all' }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise((r) => httpServer.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    stop: () =>
      new Promise((r) => {
        httpServer.closeAllConnections?.();
        httpServer.close(() => r());
      }),
  };
}
