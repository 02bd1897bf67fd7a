// A 2026-07-28 server with the tasks extension (io.modelcontextprotocol/tasks, SEP-2663),
// written at the wire level: no npm package implements the extension's server side yet (the
// v2 SDK 2.4.0 has no tasks runtime, and @modelcontextprotocol/ext-tasks is a requester).
// Every result it sends is checked against ext-tasks' own V2 schemas before it goes out.
//   report {topic} -> a task when the request declared the extension (completed on its
//                     second tasks/get, or by finish(taskId), result inlined), else the
//                     result at once; the topic 'linked' adds a resource link naming two
//                     icons, one on the server's own origin and one elsewhere
//   consult {ask}   -> (with { inputTool: true }) a task that waits for its client's input:
//                     input_required, asking `ask` ('sampling' or 'elicitation') in
//                     inputRequests.model; askAgain(taskId) tells the listens so
//   subscriptions/listen {taskIds} -> an event stream: the acknowledgment (the ids it holds),
//                     then notifications/tasks for each of them that finish() completes
// Served on 127.0.0.1 and a kernel-chosen port.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

import {
  TaskStatusNotificationV2Schema,
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

// The input a consult task asks its client for, by kind.
const INPUT_REQUESTS = {
  sampling: { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'the secret question' } }], maxTokens: 16 } },
  elicitation: { method: 'elicitation/create', params: { message: 'who approves?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } } },
};

/**
 * Starts the server. Returns { url, requests, tasks, listens, finish(taskId), askAgain(taskId),
 * stop() }. `inputTool`: also list `consult`.
 */
export async function startTaskServerV2({ inputTool = false } = {}) {
  const requests = [];
  const tasks = new Map();
  // Open listens: { taskIds: Set, res }.
  const listens = new Set();
  const now = () => new Date().toISOString();
  const view = (t) => ({ taskId: t.taskId, status: t.status, createdAt: t.createdAt, lastUpdatedAt: t.lastUpdatedAt, ttlMs: 60_000, pollIntervalMs: 20 });
  const detailOf = (t) => {
    const detail = view(t);
    if (t.status === 'completed') detail.result = { content: t.content };
    if (t.status === 'input_required') detail.inputRequests = t.inputRequests;
    return detail;
  };

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
          tools: [
            { name: 'report', description: 'writes a report, as a task when it may', inputSchema: { type: 'object', properties: { topic: { type: 'string' } } } },
            ...(inputTool ? [{ name: 'consult', description: 'a task that asks its client for input', inputSchema: { type: 'object', properties: { ask: { type: 'string' } } } }] : []),
          ],
          resultType: 'complete',
          ttlMs: 0,
          cacheScope: 'private',
        };
      case 'tools/call': {
        const content = [{ type: 'text', text: `report on ${p.arguments?.topic}` }];
        if (p.arguments?.topic === 'linked') {
          const own = `http://127.0.0.1:${server.address().port}/icon.png`;
          content.push({ type: 'resource_link', uri: 'file:///reports/linked.pdf', name: 'linked.pdf', icons: [{ src: own }, { src: 'https://tracker.example/p.png' }] });
        }
        if (!declared) return { content, resultType: 'complete' };
        const t = { taskId: `v2-${randomUUID()}`, status: 'working', createdAt: now(), lastUpdatedAt: now(), polls: 0, content, updates: [] };
        if (p.name === 'consult') Object.assign(t, { status: 'input_required', inputRequests: { model: INPUT_REQUESTS[p.arguments?.ask] } });
        tasks.set(t.taskId, t);
        return CreateTaskResultV2Schema.parse({ ...view(t), resultType: 'task' });
      }
      case 'tasks/get': {
        const t = tasks.get(p.taskId);
        if (!t) return { error: { code: -32602, message: `unknown task ${p.taskId}` } };
        if (t.status === 'working' && ++t.polls >= 2) Object.assign(t, { status: 'completed', lastUpdatedAt: now() });
        return GetTaskResultV2Schema.parse({ ...detailOf(t), resultType: 'complete' });
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

  const listen = (msg, res) => {
    const asked = msg.params?.notifications?.taskIds ?? [];
    const held = asked.filter((id) => tasks.has(id));
    const entry = { taskIds: new Set(held), id: msg.id, res };
    listens.add(entry);
    res.on('close', () => listens.delete(entry));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ack = {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: held }, _meta: { 'io.modelcontextprotocol/subscriptionId': msg.id } },
    };
    res.write(`data: ${JSON.stringify(ack)}\n\n`);
  };
  // Tells every listen holding the task of its state.
  const tell = (t) => {
    for (const l of listens) {
      if (!l.taskIds.has(t.taskId)) continue;
      const news = TaskStatusNotificationV2Schema.parse({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...detailOf(t), _meta: { 'io.modelcontextprotocol/subscriptionId': l.id } },
      });
      l.res.write(`data: ${JSON.stringify(news)}\n\n`);
    }
  };
  // Completes a working task and tells every listen holding it.
  const finish = (taskId) => {
    const t = tasks.get(taskId);
    Object.assign(t, { status: 'completed', lastUpdatedAt: now() });
    tell(t);
  };
  // Tells the listens again what a consult task asks (its input still awaited).
  const askAgain = (taskId) => tell(tasks.get(taskId));

  const server = http.createServer(async (req, res) => {
    if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' });
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    requests.push({ headers: req.headers, body: msg });
    if (req.headers['mcp-protocol-version'] !== MODERN)
      return reply(res, 400, { jsonrpc: '2.0', id: msg.id ?? null, error: { code: -32022, message: 'unsupported protocol version', data: { supported: [MODERN] } } });
    if (msg.id === undefined) return reply(res, 202, {});
    if (msg.method === 'subscriptions/listen') return listen(msg, res);
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
    listens,
    finish,
    askAgain,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
