// A stdio MCP server on the v2 SDK (@modelcontextprotocol/server 2.4.0, `serveStdio`) that
// speaks 2026-07-28 (and, for an `initialize` opening, 2025-11-25), for gate-stdio's tests:
//   whoami                  -> "pid <pid>" (which child answered)
//   echo {text}             -> "echo: <text>"
//   progress {steps}        -> <steps> notifications/progress on the call's token, then "done <steps>"
//   slow {tag}              -> waits until cancelled; the abort is recorded
//   ask                     -> input_required (an elicitation) until answered, then "Hello, <name>!"
//   crash                   -> the process exits with status 3 mid-call
//   add-tool {name}         -> registers tool <name> (a tools/list_changed for listens)
//   regional {region (x-mcp-header Region), count? (Count)} -> "region=<region> count=<count>"
//                              (the call is recorded: over stdio no header reaches the child)
// Usage: node stdio-modern-server.mjs <record-file> [--modern-only]; every event (a call
// started, a call aborted) is appended to <record-file> as one JSON line, so a test can see
// what the child saw. --modern-only refuses a 2025-era opening (serveStdio's legacy: 'reject').
import { appendFileSync } from 'node:fs';

import { McpServer, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const record = process.argv[2];
const note = (event) => {
  if (record) appendFileSync(record, `${JSON.stringify({ pid: process.pid, ...event })}\n`);
};
const text = (t) => ({ content: [{ type: 'text', text: t }] });

function makeServer() {
  const server = new McpServer({ name: 'gate-test-stdio-modern', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.registerTool('whoami', { description: 'which process answers', inputSchema: z.object({}) }, async () => text(`pid ${process.pid}`));
  server.registerTool('echo', { description: 'echoes', inputSchema: z.object({ text: z.string() }) }, async ({ text: t }) => text(`echo: ${t}`));
  server.registerTool('progress', { description: 'reports progress', inputSchema: z.object({ steps: z.number().int() }) }, async ({ steps }, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (let i = 1; i <= steps; i++)
      if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress: i, total: steps } });
    return text(`done ${steps}`);
  });
  server.registerTool('slow', { description: 'runs until cancelled', inputSchema: z.object({ tag: z.string() }) }, async ({ tag }, ctx) => {
    note({ event: 'started', tag });
    await new Promise((resolve) => {
      if (ctx.mcpReq.signal.aborted) return resolve();
      ctx.mcpReq.signal.addEventListener('abort', resolve, { once: true });
    });
    note({ event: 'aborted', tag });
    return text(`slow ${tag} cancelled`);
  });
  server.registerTool('ask', { description: 'asks for a name', inputSchema: z.object({}) }, async (_a, ctx) => {
    const answer = ctx.mcpReq.inputResponses?.name;
    if (answer?.action === 'accept') return text(`Hello, ${answer.content?.name}!`);
    return inputRequired({
      inputRequests: {
        name: inputRequired.elicit({ message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }),
      },
    });
  });
  server.registerTool(
    'regional',
    {
      description: 'mirrors parameters in Mcp-Param-* headers',
      inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), count: z.number().int().optional().meta({ 'x-mcp-header': 'Count' }) }),
    },
    async ({ region, count }) => {
      note({ event: 'regional', region });
      return text(`region=${region} count=${count}`);
    },
  );
  server.registerTool('crash', { description: 'exits mid-call', inputSchema: z.object({}) }, async () => {
    note({ event: 'crash' });
    process.exit(3);
  });
  server.registerTool('add-tool', { description: 'adds a tool', inputSchema: z.object({ name: z.string() }) }, async ({ name }) => {
    server.registerTool(name, { description: 'added', inputSchema: z.object({}) }, async () => text(`I am ${name}`));
    return text(`added ${name}`);
  });
  return server;
}

serveStdio(() => makeServer(), { legacy: process.argv.includes('--modern-only') ? 'reject' : 'serve' });
