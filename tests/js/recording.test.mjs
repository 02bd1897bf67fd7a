// gate --record against the real binary: principals from a test identity provider, real SDK
// clients, server-everything upstream. Every message a client sent is one request line with
// its principal (no token), its session as a hash, its params with secret-named members
// redacted; every upstream request it caused is an answer line naming it. The size cap
// rotates the file to FILE.1; bad options are refused before gate serves.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { connectClient, eventually, get, metric, openRawSession, post, rpc, runGate, startEverything, startGate, startIdp } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

const linesOf = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

describe('recording', { timeout: 120_000 }, () => {
  let everything;
  let idp;
  let dir;
  before(async () => {
    everything = await startEverything();
    idp = await startIdp();
    dir = mkdtempSync(path.join(tmpdir(), 'gate-recording-'));
  });
  after(async () => {
    await idp?.stop();
    await everything?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('each message with its principal and the upstream answers it caused, secrets left out', async () => {
    const file = path.join(dir, 'traffic.jsonl');
    const gate = await startGate({
      config: {
        upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }],
        audit: { sinks: [{ type: 'stdout' }] },
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
      },
      args: ['--record', file],
    });
    const token = await idp.mint({ aud: RESOURCE, sub: 'alice', groups: ['eng'], tier: 'gold' });
    const client = await connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const sessionId = client.transport.sessionId;
    await client.listTools();
    const echoed = await client.callTool({ name: 'ev__echo', arguments: { message: 'recorded', password: 'hunter2' } });
    assert.match(JSON.stringify(echoed.content), /recorded/);
    await client.close();
    await gate.stop(); // SIGTERM: what the recorder and the audit sink hold is written first
    const audited = gate.auditEvents().filter((e) => e.method !== 'http');

    const text = readFileSync(file, 'utf8');
    for (const secret of [token, 'hunter2', sessionId]) assert.ok(!text.includes(secret), `the recording holds ${secret.slice(0, 12)}...`);
    const lines = linesOf(file);
    const requests = lines.filter((l) => l.kind === 'request');
    const answers = lines.filter((l) => l.kind === 'answer');
    // One request line per audited message, in order, with the same method and outcome.
    assert.deepEqual(
      requests.map((r) => [r.message.method ?? 'response', r.outcome]),
      audited.map((e) => [e.method, e.outcome]),
    );
    assert.deepEqual(
      requests.map((r) => r.seq),
      requests.map((_, i) => i + 1),
    );
    for (const r of requests) {
      assert.ok(!Number.isNaN(Date.parse(r.at)), r.at);
      // Registered claims (exp, iat, ...) and structured ones (groups) are not among `claims`.
      assert.deepEqual(r.principal, { sub: 'alice', iss: idp.issuer, groups: ['eng'], claims: { tier: 'gold' } });
    }
    const sessions = new Set(requests.filter((r) => r.message.method !== 'initialize').map((r) => r.session));
    assert.equal(sessions.size, 1, 'one client: one session alias');
    assert.match([...sessions][0], /^[0-9a-f]{16}$/);

    const call = requests.find((r) => r.message.method === 'tools/call');
    assert.deepEqual(call.message.params.arguments, { message: 'recorded', password: '[redacted]' });
    assert.equal(call.upstream, 'ev');
    const callAnswers = answers.filter((a) => a.request === call.seq);
    assert.equal(callAnswers.length, 1, JSON.stringify(answers));
    assert.equal(callAnswers[0].upstream, 'ev');
    assert.equal(callAnswers[0].method, 'tools/call');
    assert.deepEqual(callAnswers[0].params.arguments, { message: 'recorded', password: '[redacted]' });
    assert.equal(callAnswers[0].params.name, 'echo');
    assert.match(JSON.stringify(callAnswers[0].reply.result), /recorded/);

    const list = requests.find((r) => r.message.method === 'tools/list');
    const listAnswers = answers.filter((a) => a.request === list.seq);
    assert.ok(listAnswers.length >= 1, 'the list fetched from the upstream is recorded with it');
    assert.ok(listAnswers.every((a) => a.method === 'tools/list' && Array.isArray(a.reply.result.tools)));
  });

  test('the size cap rotates the file to FILE.1; the two hold the latest events in order', async () => {
    const file = path.join(dir, 'capped.jsonl');
    const cap = 8192;
    const gate = await startGate({
      config: { upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }] },
      args: ['--record', file, '--record-max-bytes', String(cap)],
    });
    const s = await openRawSession(gate.url);
    for (let i = 0; i < 40; i++) {
      const r = await post(gate.url, rpc('tools/call', { name: 'ev__echo', arguments: { message: `${i}`.padStart(200, '.') } }), s.headers);
      assert.equal(r.status, 200);
    }
    await gate.stop();
    assert.ok(existsSync(`${file}.1`), 'rotated');
    for (const f of [file, `${file}.1`]) assert.ok(statSync(f).size <= cap, `${f} is ${statSync(f).size} bytes`);
    const older = linesOf(`${file}.1`).filter((l) => l.kind === 'request');
    const newer = linesOf(file).filter((l) => l.kind === 'request');
    const seqs = [...older, ...newer].map((r) => r.seq);
    const last = seqs.at(-1);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => last - seqs.length + 1 + i),
      'contiguous, oldest first, ending with the last request',
    );
    assert.ok(last >= 42, `initialize, initialized and 40 calls: ${last}`);
  });

  test('events written are counted; without --record nothing is', async () => {
    const file = path.join(dir, 'counted.jsonl');
    const recording = await startGate({
      config: { upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }] },
      args: ['--record', file],
    });
    const plain = await startGate({ config: { upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }] } });
    try {
      for (const g of [recording, plain]) {
        const s = await openRawSession(g.url);
        assert.equal((await post(g.url, rpc('tools/list'), s.headers)).status, 200);
      }
      const written = async (g) => metric((await get(`${g.base}/metrics`)).text, 'gate_recording_events_total', { outcome: 'written' });
      // Events reach the file through the recorder actor, after the answers.
      await eventually(async () => (await written(recording)) >= 3, { what: 'initialize, initialized, tools/list (and its answer) written' });
      assert.equal(await written(plain), 0);
    } finally {
      await recording.stop();
      await plain.stop();
    }
    assert.equal(linesOf(file).filter((l) => l.kind === 'request').length, 3);
  });

  test('bad options are refused before gate serves', async () => {
    const config = JSON.stringify({ upstreams: [{ id: 'ev', url: everything.url, namespace: 'ev' }] });
    const noRecord = await runGate(['--record-max-bytes', '100000'], { env: { GATE_CONFIG: config } });
    assert.equal(noRecord.code, 2, noRecord.stderr);
    assert.match(noRecord.stderr, /--record-max-bytes needs --record/);
    const tiny = await runGate(['--record', path.join(dir, 'x.jsonl'), '--record-max-bytes', '100'], { env: { GATE_CONFIG: config } });
    assert.equal(tiny.code, 2, tiny.stderr);
    assert.match(tiny.stderr, /--record-max-bytes must be an integer of at least 4096, got "100"/);
    const unwritable = await runGate(['--record', path.join(dir, 'missing', 'x.jsonl'), '--port', '0'], { env: { GATE_CONFIG: config } });
    assert.equal(unwritable.code, 1, unwritable.stderr);
    assert.match(unwritable.stderr, /--record: cannot open .*missing\/x\.jsonl for writing: No such file or directory/);
  });
});
