// A 2026-07-28 server with the tasks extension (io.modelcontextprotocol/tasks, SEP-2663),
// written at the wire level: no npm package implements the extension's server side yet (the
// v2 SDK 2.4.0 has no tasks runtime, and @modelcontextprotocol/ext-tasks is a requester).
// Every result it sends is checked against ext-tasks' own V2 schemas before it goes out.
//   report {topic} -> a task when the request declared the extension (completed on its
//                     second tasks/get, result inlined), else the result at once
// Served on 127.0.0.1 and a kernel-chosen port.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

import {
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  UpdateTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';

const MODERN = '2026-07-28';
const EXTENSION = 'io.modelcontextprotocol/tasks';

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Starts the server. Returns { url, requests, tasks, stop() }. */
export async function startTaskServerV2() {
  const requests = [];
  const tasks = new Map();
  const now = () => new Date().toISOString();
  const view = (t) => ({ taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttlMs: 60_000, pollIntervalMs: 20 });

  const handle = (msg) => {
    const p = msg.params ?? {};
    const declared = p._meta?.['io.modelcontextprotocol/clientCapabilities']?.extensions?.[EXTENSION] !== undefined;
    switch (msg.method) {
      case 'server/discover':
        return {
          supportedVersions: [MODERN],
          capabilities: { tools: {}, extensions: { [EXTENSION]: {} } },
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
          _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'gate-test-task-server-v2', version: '1.0.0' } },
        };
      case 'tools/list':
        return {
          tools: [{ name: 'report', description: 'writes a report, as a task when it may', inputSchema: { type: 'object', properties: { topic: { type: 'string' } } } }],
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
        };
      case 'tools/call': {
        const content = [{ type: 'text', text: `report on ${p.arguments?.topic}` }];
        if (!declared) return { content, resultType: 'complete' };
        const t = { taskId: `v2-${randomUUID()}`, status: 'working', createdAt: now(), lastUpdatedAt: now(), polls: 0, content, updates: [] };
        tasks.set(t.taskId, t);
        return CreateTaskResultV2Schema.parse({ ...view(t), resultType: 'task' });
      }
      case 'tasks/get': {
        const t = tasks.get(p.taskId);
        if (!t) return { error: { code: -32602, message: `unknown task ${p.taskId}` } };
        if (t.status === 'working' && ++t.polls >= 2) Object.assign(t, { status: 'completed', lastUpdatedAt: now() });
        const detail = { ...view(t), resultType: 'complete' };
        if (t.status === 'completed') detail.result = { content: t.content };
        return GetTaskResultV2Schema.parse(detail);
      }
      case 'tasks/update': {
        const t = tasks.get(p.taskId);
        if (!t) return { error: { code: -32602, message: `unknown task ${p.taskId}` } };
        t.updates.push(p.inputResponses);
        return UpdateTaskResultV2Schema.parse({ resultType: 'complete' });
      }
      case 'tasks/cancel': {
        const t = tasks.get(p.taskId);
        if (!t) return { error: { code: -32602, message: `unknown task ${p.taskId}` } };
        if (t.status !== 'working') return { error: { code: -32602, message: `task ${p.taskId} is already ${t.status}` } };
        Object.assign(t, { status: 'cancelled', lastUpdatedAt: now() });
        return CancelTaskResultV2Schema.parse({ resultType: 'complete' });
      }
      default:
        return { error: { code: -32601, message: `method not found: ${msg.method}` } };
    }
  };

  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' });
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    requests.push({ headers: req.headers, body: msg });
    if (req.headers['mcp-protocol-version'] !== MODERN)
      return reply(res, 400, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32022, message: 'unsupported protocol version', data: { supported: [MODERN] } } });
    if (msg.id === undefined) return reply(res, 202, {});
    const out = handle(msg);
    if (out.error) return reply(res, 200, { jsonrpc: '2.0', id: msg.id, error: out.error });
    return reply(res, 200, { jsonrpc: '2.0', id: msg.id, result: out });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    tasks,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
