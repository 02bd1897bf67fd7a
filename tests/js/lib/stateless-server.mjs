// A stateless MCP server of the 2025 era (@modelcontextprotocol/sdk, streamable HTTP on
// 127.0.0.1, a port the kernel picks): a fresh McpServer per request, `register` adding its
// tools. The small fixture servers of the tests stand on it. `before(message)`, when given,
// is awaited with each POSTed message before the server sees it (a test holds a method so).
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export async function startStatelessServer(name, options, register, { before } = {}) {
  const httpServer = http.createServer(async (req, res) => {
    let message;
    if (before && req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      await before(message);
    }
    const server = new McpServer({ name, version: '0.0.0' }, options);
    register(server);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
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
