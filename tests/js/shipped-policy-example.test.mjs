// The argument conditions of the shipped config/examples/full.json, loaded as written into the
// real gate in front of real SDK servers: what an operator copies must be safe to copy. The
// file writers' grant reads `/path` as a path ("normalize": "path"): empty and `.` segments
// are dropped, and a path with a `..` is never granted (behind a link it may lead anywhere), and
// the `secret-` deny ignores case, as the upstream's names may (issue 47, defect 21).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as z from 'zod';

import { REPO_ROOT, connectClient, expectMcpError, startGate } from './lib/index.mjs';
import { startStatelessServer } from './lib/stateless-server.mjs';

const example = JSON.parse(readFileSync(path.join(REPO_ROOT, 'config/examples/full.json'), 'utf8'));
const shippedRule = (id) => {
  const rule = example.policy.rules.find((r) => r.id === id);
  assert.ok(rule, `full.json has the rule ${id}`);
  return rule;
};

// An upstream whose tools declare the hints the file writers' grant asks for, and records
// every call it runs: a refused call must never reach it.
async function startRecordingServer(tools) {
  const calls = [];
  const server = await startStatelessServer('gate-test-shipped', {}, (mcp) => {
    for (const [name, annotations, inputSchema] of tools)
      mcp.registerTool(name, { description: `${name} for tests`, inputSchema, annotations }, async (args) => {
        calls.push({ name, args });
        return { content: [{ type: 'text', text: `${name} ${JSON.stringify(args)}` }] };
      });
  });
  return { ...server, calls };
}

describe('the shipped example policy is safe to copy', { timeout: 60_000 }, () => {
  let files;
  let github;
  let gate;
  let client;

  before(async () => {
    const writeHints = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    files = await startRecordingServer([
      ['write_file', writeHints, { path: z.string(), mode: z.string(), size: z.number(), force: z.boolean() }],
    ]);
    github = await startRecordingServer([['get_repo', { readOnlyHint: true, destructiveHint: false }, { repo: z.string() }]]);
    // The shipped rules as written, but for the writers' subjects: the callers here are
    // anonymous (no auth), so their scope selector would select nobody.
    const { subjects: _scopes, ...writers } = shippedRule('file-writers');
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'local-files', url: files.url, namespace: 'files' },
          { id: 'github', url: github.url, namespace: 'github' },
        ],
        policy: {
          rules: [writers, shippedRule('nothing-destructive'), { id: 'test-github-reads', allow: [{ server: 'github' }] }],
        },
      },
    });
    client = await connectClient(gate.url);
  });

  after(async () => {
    await client?.close();
    await gate?.stop();
    await files?.stop();
    await github?.stop();
  });

  const write = (p) => client.callTool({ name: 'files__write_file', arguments: { path: p, mode: 'create', size: 10, force: false } });

  test('the file writers grant a path under /srv/ as the path it names, never one with ..', async () => {
    for (const [p, reaches] of [
      ['/srv/notes.txt', '/srv/notes.txt'],
      ['/srv//a/./b.txt', '/srv//a/./b.txt'], // judged as /srv/a/b.txt, passed on as written
    ]) {
      const r = await write(p);
      assert.match(r.content[0].text, /write_file/, p);
      assert.equal(files.calls.at(-1).args.path, reaches);
    }
    for (const p of ['/srv/a/../b.txt', '/srv/../etc/passwd', '/srv/a/../../etc/shadow', '/srv/./../root/.ssh/keys', '/srv//../etc', '/../srv/x', '/srv/../../srv/x']) {
      const before = files.calls.length;
      const err = await expectMcpError(() => write(p));
      assert.equal(err.code, -32042, p);
      assert.equal(files.calls.length, before, `${p} never reached the upstream`);
    }
  });

  test("the secret- deny holds whatever the case of the repository's name", async () => {
    for (const repo of ['SECRET-x', 'Secret-plans', 'secret-y']) {
      const before = github.calls.length;
      const err = await expectMcpError(() => client.callTool({ name: 'github__get_repo', arguments: { repo } }));
      assert.equal(err.code, -32042, repo);
      assert.match(err.message, /rule nothing-destructive denies it/, repo);
      assert.equal(github.calls.length, before, `${repo} never reached the upstream`);
    }
    const r = await client.callTool({ name: 'github__get_repo', arguments: { repo: 'public-secret-notes' } });
    assert.match(r.content[0].text, /public-secret-notes/);
  });
});
