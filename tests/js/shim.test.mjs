// gate-stdio end to end: the real binary in front of real stdio servers from npm
// (server-everything, server-filesystem) and of tests/support's stdio_mcp_server, driven by
// the official SDK client and by raw HTTP.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { ElicitRequestSchema, CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  EVERYTHING_ENTRY,
  FULL_CLIENT_CAPABILITIES,
  SHIM_BIN,
  STDIO_TEST_SERVER,
  connectClient,
  eventually,
  get,
  initializeRequest,
  liveChildrenOf,
  liveInGroup,
  notification,
  openRawSession,
  packageFile,
  post,
  rawRequest,
  rpc,
  processTable,
  runShim,
  spawnTracked,
  startEverything,
  startGate,
  startShim,
  stopChecked,
} from './lib/index.mjs';

const NODE = process.execPath;
const FILESYSTEM_ENTRY = packageFile('@modelcontextprotocol/server-filesystem', 'dist/index.js');

const text = (result) => result.content.find((c) => c.type === 'text')?.text;

async function del(url, session) {
  const res = await fetch(url, { method: 'DELETE', headers: session.headers, signal: AbortSignal.timeout(5000) });
  return res.status;
}

// The pid (= process group) of the stdio test server behind a raw session.
async function whoami(url, session) {
  const r = await post(url, rpc('tools/call', { name: 'whoami', arguments: {} }), session.headers);
  assert.equal(r.status, 200, r.text);
  return JSON.parse(text(r.json.result));
}

async function callTool(url, session, name) {
  const r = await post(url, rpc('tools/call', { name, arguments: {} }), session.headers);
  assert.equal(r.status, 200, r.text);
  return text(r.json.result);
}

describe('gate-stdio with server-everything (stdio)', { timeout: 120_000 }, () => {
  let shim;
  before(async () => {
    shim = await startShim({ command: [NODE, EVERYTHING_ENTRY, 'stdio'] });
  });
  after(async () => {
    await shim?.stop();
  });

  test('lists and calls through the SDK client', async () => {
    const client = await connectClient(shim.url);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'echo'));
      const r = await client.callTool({ name: 'echo', arguments: { message: 'through the shim' } });
      assert.equal(text(r), 'Echo: through the shim');
      const { resources } = await client.listResources();
      assert.ok(resources.length > 0);
      const { prompts } = await client.listPrompts();
      assert.ok(prompts.length > 0);
    } finally {
      await client.close();
    }
  });

  test('a server-initiated sampling request is answered by the client, back to the same child', async () => {
    const client = await connectClient(shim.url, { capabilities: FULL_CLIENT_CAPABILITIES });
    const seen = [];
    client.setRequestHandler(CreateMessageRequestSchema, async (req) => {
      seen.push(req.params.messages[0].content.text);
      return { role: 'assistant', content: { type: 'text', text: 'forty-two' }, model: 'test-model' };
    });
    try {
      const r = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'meaning of life?' } });
      assert.equal(seen.length, 1);
      assert.match(seen[0], /meaning of life\?/);
      assert.match(JSON.stringify(r.content), /forty-two/);
    } finally {
      await client.close();
    }
  });

  test('an elicitation request reaches the client and its answer reaches the child', async () => {
    const client = await connectClient(shim.url, { capabilities: FULL_CLIENT_CAPABILITIES });
    let asked = 0;
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++;
      return { action: 'decline' };
    });
    try {
      const r = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
      assert.equal(asked, 1);
      assert.match(JSON.stringify(r.content), /decline/i);
    } finally {
      await client.close();
    }
  });

  test('progress notifications travel on the call they belong to', async () => {
    const client = await connectClient(shim.url);
    const progress = [];
    try {
      await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
        undefined,
        { onprogress: (p) => progress.push(p.progress) },
      );
      assert.deepEqual(progress, [1, 2, 3]);
    } finally {
      await client.close();
    }
  });
});

describe('gate-stdio with server-filesystem on a temporary folder', { timeout: 60_000 }, () => {
  let shim;
  let dir;
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-stdio-fs-'));
    writeFileSync(path.join(dir, 'hello.txt'), 'hello from disk\n');
    shim = await startShim({ command: [NODE, FILESYSTEM_ENTRY, dir] });
  });
  after(async () => {
    await shim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('lists, reads and writes files', async () => {
    const client = await connectClient(shim.url);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'read_text_file'));
      const listing = await client.callTool({ name: 'list_directory', arguments: { path: dir } });
      assert.match(text(listing), /hello\.txt/);
      const read = await client.callTool({ name: 'read_text_file', arguments: { path: path.join(dir, 'hello.txt') } });
      assert.match(text(read), /hello from disk/);
      await client.callTool({ name: 'write_file', arguments: { path: path.join(dir, 'new.txt'), content: 'written' } });
      assert.equal(readFileSync(path.join(dir, 'new.txt'), 'utf8'), 'written');
      const outside = await client.callTool({ name: 'read_text_file', arguments: { path: '/etc/hostname' } });
      assert.equal(outside.isError, true);
    } finally {
      await client.close();
    }
  });
});

describe('gate federating gate-stdio', { timeout: 120_000 }, () => {
  let shim;
  let up;
  let gate;
  before(async () => {
    shim = await startShim({ command: [NODE, EVERYTHING_ENTRY, 'stdio'] });
    up = await startEverything();
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'local', url: shim.url, namespace: 'local' },
          { id: 'remote', url: up.url, namespace: 'remote' },
        ],
      },
    });
  });
  after(async () => {
    await gate?.stop();
    await up?.stop();
    await shim?.stop();
  });

  test('tools of both upstreams, calls routed to the shimmed server', async () => {
    const client = await connectClient(gate.url);
    try {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      assert.ok(names.some((n) => n.startsWith('local') && n.endsWith('echo')), names.join(','));
      assert.ok(names.some((n) => n.startsWith('remote') && n.endsWith('echo')), names.join(','));
      const localEcho = names.find((n) => n.startsWith('local') && n.endsWith('echo'));
      const r = await client.callTool({ name: localEcho, arguments: { message: 'via gate and shim' } });
      assert.equal(text(r), 'Echo: via gate and shim');
      // The gateway's root session on the shim runs one child.
      assert.ok(liveChildrenOf(shim.pid).length >= 1);
    } finally {
      await client.close();
    }
  });
});

describe('gate-stdio sessions and processes (stdio test server)', { timeout: 240_000 }, () => {
  let shim;
  before(async () => {
    shim = await startShim({ args: ['--max-sessions', '8'], command: [STDIO_TEST_SERVER] });
  });
  after(async () => {
    await shim?.stop();
  });

  test('two sessions at once run separate children with separate state', async () => {
    const a = await openRawSession(shim.url);
    const b = await openRawSession(shim.url);
    const wa = await whoami(shim.url, a);
    const wb = await whoami(shim.url, b);
    assert.notEqual(wa.pid, wb.pid);
    assert.equal(wa.pgid, wa.pid);
    assert.equal(wb.pgid, wb.pid);
    assert.notEqual(wa.pgid, process.pid);
    assert.equal(await callTool(shim.url, a, 'count'), '1');
    assert.equal(await callTool(shim.url, a, 'count'), '2');
    assert.equal(await callTool(shim.url, b, 'count'), '1');
    assert.equal(await del(shim.url, a), 200);
    assert.equal(await del(shim.url, b), 200);
    await eventually(() => liveInGroup(wa.pid) === 0 && liveInGroup(wb.pid) === 0, { what: 'both groups empty' });
  });

  test('DELETE takes the child and its grandchild', async () => {
    const s = await openRawSession(shim.url);
    const { pid } = await whoami(shim.url, s);
    await callTool(shim.url, s, 'grandchild');
    assert.equal(liveInGroup(pid), 2);
    assert.equal(await del(shim.url, s), 200);
    await eventually(() => liveInGroup(pid) === 0, { what: `group ${pid} empty` });
    const after = await post(shim.url, rpc('ping'), s.headers);
    assert.equal(after.status, 404);
    assert.equal(await del(shim.url, s), 404);
  });

  test('a child killed with SIGKILL ends its session and leaves nothing behind', async () => {
    const s = await openRawSession(shim.url);
    const { pid } = await whoami(shim.url, s);
    await callTool(shim.url, s, 'grandchild');
    process.kill(pid, 'SIGKILL');
    await shim.proc.stderr.waitFor(new RegExp(`killed by signal 9.*unexpectedly|unexpectedly.*signal 9`), { timeoutMs: 10_000 });
    await eventually(() => liveInGroup(pid) === 0, { what: `group ${pid} empty` });
    const r = await post(shim.url, rpc('ping'), s.headers);
    assert.equal(r.status, 404);
  });

  test('a request in flight when the child crashes gets a JSON-RPC error', async () => {
    const s = await openRawSession(shim.url);
    const r = await post(shim.url, rpc('tools/call', { name: 'crash', arguments: {} }, 'boom'), s.headers);
    assert.equal(r.status, 200);
    assert.equal(r.json.id, 'boom');
    assert.equal(r.json.error.code, -32603);
    assert.match(r.json.error.message, /exited with status 7/);
  });

  test('a server request outside any call waits for the GET stream', async () => {
    // The test server's "ask" sends sampling/createMessage; with a JSON-only client the
    // request cannot ride on the call, so it is held for the session's GET stream.
    const s = await openRawSession(shim.url);
    const call = post(shim.url, rpc('tools/call', { name: 'ask', arguments: {} }, 'ask-call'), {
      ...s.headers,
      accept: 'application/json',
    });
    const res = await fetch(shim.url, { headers: { ...s.headers, accept: 'text/event-stream' } });
    assert.equal(res.status, 200);
    const reader = res.body.getReader();
    let buf = '';
    while (!buf.includes('sampling/createMessage')) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'stream ended early');
      buf += Buffer.from(value).toString();
    }
    const req = JSON.parse(buf.split('\n').find((l) => l.startsWith('data:') && l.includes('sampling')).slice(5));
    const second = await fetch(shim.url, { headers: { ...s.headers, accept: 'text/event-stream' } });
    assert.equal(second.status, 409);
    const answer = await post(
      shim.url,
      { jsonrpc: '2.0', id: req.id, result: { role: 'assistant', content: { type: 'text', text: 'pong' }, model: 'm' } },
      s.headers,
    );
    assert.equal(answer.status, 202);
    const r = await call;
    assert.equal(r.json.id, 'ask-call');
    assert.equal(text(r.json.result), 'client said: pong');
    await reader.cancel();
    assert.equal(await del(shim.url, s), 200);
  });

  test('without --env-passthrough the child starts with an empty environment, whatever the shim holds', async () => {
    assert.ok(process.env.PATH, 'the shim runs with an environment of its own');
    const s = await openRawSession(shim.url);
    assert.deepEqual(JSON.parse(await callTool(shim.url, s, 'env')), {});
    assert.equal(await del(shim.url, s), 200);
  });

  test('a child holds only its three pipes, starts with no signal blocked or ignored, and leads a group apart from the shim', async () => {
    // Meanwhile the shim holds another session's pipes and a client's open stream: none of it
    // may reach the child (nor its grandchild).
    const other = await openRawSession(shim.url);
    const stream = await fetch(shim.url, { headers: { ...other.headers, accept: 'text/event-stream' } });
    assert.equal(stream.status, 200);
    const s = await openRawSession(shim.url);
    const { pid, pgid } = await whoami(shim.url, s);
    const grandchild = Number(await callTool(shim.url, s, 'grandchild'));
    const fds = (p) => readdirSync(`/proc/${p}/fd`).sort();
    assert.deepEqual(fds(pid), ['0', '1', '2']);
    for (const fd of ['0', '1', '2']) assert.match(readlinkSync(`/proc/${pid}/fd/${fd}`), /^pipe:/);
    assert.deepEqual(fds(grandchild), ['0', '1', '2']);
    // Signals 1-31 (32 and up are the C library's own, set aside by posix_spawn).
    const standard = (1n << 31n) - 1n;
    const mask = (p, field) => BigInt(`0x${new RegExp(`^${field}:\\s*([0-9a-f]+)$`, 'm').exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]}`);
    assert.notEqual(mask(shim.pid, 'SigIgn') & (1n << 12n), 0n, 'the shim itself ignores SIGPIPE');
    assert.equal(mask(pid, 'SigIgn') & standard, 0n, 'no signal ignored in the child');
    assert.equal(mask(pid, 'SigBlk') & standard, 0n, 'no signal blocked in the child');
    const table = processTable();
    assert.equal(pgid, pid, 'the child leads its group');
    assert.notEqual(table.find((p) => p.pid === shim.pid).pgrp, pgid, "not the shim's group");
    assert.equal(table.find((p) => p.pid === grandchild).pgrp, pid, 'the grandchild stays in it');
    await stream.body.cancel();
    assert.equal(await del(shim.url, s), 200);
    assert.equal(await del(shim.url, other), 200);
    await eventually(() => liveInGroup(pid) === 0, { what: `group ${pid} empty` });
  });

  test('1,000 sessions opened and closed leave no process behind', async () => {
    const pids = [];
    for (let i = 0; i < 1000; i++) {
      const init = await post(shim.url, initializeRequest());
      assert.equal(init.status, 200, init.text);
      const headers = { 'mcp-session-id': init.headers['mcp-session-id'] };
      if (i % 100 === 0) pids.push((await whoami(shim.url, { headers })).pid);
      const res = await fetch(shim.url, { method: 'DELETE', headers, signal: AbortSignal.timeout(5000) });
      assert.equal(res.status, 200);
    }
    await eventually(() => liveChildrenOf(shim.pid).length === 0, { what: 'no child of the shim', timeoutMs: 30_000 });
    for (const pid of pids) assert.equal(liveInGroup(pid), 0);
    const metrics = await get(`${shim.base}/metrics`);
    const spawned = Number(/^gate_stdio_spawned_total (\d+)/m.exec(metrics.text)[1]);
    assert.ok(spawned >= 1000, `spawned ${spawned}`);
    assert.match(metrics.text, /^gate_stdio_sessions 0$/m);
  });
});

describe('gate-stdio refusals', { timeout: 120_000 }, () => {
  let shim;
  before(async () => {
    shim = await startShim({ args: ['--max-sessions', '1', '--max-body-bytes', '4096'], command: [STDIO_TEST_SERVER] });
  });
  after(async () => {
    await shim?.stop();
  });

  test('POST without Content-Type application/json: 415', async () => {
    const r = await rawRequest(shim.url, { headers: { 'content-type': 'text/plain' }, body: JSON.stringify(initializeRequest()) });
    assert.equal(r.status, 415);
    assert.match(r.text, /application\/json/);
  });

  test('a foreign Host or a cross-origin request: 403', async () => {
    const host = await rawRequest(shim.url, { headers: { host: 'evil.example:80' }, body: JSON.stringify(initializeRequest()) });
    assert.equal(host.status, 403);
    const origin = await rawRequest(shim.url, { headers: { origin: 'https://evil.example' }, body: JSON.stringify(initializeRequest()) });
    assert.equal(origin.status, 403);
    const local = await rawRequest(shim.url, { method: 'GET', headers: { origin: 'http://localhost:3000', accept: 'text/event-stream' } });
    assert.equal(local.status, 400); // allowed through; no session header
  });

  test('a body over the cap: 413', async () => {
    const big = JSON.stringify(rpc('ping', { pad: 'x'.repeat(8192) }));
    const r = await rawRequest(shim.url, { body: big });
    assert.equal(r.status, 413);
  });

  test('at the session ceiling: 503 with Retry-After; the slot frees once the child is reaped', async () => {
    const s = await openRawSession(shim.url);
    const { pid } = await whoami(shim.url, s);
    const full = await post(shim.url, initializeRequest());
    assert.equal(full.status, 503);
    assert.ok(Number(full.headers['retry-after']) > 0);
    assert.equal(await del(shim.url, s), 200);
    // The shim logs the reap and frees the slot in the same step.
    const tag = s.sessionId.slice(0, 8);
    await shim.proc.stderr.waitFor(new RegExp(`session ${tag}: child `), { timeoutMs: 10_000 });
    assert.equal(liveInGroup(pid), 0);
    const again = await post(shim.url, initializeRequest());
    assert.equal(again.status, 200);
    await fetch(shim.url, { method: 'DELETE', headers: { 'mcp-session-id': again.headers['mcp-session-id'] } });
    // Leave the one slot free for the next test.
    await shim.proc.stderr.waitFor(new RegExp(`session ${again.headers['mcp-session-id'].slice(0, 8)}: child `), { timeoutMs: 10_000 });
    const metrics = await get(`${shim.base}/metrics`);
    assert.match(metrics.text, /gate_stdio_rejected_total\{reason="session_limit"\} [1-9]/);
  });

  test('/metrics: the spec series, accepted by promtool', async () => {
    const r = await get(`${shim.base}/metrics`);
    assert.equal(r.status, 200);
    for (const series of [
      /^gate_stdio_sessions \d+$/m,
      /^gate_stdio_max_sessions 1$/m,
      /^gate_stdio_spawned_total \d+$/m,
      /^gate_stdio_spawn_errors_total 0$/m,
      /^gate_stdio_rejected_total\{reason="unsupported_media_type"\} [1-9]\d*$/m,
      /^gate_stdio_rejected_total\{reason="body_too_large"\} [1-9]\d*$/m,
      /^gate_stdio_build_info\{version="[^"]+"\} 1$/m,
      /^process_resident_memory_bytes \d+/m,
    ]) {
      assert.match(r.text, series);
    }
    const check = spawnSync('promtool', ['check', 'metrics'], { input: r.text, encoding: 'utf8' });
    assert.equal(check.error, undefined, `promtool could not run: ${check.error}`);
    assert.equal(check.status, 0, `promtool: ${check.stdout}${check.stderr}`);
  });

  test('no session header, unknown session, bad JSON, duplicate ids', async () => {
    assert.equal((await post(shim.url, rpc('tools/list'))).status, 400);
    assert.equal((await post(shim.url, rpc('tools/list'), { 'mcp-session-id': 'nope' })).status, 404);
    const bad = await post(shim.url, '{"jsonrpc":');
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.code, -32700);
    const wrong = await post(shim.url, { jsonrpc: '2.0', id: 1 });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.json.error.code, -32600);
    // Two requests with one id at once in one session: the second is refused.
    const s = await openRawSession(shim.url);
    const ask = post(shim.url, rpc('tools/call', { name: 'ask', arguments: {} }, 'same'), { ...s.headers, accept: 'application/json' });
    let dup;
    for (let i = 0; i < 50; i++) {
      dup = await post(shim.url, rpc('ping', undefined, 'same'), s.headers);
      if (dup.status === 400) break;
    }
    assert.equal(dup.status, 400);
    assert.equal(dup.json.error.code, -32600);
    assert.match(dup.json.error.message, /already in use/);
    assert.equal(await del(shim.url, s), 200);
    const ended = await ask;
    assert.equal(ended.json.error.code, -32603);
  });
});

describe('gate-stdio bearer, environment and working directory', { timeout: 60_000 }, () => {
  let shim;
  let dir;
  const token = 'tok-' + Math.random().toString(36).slice(2);
  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gate-stdio-dir-'));
    shim = await startShim({
      args: ['--bearer-env', 'SHIM_TOKEN', '--env-passthrough', 'VISIBLE_ONE,ABSENT_ONE', '--dir', dir],
      command: [STDIO_TEST_SERVER],
      env: { ...process.env, SHIM_TOKEN: token, VISIBLE_ONE: 'yes', HIDDEN_ONE: 'no' },
    });
  });
  after(async () => {
    await shim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a missing or wrong bearer: 401 with a challenge', async () => {
    const none = await post(shim.url, initializeRequest());
    assert.equal(none.status, 401);
    assert.match(none.headers['www-authenticate'], /^Bearer/);
    const wrong = await post(shim.url, initializeRequest(), { authorization: `Bearer ${token}x` });
    assert.equal(wrong.status, 401);
  });

  test('the child sees only the variables named, not the token, and runs in --dir', async () => {
    const s = await openRawSession(shim.url, { authorization: `Bearer ${token}` });
    const env = JSON.parse(await callTool(shim.url, s, 'env'));
    assert.deepEqual(env, { VISIBLE_ONE: 'yes' });
    assert.equal(await callTool(shim.url, s, 'cwd'), dir);
    assert.equal(await del(shim.url, s), 200);
  });
});

describe('gate-stdio under a parent that ignores signals', { timeout: 30_000 }, () => {
  // docs/shim.md: the child starts "with every signal at its default". An ignored signal
  // survives exec, so what a supervisor (nohup, a shell's trap) left ignored in the shim
  // reaches the child unless the shim resets it (shim/spawn.cpp resets signals 1 to 31).
  test('the child starts with every standard signal at its default', async () => {
    const proc = spawnTracked('/bin/sh', ['-c', 'trap "" HUP USR1 ALRM TTOU; exec "$0" "$@"', SHIM_BIN, '--port', '0', '--', STDIO_TEST_SERVER], {
      name: 'gate-stdio (signals ignored)',
    });
    try {
      const m = await proc.stderr.waitFor(/listening on http:\/\/[^\/\s]+:(\d+)\/mcp/);
      const url = `http://127.0.0.1:${m[1]}/mcp`;
      const ignored = (p) => BigInt(`0x${/^SigIgn:\s*([0-9a-f]+)$/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))[1]}`) & ((1n << 31n) - 1n);
      const bit = (signal) => 1n << BigInt(signal - 1);
      assert.equal(ignored(proc.pid) & bit(10), bit(10), 'SIGUSR1 is ignored in the shim');
      const s = await openRawSession(url);
      const { pid } = await whoami(url, s);
      assert.equal(ignored(pid), 0n, `signals ignored in the child: 0x${ignored(pid).toString(16)}`);
    } finally {
      await stopChecked(proc);
    }
  });
});

describe('gate-stdio start-up checks and --probe', { timeout: 60_000 }, () => {
  test('beyond loopback without --bearer-env: exit 2 with the reason', async () => {
    const r = await runShim(['--host', '0.0.0.0', '--port', '0', '--', STDIO_TEST_SERVER]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--bearer-env/);
  });

  test('--probe: 0 for a working server, non-zero with the reason otherwise', async () => {
    const ok = await runShim(['--probe', '--', STDIO_TEST_SERVER]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /probe ok: stdio-test 1\.0\.0/);
    const everything = await runShim(['--probe', '--', NODE, EVERYTHING_ENTRY, 'stdio']);
    assert.equal(everything.code, 0, everything.stderr);
    const missing = await runShim(['--probe', '--', '/nonexistent/server']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /No such file or directory/);
    const quits = await runShim(['--probe', '--', STDIO_TEST_SERVER, '--exit-at-once']);
    assert.notEqual(quits.code, 0);
    assert.match(quits.stderr, /exited with status 3 before answering initialize/);
  });

  test('/health: 200 when the server runs, 503 when it cannot', async () => {
    const good = await startShim({ command: [STDIO_TEST_SERVER] });
    const bad = await startShim({ command: [STDIO_TEST_SERVER, '--exit-at-once'] });
    try {
      const g = await get(`${good.base}/health`);
      assert.equal(g.status, 200);
      assert.equal(JSON.parse(g.text).status, 'ok');
      const b = await get(`${bad.base}/health`);
      assert.equal(b.status, 503);
      const body = JSON.parse(b.text);
      assert.equal(body.maxSessions, 64);
      assert.match(body.error, /exited with status 3/);
      // The probes left no process behind.
      await eventually(() => liveChildrenOf(good.pid).length === 0 && liveChildrenOf(bad.pid).length === 0, {
        what: 'probe children reaped',
      });
    } finally {
      await good.stop();
      await bad.stop();
    }
  });

  test('SIGTERM ends every session, reaps every child and exits 0', async () => {
    const shim = await startShim({ command: [STDIO_TEST_SERVER] });
    const groups = [];
    for (let i = 0; i < 3; i++) {
      const s = await openRawSession(shim.url);
      groups.push((await whoami(shim.url, s)).pid);
      await callTool(shim.url, s, 'grandchild');
    }
    const r = await shim.stop();
    assert.equal(r.code, 0);
    await eventually(() => groups.every((g) => liveInGroup(g) === 0), { what: 'every group empty' });
  });
});
