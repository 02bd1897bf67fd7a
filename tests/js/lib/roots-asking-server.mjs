// A sessionful MCP server of the 2025 era (@modelcontextprotocol/sdk, streamable HTTP on
// 127.0.0.1, a port the kernel picks) whose tool `whose-roots` asks its session's client
// `roots/list` on the session's standalone stream (the SDK's server.listRoots(), tied to no
// request) and answers what came back: "roots: <json>" or "refused: <code> <message>".
// `asked` records each outcome.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export async function startRootsAskingServer() {
  const asked = [];
  const transports = new Map();
  const makeServer = () => {
    const mcp = new McpServer({ name: 'gate-test-roots-asking', version: '0.0.0' }, { capabilities: { tools: {} } });
    mcp.registerTool('whose-roots', { description: "asks the session's client for its roots" }, async () => {
      try {
        const { roots } = await mcp.server.listRoots(undefined, { timeout: 10_000 });
        asked.push({ roots });
        return { content: [{ type: 'text', text: `roots: ${JSON.stringify(roots)}` }] };
      } catch (e) {
        asked.push({ code: e.code, message: e.message });
        return { content: [{ type: 'text', text: `refused: ${e.code} ${e.message}` }] };
      }
    });
    return mcp;
  };
  const httpServer = http.createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    let transport = id ? transports.get(id) : undefined;
    if (!transport) {
      if (id) return void res.writeHead(404).end();
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => transports.set(sid, transport),
      });
      await makeServer().connect(transport);
    }
    await transport.handleRequest(req, res);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    asked,
    stop: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(resolve);
      }),
  };
}
