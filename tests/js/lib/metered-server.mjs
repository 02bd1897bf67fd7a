// A stateless MCP server (@modelcontextprotocol/sdk, streamable HTTP on 127.0.0.1, a port the
// kernel picks) whose one tool, `metered`, reports what it consumed the way metered tools do:
// in its result's `_meta.usage`. `usage` is what it reports.
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export async function startMeteredServer(usage) {
  const httpServer = http.createServer(async (req, res) => {
    const server = new McpServer({ name: 'gate-test-metered', version: '0.0.0' });
    server.registerTool('metered', { description: 'reports its usage' }, async () => ({
      content: [{ type: 'text', text: 'measured' }],
      _meta: { usage },
    }));
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
