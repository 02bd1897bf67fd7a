// A stateless MCP server whose one tool, `metered`, reports what it consumed the way metered
// tools do: in its result's `_meta.usage`. `usage` is what it reports.
import { startStatelessServer } from './stateless-server.mjs';

export function startMeteredServer(usage) {
  return startStatelessServer('gate-test-metered', {}, (server) =>
    server.registerTool('metered', { description: 'reports its usage' }, async () => ({
      content: [{ type: 'text', text: 'measured' }],
      _meta: { usage },
    })),
  );
}
