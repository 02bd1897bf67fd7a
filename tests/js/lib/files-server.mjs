// A stateless 2025 MCP server (@modelcontextprotocol/sdk) whose tools declare the behaviour
// hints policy can test: read_file (read-only), write_file {path} (writes, not destructive),
// delete_file {path} (destructive), exec {user} (not destructive), plain (declares nothing, so
// MCP's defaults: destructive, open world). `calls` records every tools/call it ran, so a
// test can prove a refused call never reached it.
import * as z from 'zod';

import { startStatelessServer } from './stateless-server.mjs';

const TOOLS = [
  ['read_file', { readOnlyHint: true, destructiveHint: false }, { path: z.string().optional() }],
  ['write_file', { readOnlyHint: false, destructiveHint: false }, { path: z.string() }],
  ['delete_file', { readOnlyHint: false, destructiveHint: true }, { path: z.string() }],
  ['exec', { destructiveHint: false }, { user: z.string() }],
  ['plain', undefined, {}],
];

export async function startFilesServer() {
  const calls = [];
  const server = await startStatelessServer('gate-test-files', {}, (mcp) => {
    for (const [name, annotations, inputSchema] of TOOLS)
      mcp.registerTool(name, { description: `${name} for tests`, inputSchema, annotations }, async (args) => {
        calls.push({ name, args });
        return { content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] };
      });
  });
  return { ...server, calls };
}
