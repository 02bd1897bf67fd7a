// A stateless MCP server of the 2025 era whose one tool, `chatty`, logs one message at each of
// debug, info, warning and error on the call's own stream before it answers: what a client
// hears of an upstream's logs during a call.
import { startStatelessServer } from './stateless-server.mjs';

export const CHATTY_LEVELS = ['debug', 'info', 'warning', 'error'];

export function startLoggingServer() {
  return startStatelessServer('gate-test-logging', { capabilities: { logging: {} } }, (server) =>
    server.registerTool('chatty', { description: 'logs at four levels, then answers' }, async (extra) => {
      for (const level of CHATTY_LEVELS)
        await extra.sendNotification({ method: 'notifications/message', params: { level, logger: 'chatty', data: `a ${level} line` } });
      return { content: [{ type: 'text', text: 'said it all' }] };
    }),
  );
}
