// A stateless MCP server of the 2025 era (@modelcontextprotocol/sdk) whose tool `grow {name}`
// adds a tool of that name while it runs and says so as SDK servers do when a call changes
// their tools: `notifications/tools/list_changed` on the call's own stream, before the answer
// (the server has no standalone stream to say it on). Each tools/list is answered from the
// tools added so far.
import * as z from 'zod';

import { startStatelessServer } from './stateless-server.mjs';

export async function startGrowingServer() {
  const added = [];
  const register = (mcp) => {
    mcp.registerTool('grow', { description: 'adds a tool', inputSchema: { name: z.string() } }, async ({ name }, extra) => {
      added.push(name);
      await extra.sendNotification({ method: 'notifications/tools/list_changed' });
      return { content: [{ type: 'text', text: `added ${name}` }] };
    });
    for (const name of added)
      mcp.registerTool(name, { description: `${name}, added by a call` }, async () => ({ content: [{ type: 'text', text: name }] }));
  };
  const server = await startStatelessServer('gate-test-growing', { capabilities: { tools: { listChanged: true } } }, register);
  return { ...server, added };
}
