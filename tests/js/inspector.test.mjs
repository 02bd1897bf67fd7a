// The client command line the demo prints (scripts/demo.sh) works against the real gate:
// @modelcontextprotocol/inspector in --cli mode lists and calls federated tools.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { JS_DIR, startEverything, startGate } from './lib/index.mjs';

const run = promisify(execFile);
const INSPECTOR = path.join(JS_DIR, 'node_modules', '.bin', 'mcp-inspector');

async function inspector(url, ...args) {
  const { stdout } = await run(process.execPath, [INSPECTOR, '--cli', url, '--transport', 'http', ...args], {
    timeout: 60_000,
  });
  return JSON.parse(stdout);
}

describe('mcp-inspector --cli through gate', { timeout: 180_000 }, () => {
  let A;
  let B;
  let gate;

  before(async () => {
    [A, B] = await Promise.all([startEverything(), startEverything()]);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'alpha', url: A.url, namespace: 'alpha' },
          { id: 'beta', url: B.url, namespace: 'beta' },
        ],
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await Promise.all([A?.stop(), B?.stop()]);
  });

  test('tools/list shows both namespaces', async () => {
    const out = await inspector(gate.url, '--method', 'tools/list');
    const names = out.tools.map((t) => t.name);
    assert.ok(names.includes('alpha__echo'), names.join(','));
    assert.ok(names.includes('beta__echo'), names.join(','));
  });

  test('tools/call reaches the named upstream', async () => {
    const out = await inspector(gate.url, '--method', 'tools/call', '--tool-name', 'beta__echo', '--tool-arg', 'message=hello');
    assert.deepEqual(out.content, [{ type: 'text', text: 'Echo: hello' }]);
  });
});
