// A 2026-07-28 MCP server on the v2 SDK (@modelcontextprotocol/server 2.4.0) whose tools mirror
// parameters in Mcp-Param-* headers (x-mcp-header, SEP-2243). The SDK checks each tools/call's
// headers against its body and answers 400 / -32020 when they do not mirror it.
//   regional {region (Region), count? (Count), target? {id (TargetId)}, note?} (also under
//            the names given as `regionalAlso`)
//                    -> "region=<region> count=<count> id=<id>"
//   broken {tags: [x-mcp-header on the items]}   an invalid definition: clients must drop it
//   plain {text}    -> "plain: <text>"
// Served statelessly on 127.0.0.1 and a kernel-chosen port; `requests` holds every POST
// (headers and body).
import http from 'node:http';
import { Readable } from 'node:stream';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import * as z from 'zod';

function makeServer(regionalNames) {
  const server = new McpServer({ name: 'gate-test-param-server', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const regional of regionalNames) server.registerTool(
    regional,
    {
      description: 'answers for a region',
      inputSchema: z.object({
        region: z.string().meta({ 'x-mcp-header': 'Region' }),
        count: z.number().int().optional().meta({ 'x-mcp-header': 'Count' }),
        target: z.object({ id: z.number().int().meta({ 'x-mcp-header': 'TargetId' }) }).optional(),
        note: z.string().optional(),
      }),
    },
    async ({ region, count, target }) => ({ content: [{ type: 'text', text: `region=${region} count=${count} id=${target?.id}` }] }),
  );
  server.registerTool(
    'broken',
    { description: 'an invalid x-mcp-header', inputSchema: z.object({ tags: z.array(z.string().meta({ 'x-mcp-header': 'Tag' })) }) },
    async ({ tags }) => ({ content: [{ type: 'text', text: tags.join(',') }] }),
  );
  server.registerTool('plain', { description: 'no headers', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text: `plain: ${text}` }],
  }));
  return server;
}

/** Starts the server; `regionalAlso`: more names the `regional` tool is served under. Returns { url, requests, stop() }. */
export async function startParamServer({ regionalAlso = [] } = {}) {
  const requests = [];
  const names = ['regional', ...regionalAlso];
  const node = toNodeHandler(createMcpHandler(() => makeServer(names), { legacy: 'reject' }));
  const httpServer = http.createServer(async (req, res) => {
    if (req.method !== 'POST') return node(req, res);
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    requests.push({ headers: req.headers, body: JSON.parse(text) });
    // Hand the body on: the adapter reads the request stream, which is now consumed.
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
