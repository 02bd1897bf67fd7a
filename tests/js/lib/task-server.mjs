// A small MCP server built on @modelcontextprotocol/sdk's low-level Server that holds tasks
// minted elsewhere (no tools/call of it minted them): gate has no ownership record for them
// and must find their owner with its tasks/get probe. Stateless streamable HTTP on
// 127.0.0.1 and a kernel-chosen port; each request gets a fresh server and transport.
import http from 'node:http';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CancelTaskRequestSchema,
  GetTaskPayloadRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * Starts the server with `tasks`, a list of task ids it holds (all `completed`).
 * Returns { url, requests, stop() }; `requests` records every JSON-RPC method it received.
 */
export async function startTaskServer(tasks) {
  const requests = [];
  const task = (taskId) => ({
    taskId,
    status: 'completed',
    createdAt: '2026-01-01T00:00:00.000Z',
    lastUpdatedAt: '2026-01-01T00:00:00.000Z',
    ttl: 60000,
  });
  const notFound = (taskId) => {
    const err = new Error(`Task not found: ${taskId}`);
    err.code = -32602;
    return err;
  };
  const makeServer = () => {
    const server = new Server(
      { name: 'gate-test-task-server', version: '0.0.0' },
      { capabilities: { tools: {}, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
    server.setRequestHandler(GetTaskRequestSchema, async (req) => {
      if (!tasks.includes(req.params.taskId)) throw notFound(req.params.taskId);
      return task(req.params.taskId);
    });
    server.setRequestHandler(GetTaskPayloadRequestSchema, async (req) => {
      if (!tasks.includes(req.params.taskId)) throw notFound(req.params.taskId);
      return { content: [{ type: 'text', text: `payload of ${req.params.taskId}` }] };
    });
    server.setRequestHandler(CancelTaskRequestSchema, async (req) => {
      throw notFound(req.params.taskId);
    });
    server.setRequestHandler(ListTasksRequestSchema, async () => ({ tasks: tasks.map(task) }));
    return server;
  };
  const httpServer = http.createServer(async (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (body.method) requests.push(body.method);
    const server = makeServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    stop: () => new Promise((resolve) => {
      httpServer.closeAllConnections();
      httpServer.close(resolve);
    }),
  };
}
