// The log level gate asks a 2026-07-28 upstream for on a 2025-11-25 session client's behalf
// (docs/protocol-eras.md, "Log levels"): the revision sends no log messages for a request
// without `_meta` logLevel, while a server of the client's own era asked directly logs by
// default. Until the client calls logging/setLevel its requests carry "debug" (it hears what
// the SDK servers of its era send unasked: every level); after, the level it set. A
// 2026-07-28 client's request without a logLevel still hears none.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient, eventually, modernRequest, post, startGate } from './lib/index.mjs';
import { CHATTY_LEVELS } from './lib/logging-server.mjs';
import { startModernLoggingServer } from './lib/modern-logging-server.mjs';

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

describe('a 2025-11-25 session at a 2026-07-28 upstream: log messages without logging/setLevel', { timeout: 120_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startModernLoggingServer();
    gate = await startGate({ config: { upstreams: [{ id: 'm', url: up.url, namespace: 'm', protocol: '2026-07-28' }] } });
  });

  after(async () => {
    await gate?.stop();
    await up?.stop();
  });

  test('a session that set no level hears every level; one that set warning hears warning and error', { timeout: 60_000 }, async () => {
    const client = await connectClient(gate.url, { name: 'unleveled' });
    try {
      const heard = [];
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => heard.push(n.params.level));
      const r = await client.callTool({ name: 'm__chatty', arguments: {} });
      assert.deepEqual(r.content, [{ type: 'text', text: 'said it all' }]);
      const sent = up.requests.findLast((q) => q.method === 'tools/call');
      assert.equal(sent.params._meta[LOG_LEVEL], 'debug', 'gate asked for the default level');
      await eventually(() => heard.length === CHATTY_LEVELS.length, { what: 'four log messages' });
      assert.deepEqual(heard, CHATTY_LEVELS);
      heard.length = 0;
      await client.setLoggingLevel('warning');
      await client.callTool({ name: 'm__chatty', arguments: {} });
      assert.equal(up.requests.findLast((q) => q.method === 'tools/call').params._meta[LOG_LEVEL], 'warning');
      await eventually(() => heard.length === 2, { what: 'two log messages' });
      assert.deepEqual(heard, ['warning', 'error']);
    } finally {
      await client.close();
    }
  });

  test('a 2026-07-28 request without a logLevel is sent without one, and hears no log message', { timeout: 30_000 }, async () => {
    const { body, headers } = modernRequest('tools/call', { name: 'm__chatty', arguments: {} }, { id: 7 });
    const r = await post(gate.url, body, headers);
    assert.equal(r.status, 200);
    assert.doesNotMatch(r.text, /notifications\/message/);
    assert.match(r.text, /said it all/);
    const sent = up.requests.findLast((q) => q.method === 'tools/call');
    assert.equal(sent.params._meta[LOG_LEVEL], undefined);
  });
});
