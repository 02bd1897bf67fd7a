// gate-stdio's bounds against a flooding child (tests/support's stdio_mcp_server: `flood`
// writes log notifications, `shout` writes stderr lines, `babble` stdout lines that are not
// JSON-RPC, as fast as the pipes take them): what a session holds toward a client that stops
// reading (docs/shim.md, "Bounds"), and how much of a child's stderr and stray stdout reaches
// the log.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';

import { STDIO_TEST_SERVER, eventually, get, metric, openRawSession, post, rpc, startShim } from './lib/index.mjs';

const MiB = 1024 * 1024;
// The shim's bound on what a session holds toward its client (docs/shim.md).
const SESSION_BOUND = 16 * MiB;
// What the flood writes: four times the bound, 1 KiB per message.
const FLOOD = { count: 64 * 1024, bytes: 1024 };

function rss(pid) {
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;
}

// Resident memory means something only with the production allocator (jemalloc): under ASan
// every freed block sits in a quarantine, and TSan's shadow multiplies what is touched. The
// sanitizer builds check the cuts and counts, not the bytes.
function measurable(pid) {
  return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('libjemalloc');
}

// A request whose client never reads the answer: written, then the socket is paused, so the
// kernel's buffers fill and the shim's writes stall. With `head`, the answer's head is read
// first (a GET stream is open once it arrives). `rest()` reads what was sent until the shim
// closes the connection.
function unreadRequest(port, { method = 'POST', headers, body, head = false }) {
  return new Promise((resolve, reject) => {
    const parts = [];
    const socket = net.connect(port, '127.0.0.1', () => {
      const lines = [`${method} /mcp HTTP/1.1`, `Host: 127.0.0.1:${port}`];
      for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
      if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
      socket.write(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
      const rest = () =>
        new Promise((done) => {
          socket.on('data', (d) => parts.push(d));
          socket.on('error', () => {}); // a reset after the cut: keep what arrived
          socket.on('close', () => done(Buffer.concat(parts).toString('latin1')));
          socket.resume();
        });
      if (!head) {
        socket.pause();
        resolve({ socket, rest });
        return;
      }
      const onHead = (d) => {
        parts.push(d);
        if (!Buffer.concat(parts).includes('\r\n\r\n')) return;
        socket.off('data', onHead);
        socket.pause();
        resolve({ socket, rest });
      };
      socket.on('data', onHead);
    });
    socket.on('error', reject);
  });
}

async function metrics(shim) {
  return (await get(`${shim.base}/metrics`)).text;
}

// Waits for a log line of the shim matching `re`, failing at once when the shim's memory grows
// by more than `bound` over `base` meanwhile; returns the largest growth seen.
async function watchMemory(shim, base, bound, re) {
  let peak = 0;
  const check = measurable(shim.pid);
  await eventually(
    () => {
      peak = Math.max(peak, rss(shim.pid) - base);
      if (check) assert.ok(peak < bound, `the shim grew by ${Math.round(peak / MiB)} MiB (bound ${bound / MiB} MiB)`);
      return shim.proc.stderr.lines.some((l) => re.test(l));
    },
    { everyMs: 5, timeoutMs: 20_000, what: `a log line matching ${re}` },
  );
  return peak;
}

describe('gate-stdio bounds (stdio test server)', { timeout: 120_000 }, () => {
  let shim;
  before(async () => {
    shim = await startShim({ command: [STDIO_TEST_SERVER] });
  });
  after(async () => {
    await shim?.stop();
  });

  test('a client that stops reading its POST event stream is cut at the session bound; memory stays bounded', async () => {
    const s = await openRawSession(shim.url);
    const tag = s.sessionId.slice(0, 8);
    const before = await metrics(shim);
    const base = rss(shim.pid);
    const call = await unreadRequest(shim.port, {
      headers: { ...s.headers, accept: 'application/json, text/event-stream' },
      body: JSON.stringify(rpc('tools/call', { name: 'flood', arguments: FLOOD }, 'flood')),
    });
    const peak = await watchMemory(shim, base, 3 * SESSION_BOUND, new RegExp(`session ${tag}: the client is not reading its POST's event stream`));
    // The stream ends without its last chunk, and without the call's answer.
    const sent = await call.rest();
    assert.match(sent, /^HTTP\/1\.1 200 /);
    assert.match(sent, /content-type: text\/event-stream/i);
    assert.doesNotMatch(sent, /\r\n0\r\n\r\n$/);
    assert.doesNotMatch(sent, /"id":"flood"/);
    // The session goes on: the flood's remainder had nowhere to go (no GET stream) and is
    // dropped, counted; the next call is answered by the same child.
    const r = await post(shim.url, rpc('tools/call', { name: 'count', arguments: {} }), { ...s.headers, accept: 'application/json' }, { timeoutMs: 30_000 });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.content[0].text, '1');
    const after = await metrics(shim);
    const delta = (name, labels) => metric(after, name, labels) - metric(before, name, labels);
    assert.equal(delta('gate_stdio_streams_cut_total', { reason: 'queue_full' }), 1);
    assert.ok(delta('gate_stdio_messages_dropped_total', { reason: 'backlog_full' }) > 0);
    assert.ok(delta('gate_stdio_messages_dropped_total', { reason: 'stream_cut' }) > 0);
    // What it held goes back to the system, not just to the allocator.
    if (measurable(shim.pid)) {
      await eventually(() => rss(shim.pid) - base < 4 * MiB, { timeoutMs: 5_000, what: 'the memory given back' });
    }
    console.log(`POST stream: the shim grew by at most ${(peak / MiB).toFixed(1)} MiB`);
    assert.equal((await fetch(shim.url, { method: 'DELETE', headers: s.headers })).status, 200);
  });

  test('a client that stops reading its GET stream is cut at the session bound; the calls go on', async () => {
    const s = await openRawSession(shim.url);
    const tag = s.sessionId.slice(0, 8);
    const before = await metrics(shim);
    const base = rss(shim.pid);
    const stream = await unreadRequest(shim.port, { method: 'GET', headers: { ...s.headers, accept: 'text/event-stream' }, head: true });
    // A JSON-only call: its log notifications go to the GET stream, which is not read.
    const call = post(shim.url, rpc('tools/call', { name: 'flood', arguments: FLOOD }), { ...s.headers, accept: 'application/json' }, { timeoutMs: 30_000 });
    const peak = await watchMemory(shim, base, 3 * SESSION_BOUND, new RegExp(`session ${tag}: the client is not reading its GET stream`));
    const r = await call;
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.content[0].text, 'flooded');
    const sent = await stream.rest();
    assert.match(sent, /^HTTP\/1\.1 200 /);
    assert.doesNotMatch(sent, /\r\n0\r\n\r\n$/);
    const after = await metrics(shim);
    assert.equal(metric(after, 'gate_stdio_streams_cut_total', { reason: 'queue_full' }) - metric(before, 'gate_stdio_streams_cut_total', { reason: 'queue_full' }), 1);
    console.log(`GET stream: the shim grew by at most ${(peak / MiB).toFixed(1)} MiB`);
    assert.equal((await fetch(shim.url, { method: 'DELETE', headers: s.headers })).status, 200);
  });

  test('a child flooding stderr: the log takes a burst then 10 lines a second, one clipped line each, and counts the rest', async () => {
    const s = await openRawSession(shim.url);
    const tag = s.sessionId.slice(0, 8);
    const before = await metrics(shim);
    const started = Date.now();
    // One line of 100,000 bytes: logged as its first 1 KiB and its length.
    const long = await post(shim.url, rpc('tools/call', { name: 'shout', arguments: { count: 1, bytes: 100_000 } }), s.headers);
    assert.equal(long.status, 200, long.text);
    const flood = 20_000;
    const r = await post(shim.url, rpc('tools/call', { name: 'shout', arguments: { count: flood, bytes: 100 } }), s.headers);
    assert.equal(r.status, 200, r.text);
    assert.equal((await fetch(shim.url, { method: 'DELETE', headers: s.headers })).status, 200);
    // The count of what was held back is reported when the child ends, before it is reaped.
    await shim.proc.stderr.waitFor(new RegExp(`session ${tag}: child `), { timeoutMs: 10_000 });
    const seconds = (Date.now() - started) / 1000;

    const mine = shim.proc.stderr.lines.filter((l) => l.includes(`session ${tag}`));
    const logged = mine.filter((l) => l.includes(`session ${tag} stderr: `));
    const reports = mine.map((l) => new RegExp(`session ${tag}: (\\d+) stderr lines? suppressed`).exec(l)).filter(Boolean);
    const suppressed = reports.reduce((n, m) => n + Number(m[1]), 0);
    // The child wrote its "ready" line, the long line and the flood: each one is either in the
    // log or counted.
    assert.equal(logged.length + suppressed, 1 + 1 + flood);
    assert.ok(logged.length <= 100 + 10 * seconds + 1, `${logged.length} lines logged in ${seconds} s`);
    assert.ok(reports.length >= 2, 'reported when the limit started holding back and at the end');
    const longLine = logged.find((l) => l.includes('(100000 bytes)'));
    assert.ok(longLine, 'the long line is logged with its length');
    assert.ok(longLine.length < 1200, `the long line took ${longLine.length} characters`);
    const after = await metrics(shim);
    assert.equal(
      metric(after, 'gate_stdio_stderr_lines_suppressed_total', {}) - metric(before, 'gate_stdio_stderr_lines_suppressed_total', {}),
      suppressed,
    );
  });

  test('a child flooding stdout with lines that are not JSON-RPC: the same limit, every line counted, control characters escaped', async () => {
    const s = await openRawSession(shim.url);
    const tag = s.sessionId.slice(0, 8);
    const before = await metrics(shim);
    const started = Date.now();
    const flood = 20_000;
    const r = await post(shim.url, rpc('tools/call', { name: 'babble', arguments: { count: flood } }), s.headers);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.result.content[0].text, 'babbled');
    assert.equal((await fetch(shim.url, { method: 'DELETE', headers: s.headers })).status, 200);
    await shim.proc.stderr.waitFor(new RegExp(`session ${tag}: child `), { timeoutMs: 10_000 });
    const seconds = (Date.now() - started) / 1000;

    const mine = shim.proc.stderr.lines.filter((l) => l.includes(`session ${tag}`));
    const logged = mine.filter((l) => /the server wrote a line that is not JSON(-RPC)?, dropped: /.test(l));
    const reports = mine.map((l) => new RegExp(`session ${tag}: (\\d+) non-JSON-RPC stdout lines? suppressed`).exec(l)).filter(Boolean);
    const suppressed = reports.reduce((n, m) => n + Number(m[1]), 0);
    assert.equal(logged.length + suppressed, flood, `${logged.length} logged, ${suppressed} reported suppressed`);
    assert.ok(logged.length <= 100 + 10 * seconds + 1, `${logged.length} lines logged in ${seconds} s`);
    assert.ok(reports.length >= 2, 'reported when the limit started holding back and at the end');
    // Each logged line whole, on one line of the log, its control characters written out:
    // a raw CR would have split it, a raw ESC or BEL reached the terminal.
    for (const l of logged) {
      assert.match(l, /dropped: (\\x1b\[2K\\x0dbabble \d+\\x07|\{"babble":\\x0d\d+\})$/, l);
    }
    assert.ok(mine.every((l) => !/[\x00-\x08\x0b-\x1f\x7f]/.test(l)), 'no raw control character in the log');
    const after = await metrics(shim);
    const delta = (name, labels) => metric(after, name, labels) - metric(before, name, labels);
    assert.equal(delta('gate_stdio_messages_dropped_total', { reason: 'not_json_rpc' }), flood);
    assert.equal(delta('gate_stdio_stdout_lines_suppressed_total', {}), suppressed);
    // The stderr bucket is the child's own: its stdout took nothing from it.
    assert.equal(delta('gate_stdio_stderr_lines_suppressed_total', {}), 0);
  });
});
