// server.info and server.instructions (docs/configuration.md): a namespaced federation presents
// itself as configured, to a sessionful client in initialize and to a 2026-07-28 client in
// server/discover, with each upstream's own instructions under a line naming it (the real
// server-everything's, as its handshake gave them).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { connectClient, modernRequest, post, runGate, startEverything, startFilesServer, startGate } from './lib/index.mjs';

const ICON = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==';

describe('the federation as configured', { timeout: 60_000 }, () => {
  let everything;
  let files;
  let gate;

  before(async () => {
    [everything, files] = await Promise.all([startEverything(), startFilesServer()]);
    gate = await startGate({
      config: {
        server: {
          info: { name: 'acme-tools', title: 'ACME tools', version: '2026.11', websiteUrl: 'https://tools.acme.example', icons: [{ src: ICON, mimeType: 'image/png', sizes: ['1x1'], theme: 'light' }] },
          instructions: { text: "ACME's tools.\nAsk before writing.", fromUpstreams: true },
        },
        upstreams: [
          { id: 'every', url: everything.url, namespace: 'every' },
          { id: 'files', url: files.url, namespace: 'files' },
        ],
      },
    });
  });

  after(async () => {
    await gate?.stop();
    await files?.stop();
    await everything?.stop();
  });

  test("a namespaced federation presents its configured name, icons and instructions, and each upstream's under its namespace", async () => {
    const first = await connectClient(gate.url);
    await first.listTools(); // every upstream's handshake has answered by now
    await first.close();
    const client = await connectClient(gate.url);
    try {
      const info = client.getServerVersion();
      assert.deepEqual(info, {
        name: 'acme-tools',
        title: 'ACME tools',
        version: '2026.11',
        websiteUrl: 'https://tools.acme.example',
        icons: [{ src: ICON, mimeType: 'image/png', sizes: ['1x1'], theme: 'light' }],
      });
      const text = client.getInstructions();
      assert.ok(text.startsWith("ACME's tools.\nAsk before writing.\n\nUpstream every (its tools and prompts are named every__...):\n"), text.slice(0, 200));
      // server-everything's own instructions, cut at 2 KiB; the files server gives none.
      const theirs = text.slice(text.indexOf('every__...):\n') + 'every__...):\n'.length);
      assert.ok(theirs.length > 100 && Buffer.byteLength(theirs) <= 2048 + 3, `${Buffer.byteLength(theirs)} bytes`);
      assert.ok(!text.includes('Upstream files'), 'an upstream without instructions adds nothing');
      assert.ok(Buffer.byteLength(text) <= 16384);
    } finally {
      await client.close();
    }
    // A 2026-07-28 client reads the same in server/discover.
    const { body, headers } = modernRequest('server/discover');
    const res = await post(gate.url, body, headers);
    assert.equal(res.status, 200);
    const r = res.json.result;
    assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].name, 'acme-tools');
    assert.equal(r._meta['io.modelcontextprotocol/serverInfo'].icons[0].src, ICON);
    assert.ok(r.instructions.startsWith("ACME's tools."), r.instructions.slice(0, 80));
    assert.ok(r.instructions.includes('Upstream every'));
  });

  test('a passthrough gate refuses them at validation: it presents its one upstream as it is', async () => {
    const doc = JSON.stringify({ server: { info: { name: 'x' }, instructions: { text: 'hi' } }, upstreams: [{ id: 'one', url: everything.url }] });
    const r = await runGate(['--validate'], { env: { GATE_CONFIG: doc } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /\/server\/info: presents gate .*passes that upstream's own initialize through/);
    assert.match(r.stderr, /\/server\/instructions: instructs the client/);
  });
});
