// A sessionful MCP server (@modelcontextprotocol/sdk, streamable HTTP on 127.0.0.1) that
// serves each user differently, as an upstream behind per-caller credentials does: every
// request must carry `Authorization: Bearer <token>`, `userOf(token)` names its user (null:
// 401), each session belongs to the user that opened it (another user's token on it is
// answered 403 and recorded as a violation), `tools/list` shows `whoami` and a tool only that
// user has (`only_<user>`), and `whoami` answers the user. Every request is recorded.
import http from 'node:http';
import { randomUUID } from 'node:crypto';

import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ElicitResultSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  isInitializeRequest,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * Returns { url, seen, violations, sessions(), stop() }. `asking`: the tools also hold
 * `ask_name`, which elicits a name from the client on the user's own session and answers
 * "hello <name> from <user>". `userOf` may be async. `authorizationServer`: the server is an
 * OAuth protected resource (RFC 9728) of that issuer: its metadata is served at
 * /.well-known/oauth-protected-resource/mcp and its 401 challenge points there.
 * `scopeOf(token)`, with `scoped: { tool, scope }`: that tool (listed too) needs the scope in
 * the token, or the call is answered 403 with a Bearer insufficient_scope challenge naming it.
 */
export async function startPerUserServer(userOf, { asking = false, authorizationServer = null, scoped = null, scopeOf = null } = {}) {
  let url = '';
  const seen = [];
  const violations = [];
  const sessions = new Map(); // session id -> { transport, user }
  const makeServer = (user) => {
    const server = new Server({ name: 'gate-test-per-user', version: '0.0.0' }, { capabilities: { tools: {} } });
    const tool = (name) => ({ name, description: `for ${user}`, inputSchema: { type: 'object', properties: {} } });
    const tools = [tool('whoami'), tool(`only_${user}`), ...(asking ? [tool('ask_name')] : []), ...(scoped ? [tool(scoped.tool)] : [])];
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
    server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      if (asking && req.params.name === 'ask_name') {
        // On the call's own stream (related to it), as a question during a call goes.
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { message: 'your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
          },
          ElicitResultSchema,
        );
        return { content: [{ type: 'text', text: `hello ${answer.content?.name} from ${user}` }] };
      }
      if (scoped && req.params.name === scoped.tool)
        return { content: [{ type: 'text', text: `${scoped.tool} ran for ${user}` }] };
      if (req.params.name !== 'whoami' && req.params.name !== `only_${user}`)
        throw new McpError(ErrorCode.InvalidParams, `unknown tool for ${user}: ${req.params.name}`);
      return { content: [{ type: 'text', text: req.params.name === 'whoami' ? user : `${req.params.name} ran for ${user}` }] };
    });
    return server;
  };
  const httpServer = http.createServer(async (req, res) => {
    if (authorizationServer && req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ resource: url, authorization_servers: [authorizationServer], bearer_methods_supported: ['header'] }));
      return;
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const auth = req.headers.authorization ?? '';
    const token = auth.startsWith('Bearer ') ? auth.slice(7) : null;
    const user = token ? await userOf(token) : null;
    const sessionId = req.headers['mcp-session-id'];
    seen.push({ httpMethod: req.method, rpcMethod: body?.method ?? null, params: body?.params ?? null, user, token, session: sessionId ?? null });
    if (!user) {
      const challenge = authorizationServer
        ? `Bearer resource_metadata="${new URL(url).origin}/.well-known/oauth-protected-resource/mcp"`
        : 'Bearer';
      res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'invalid_token' }));
      return;
    }
    if (scoped && body?.method === 'tools/call' && body.params?.name === scoped.tool) {
      const granted = String((await scopeOf(token)) ?? '').split(' ');
      if (!granted.includes(scoped.scope)) {
        res.writeHead(403, {
          'www-authenticate': `Bearer error="insufficient_scope", scope="${scoped.scope}"`,
          'content-type': 'application/json',
        });
        res.end(JSON.stringify({ error: 'insufficient_scope' }));
        return;
      }
    }
    if (sessionId) {
      const s = sessions.get(sessionId);
      if (!s) {
        res.writeHead(404).end();
        return;
      }
      if (s.user !== user) {
        violations.push({ session: sessionId, owner: s.user, user, rpcMethod: body?.method ?? null });
        res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"another user\'s session"}');
        return;
      }
      await s.transport.handleRequest(req, res, body);
      return;
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      res.writeHead(400).end();
      return;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => sessions.set(id, { transport, user }),
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await makeServer(user).connect(transport);
    await transport.handleRequest(req, res, body);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
  return {
    url,
    seen,
    violations,
    sessions: () => [...sessions.values()].map((s) => s.user),
    stop: () =>
      new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(resolve);
      }),
  };
}
