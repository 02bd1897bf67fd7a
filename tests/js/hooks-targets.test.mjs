// gate-hooks' guards on what it keeps and where it delivers, against the real binary: the
// SQLite file and its side files readable by their owner only; a configuration file (every
// organization's token) others may read refused at start; a webhook URL whose host is
// not a host name (a percent-encoded NUL, CR LF, '@') refused at creation, at a change and at
// delivery; every spelling of a non-public target (numeric IPv4 forms, IPv6 forms carrying
// an IPv4 address, names that resolve to one, userinfo tricks) refused at creation or, when
// only resolving tells, at delivery (server-side request forgery). Nothing in this file may
// reach the receiver.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { lookup } from 'node:dns/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, test } from 'node:test';
import { DatabaseSync } from 'node:sqlite';

import { eventually, hooksBin, makeTestCa, startHooks, startReceiver } from './lib/index.mjs';

const SECRET = 'whsec-0123456789abcdef';

describe('gate-hooks guards its secrets and its targets', { timeout: 60_000 }, () => {
  let ca;
  let receiver;
  let strict; // private targets not allowed; trusts the test CA
  let untrusting; // private targets allowed; trusts only the system store; its database existed, 0644
  let looseDir;

  const mode = (file) => (statSync(file).mode & 0o777).toString(8);
  const create = (hooks, url, extra = {}) => hooks.api('POST', '/webhooks', { body: { event: 'deploy.success', url, ...extra } });
  const created = async (hooks, url) => {
    const r = await create(hooks, url);
    assert.equal(r.status, 201, r.text);
    return r.json;
  };
  // What the store holds, changed behind the API's back: a row written before a check existed.
  const storeUrl = (hooks, id, url) => {
    const db = new DatabaseSync(hooks.database);
    try {
      // gate-hooks' own writers (the delivery worker, the retention sweep) may hold the
      // write lock for a moment; wait for it as gate-hooks does, never fail on it.
      db.exec('PRAGMA busy_timeout = 5000');
      db.prepare('UPDATE webhooks SET url = ? WHERE id = ?').run(url, id);
    } finally {
      db.close();
    }
  };
  // Webhooks that must be created are named under .invalid (RFC 6761): an event this file
  // posts reaches them too, and their deliveries must not leave the machine.
  const testAction = async (hooks, id) => (await hooks.api('POST', `/webhooks/${id}/test`)).json;

  before(async () => {
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    looseDir = mkdtempSync(path.join(tmpdir(), 'gate-hooks-loose-'));
    const looseDb = path.join(looseDir, 'hooks.db');
    writeFileSync(looseDb, '');
    chmodSync(looseDb, 0o644);
    // The usual umask, under which SQLite left to itself makes 0644 files.
    const saved = process.umask(0o022);
    try {
      strict = await startHooks({ config: { delivery: { caFile: ca.caFile } } });
      untrusting = await startHooks({ dbPath: looseDb, config: { delivery: { allowPrivateTargets: true } } });
    } finally {
      process.umask(saved);
    }
  });

  afterEach(() => {
    assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
  });

  after(async () => {
    for (const h of [strict, untrusting]) {
      await h?.stop();
      h?.cleanup();
    }
    if (looseDir) rmSync(looseDir, { recursive: true, force: true });
    await receiver?.stop();
    ca?.cleanup();
  });

  test('the SQLite file and its -wal and -shm are readable by the owner only; an existing looser file is tightened, with a warning', async () => {
    await created(strict, 'https://hooks.invalid/in', { secret: SECRET });
    const db = strict.database;
    for (const file of [db, `${db}-wal`, `${db}-shm`]) assert.equal(mode(file), '600', file);
    // In WAL mode a rollback journal only appears while the mode is switched; if one is
    // there, it is the owner's alone too.
    if (existsSync(`${db}-journal`)) assert.equal(mode(`${db}-journal`), '600');
    await created(untrusting, 'https://hooks.invalid/in');
    for (const file of [untrusting.database, `${untrusting.database}-wal`, `${untrusting.database}-shm`]) assert.equal(mode(file), '600', file);
    assert.match(untrusting.proc.stderr.text(), /made \S+hooks\.db \(was 0644\) readable by its owner only: .*rotate them/);
  });

  test('a configuration file other users may read or change is refused at start, saying what to do', async () => {
    // It holds every organization's token. Written as docs/operations.md used to leave it
    // (umask 022: 0644), and the other ways others get in.
    const dir = mkdtempSync(path.join(tmpdir(), 'gate-hooks-config-mode-'));
    try {
      const file = path.join(dir, 'hooks.json');
      writeFileSync(file, JSON.stringify({ tokens: [{ organization: 'a', token: '0123456789abcdef' }], database: path.join(dir, 'hooks.db') }));
      for (const [m, how] of [[0o644, 'read'], [0o755, 'read'], [0o604, 'read'], [0o602, 'change']]) {
        chmodSync(file, m);
        const r = spawnSync(hooksBin(), ['--config', file, '--port', '0'], { encoding: 'utf8', timeout: 10_000 });
        assert.equal(r.status, 2, `${m.toString(8)}: ${r.stderr}`);
        assert.ok(
          r.stderr.includes(`gate-hooks: ${file} holds every organization's token and other users may ${how} it (mode 0${m.toString(8)}): gate-hooks does not start from it. Take their access away (chmod o-rwx ${file}; docs/operations.md installs it with install -m 0600), and give each organization a new token if others could read the file`),
          `${m.toString(8)}: ${r.stderr}`,
        );
        assert.equal(existsSync(path.join(dir, 'hooks.db')), false, 'nothing was opened or created');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Its owner's alone, or its group's too (0640 root:gate, as the package installs it): it starts.
    const grouped = await startHooks({ configMode: 0o640 });
    try {
      assert.equal((await grouped.api('GET', '/webhooks')).status, 200);
    } finally {
      await grouped.stop();
      grouped.cleanup();
    }
  });

  test('a url whose host is not a host name is refused at creation and at a change, saying which byte', async () => {
    const count = async () => (await strict.api('GET', '/webhooks')).json.webhooks.length;
    const kept = await created(strict, 'https://hooks.invalid/kept');
    const n = await count();
    for (const [url, says] of [
      [`https://127.0.0.1%00.evil.example:${receiver.port}/h`, /byte 0x00 \(NUL\) at position 10/],
      ['https://localhost%00.hooks.invalid/h', /byte 0x00 \(NUL\) at position 10/],
      ['https://hooks.example.com%0d%0aX-Injected:1/h', /control character 0x0d at position 18/],
      ['https://hooks.example.com%0a/h', /control character 0x0a/],
      ['https://hooks.example.com%40127.0.0.1/h', /'@' at position 18/],
      ['https://hooks.example.com%2f..%2fadmin/h', /'\/' at position 18/],
      ['https://hooks%20example.com/h', /' ' at position 6/],
      ['https://caf%C3%A9.example/h', /byte 0xc3 \(not ASCII\)/],
      ['https://hooks..example.com/h', /empty label/],
      ['https://[v1.fe80::1]/h', /IPvFuture/],
      // Where a URL parser would end an IP host or a port early and read the rest as a path.
      ['https://127.0.0.1.hooks.invalid/h', /127\.0\.0\.1\.hooks\.invalid begins like an IPv4 address/],
      [`https://127.0.0.1:${receiver.port}.hooks.invalid/h`, /is not a host/],
    ]) {
      const r = await create(strict, url);
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.json.error.code, 'invalid_field');
      assert.equal(r.json.error.field, 'url');
      assert.match(r.json.error.message, /^url must name a valid host: |^url must name a host by its name or IP address/, url);
      assert.match(r.json.error.message, says, url);
      const moved = await strict.api('PATCH', `/webhooks/${kept.id}`, { body: { url } });
      assert.equal(moved.status, 400, `${url}: ${moved.text}`);
      assert.equal(moved.json.error.field, 'url');
    }
    assert.equal(await count(), n, 'nothing was created');
    assert.equal((await strict.api('GET', `/webhooks/${kept.id}`)).json.url, 'https://hooks.invalid/kept', 'nothing was changed');
  });

  test('an IPv4 address with a trailing dot, with a port or not, is refused saying to write it without the dot', async () => {
    // glibc looks "127.0.0.1." up as a name in DNS: neither the address nor that lookup is
    // sure to be what was meant. Refused at creation and at a change, naming the fix.
    const kept = await created(strict, 'https://hooks.invalid/kept-dot');
    for (const url of [`https://127.0.0.1.:${receiver.port}/h`, 'https://127.0.0.1./h', 'https://10.0.0.1.:8443/', 'https://127.0.0.1.?q=1']) {
      const address = url.match(/^https:\/\/((?:\d+\.){3}\d+)\./)[1];
      for (const r of [await create(strict, url), await strict.api('PATCH', `/webhooks/${kept.id}`, { body: { url } })]) {
        assert.equal(r.status, 400, `${url}: ${r.text}`);
        assert.equal(r.json.error.field, 'url');
        assert.equal(r.json.error.message, `url must name a valid host: ${address}. is an IPv4 address with a trailing dot, which a resolver looks up as a name rather than reading it as the address: write the address without the dot (${address})`, url);
      }
    }
    // A name that ends in the root's dot is a name, and stays allowed.
    await created(strict, 'https://hooks.invalid./h');
  });

  test('a stored url that is refused now is refused again at delivery: a NUL in the host, an IPv4-translated address', async () => {
    // Private targets allowed: only the host check stands between the NUL and 127.0.0.1.
    const a = await created(untrusting, 'https://hooks.invalid/a');
    storeUrl(untrusting, a.id, `https://localhost%00.hooks.invalid:${receiver.port}/h`);
    const r1 = await testAction(untrusting, a.id);
    assert.equal(r1.success, false);
    assert.match(r1.error, /^the url must name a valid host: host has byte 0x00 \(NUL\) at position 10/);
    await untrusting.api('POST', '/events', { body: { type: 'deploy.success' } });
    await eventually(async () => /valid host/.test((await untrusting.api('GET', `/webhooks/${a.id}/deliveries`)).json.deliveries[0]?.error ?? ''), { what: 'the refusal recorded' });
    // The SSRF guard judges the address dialled, whatever the store holds.
    const b = await created(strict, 'https://hooks.invalid/b');
    storeUrl(strict, b.id, `https://[::ffff:0:7f00:1]:${receiver.port}/h`);
    const r2 = await testAction(strict, b.id);
    assert.equal(r2.success, false);
    assert.match(r2.error, /^refused: ::ffff:0:7f00:1 resolves only to non-public addresses/);
  });

  test('every spelling of a non-public target is refused at creation, or at delivery when only resolving tells', async () => {
    const port = receiver.port;
    // [host as written in the url, the address the refusal names]
    const literals = [
      ['2130706433', '127.0.0.1'], // decimal
      ['0x7f000001', '127.0.0.1'], // hex
      ['0177.0.0.1', '127.0.0.1'], // octal
      ['0x7f.1', '127.0.0.1'], // shortened, hex
      ['127.1', '127.0.0.1'], // shortened
      ['127.0.0.%31', '127.0.0.1'], // percent-encoded
      ['0', '0.0.0.0'],
      ['0xa9fea9fe', '169.254.169.254'], // cloud metadata, hex
      ['[::]', '::'],
      ['[::1]', '::1'],
      ['[::ffff:127.0.0.1]', '::ffff:127.0.0.1'], // IPv4-mapped
      ['[::ffff:7f00:1]', '::ffff:127.0.0.1'], // IPv4-mapped, hex
      ['[::ffff:0:7f00:1]', '::ffff:0:7f00:1'], // IPv4-translated (SIIT)
      ['[::127.0.0.1]', '::127.0.0.1'], // IPv4-compatible
      ['[::8.8.8.8]', '::8.8.8.8'], // IPv4-compatible, refused whole
      ['[64:ff9b::a9fe:a9fe]', '64:ff9b::a9fe:a9fe'], // NAT64 of 169.254.169.254
      ['[64:ff9b:1::808:808]', '64:ff9b:1::808:808'], // local-use NAT64, refused whole
      ['[2002:7f00:1::1]', '2002:7f00:1::1'], // 6to4 of 127.0.0.1
      ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', '2001:0:4136:e378:8000:63bf:80ff:fffe'], // Teredo
      ['[fe80::1]', 'fe80::1'],
      ['[fd00::1]', 'fd00::1'],
    ];
    for (const [host, address] of literals) {
      const url = `https://${host}:${port}/h`;
      const r = await create(strict, url);
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.json.error.field, 'url');
      assert.ok(r.json.error.message.includes(`non-public address (`) && r.json.error.message.includes(`${address})`), `${url}: ${r.json.error.message}`);
    }
    // Tricks on the URL's other parts that would make a name look like the host.
    for (const [url, says] of [
      [`https://hooks.example.com@127.0.0.1:${port}/h`, /credentials/],
      [`https://hooks.example.com:x@127.0.0.1:${port}/h`, /credentials/],
      [`https://127.0.0.1:${port}#@hooks.example.com/h`, /absolute URL/], // no fragment in an absolute URI
      [`https://127.0.0.1:${port}\\@hooks.example.com/h`, /absolute URL/],
    ]) {
      const r = await create(strict, url);
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.match(r.json.error.message, says, url);
    }
    // Names: judged on what they resolve to, at each delivery. A name with the root's dot
    // may not resolve at all where no DNS server answers for it.
    for (const [host, says] of [
      ['localhost', /^refused: localhost resolves only to non-public addresses/],
      ['LOCALHOST', /^refused: LOCALHOST resolves only to non-public addresses/],
      ['localhost.', /^refused: localhost\. resolves only to non-public addresses|^cannot resolve localhost\./],
    ]) {
      const hook = await created(strict, `https://${host}:${port}/h`);
      const r = await testAction(strict, hook.id);
      assert.equal(r.success, false);
      assert.match(r.error, says, host);
    }
  });

  test('more spellings: every non-public range, IPv4 written whole or padded, IPv6 written out or with a zone, names the resolver maps to loopback', async () => {
    const port = receiver.port;
    // [host as written in the url, the address the refusal names]
    for (const [host, address] of [
      ['0.0.0.0', '0.0.0.0'],
      ['017700000001', '127.0.0.1'], // octal, whole
      ['0X7F000001', '127.0.0.1'], // hex, upper case
      ['127.000.000.001', '127.0.0.1'], // padded
      ['127.0.1', '127.0.0.1'], // three parts
      ['%31%32%37.0.0.1', '127.0.0.1'], // percent-encoded digits
      ['127%2e0%2e0%2e1', '127.0.0.1'], // percent-encoded dots
      ['[0:0:0:0:0:0:0:1]', '::1'],
      ['[0:0:0:0:0:ffff:7f00:1]', '::ffff:127.0.0.1'],
      ['10.0.0.1', '10.0.0.1'],
      ['172.16.0.1', '172.16.0.1'],
      ['192.168.1.1', '192.168.1.1'],
      ['100.64.0.1', '100.64.0.1'], // carrier-grade NAT
      ['169.254.169.254', '169.254.169.254'], // cloud metadata
      ['192.0.0.1', '192.0.0.1'],
      ['198.18.0.1', '198.18.0.1'],
      ['224.0.0.1', '224.0.0.1'], // multicast
      ['240.0.0.1', '240.0.0.1'],
      ['255.255.255.255', '255.255.255.255'],
      ['[::ffff:10.0.0.1]', '::ffff:10.0.0.1'],
      ['[::ffff:a9fe:a9fe]', '::ffff:169.254.169.254'],
      ['[2002:a9fe:a9fe::]', '2002:a9fe:a9fe::'], // 6to4 of the metadata address
      ['[ff02::1]', 'ff02::1'],
    ]) {
      const url = `https://${host}:${port}/h`;
      const r = await create(strict, url);
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.json.error.field, 'url');
      assert.ok(r.json.error.message.includes('non-public address (') && r.json.error.message.includes(`${address})`), `${url}: ${r.json.error.message}`);
    }
    // A zone, or an IPv4 address with the root's dot: not a host at all.
    for (const url of [`https://[::1%25lo]:${port}/h`, `https://[fe80::1%25eth0]:${port}/h`, `https://[::ffff:127.0.0.1%25lo]:${port}/h`, 'https://127.0.0.1./h', 'https://0.0.0.0./h']) {
      const r = await create(strict, url);
      assert.equal(r.status, 400, `${url}: ${r.text}`);
      assert.equal(r.json.error.field, 'url');
    }
    // Names are judged on what they resolve to: a percent-encoded one, and whatever name
    // this machine's resolver maps to loopback (its own host name, usually).
    const names = [['%6c%6f%63%61%6c%68%6f%73%74', 'localhost']];
    const own = await lookup(hostname(), { all: true }).catch(() => []);
    if (own.length > 0 && own.every((a) => /^127\./.test(a.address) || a.address === '::1')) names.push([hostname(), hostname()]);
    for (const [host, named] of names) {
      const hook = await created(strict, `https://${host}:${port}/h`);
      const r = await testAction(strict, hook.id);
      assert.equal(r.success, false);
      assert.ok(r.error.startsWith(`refused: ${named} resolves only to non-public addresses`), `${host}: ${r.error}`);
      assert.equal((await strict.api('DELETE', `/webhooks/${hook.id}`)).status, 204);
    }
  });

  test('a private target is refused unless the operator allows it, and an untrusted certificate fails TLS', async () => {
    // An address literal is refused at creation; a name that resolves to one, at delivery.
    const literal = await create(strict, receiver.url());
    assert.equal(literal.status, 400);
    assert.equal(literal.json.error.field, 'url');
    assert.match(literal.json.error.message, /non-public address \(127\.0\.0\.1\)/);
    const byName = `https://localhost:${receiver.port}/hook`;
    const a = await created(strict, byName);
    // Nor can a webhook be moved to one afterwards.
    const moved = await strict.api('PATCH', `/webhooks/${a.id}`, { body: { url: receiver.url() } });
    assert.equal(moved.status, 400);
    assert.equal(moved.json.error.field, 'url');
    assert.equal((await strict.api('GET', `/webhooks/${a.id}`)).json.url, byName);
    const r1 = await testAction(strict, a.id);
    assert.equal(r1.success, false);
    assert.match(r1.error, /refused: localhost resolves only to non-public addresses \((127\.0\.0\.1|::1)/);
    // Also at delivery time, on the dialled address.
    await strict.api('POST', '/events', { body: { type: 'deploy.success' } });
    await eventually(async () => /non-public/.test((await strict.api('GET', `/webhooks/${a.id}/deliveries`)).json.deliveries[0]?.error ?? ''), { what: 'the refusal recorded' });
    const b = await created(untrusting, receiver.url());
    const r2 = await testAction(untrusting, b.id);
    assert.equal(r2.success, false);
    assert.match(r2.error, /TLS/);
  });
});
