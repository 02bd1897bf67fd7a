// The replay simulation against a recording made by the real gate: SDK clients of two
// principals (tokens from a test identity provider) through gate to two server-everything
// upstreams, recorded with --record. Replayed in virtual time through the real gateway with
// simulated upstreams, the recording gives the audit stream the live gateway wrote (methods,
// names, upstreams, outcomes, principals, decisions), byte for byte the same stream and the same
// metrics on every run, and a stricter policy or a lower rate limit changes exactly the audit
// events it should and no other.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { REPO_ROOT, connectClient, expectMcpError, requireReplayBin, startEverything, startGate, startIdp, startRedis } from './lib/index.mjs';

const RESOURCE = 'https://gate.example/mcp';

// Runs the replay to completion: { code, report, audit (text), metrics (text), stderr }.
function replay(dir, name, config, recording, faults, fleet) {
  const configPath = path.join(dir, `${name}.json`);
  writeFileSync(configPath, JSON.stringify(config));
  const auditOut = path.join(dir, `${name}.audit.jsonl`);
  const metricsOut = path.join(dir, `${name}.metrics.txt`);
  const args = ['--config', configPath, '--recording', recording, '--audit-out', auditOut, '--metrics-out', metricsOut];
  if (faults) {
    const faultsPath = path.join(dir, `${name}.faults.json`);
    writeFileSync(faultsPath, JSON.stringify({ faults }));
    args.push('--faults', faultsPath);
  }
  if (fleet) args.push('--instances', String(fleet.instances), '--store', fleet.store, '--balance', fleet.balance ?? 'rotate');
  return new Promise((resolve, reject) => {
    const child = spawn(requireReplayBin(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code !== 0) return resolve({ code, stderr: err });
      resolve({ code, report: JSON.parse(out), audit: readFileSync(auditOut, 'utf8'), metrics: readFileSync(metricsOut, 'utf8'), stderr: err });
    });
  });
}

const eventsOf = (text) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));

// What an audit event says about a request, without when and how long.
const gist = ({ time, latencyMs, ...rest }) => rest;

describe('replay of a recording', { timeout: 180_000 }, () => {
  let ev;
  let other;
  let idp;
  let dir;
  let recording;
  let live; // the audit events the live gateway wrote
  let config;

  const policy = (bobMayEcho) => ({
    rules: [
      { id: 'alice-ev', subjects: { subs: ['alice'] }, allow: [{ server: 'ev', methods: ['tools/call'] }] },
      ...(bobMayEcho ? [{ id: 'bob-echo', subjects: { groups: ['eng'] }, allow: [{ server: 'ev', methods: ['tools/call'], names: ['echo'] }] }] : []),
      { id: 'eng-other', subjects: { groups: ['eng'] }, allow: [{ server: 'other' }] },
    ],
  });

  before(async () => {
    ev = await startEverything();
    other = await startEverything();
    idp = await startIdp();
    dir = mkdtempSync(path.join(tmpdir(), 'gate-replay-'));
    recording = path.join(dir, 'traffic.jsonl');
    config = {
      upstreams: [
        { id: 'ev', url: ev.url, namespace: 'ev' },
        { id: 'other', url: other.url, namespace: 'other' },
      ],
      audit: { sinks: [{ type: 'stdout' }] },
      auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer, groupsClaim: 'groups' }] },
      policy: policy(true),
    };
    const gate = await startGate({ config, args: ['--record', recording] });
    const connect = async (sub, groups) =>
      connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${await idp.mint({ aud: RESOURCE, sub, groups })}` } } });
    const alice = await connect('alice', []);
    const bob = await connect('bob', ['eng']);
    for (let round = 0; round < 3; round++) {
      await alice.listTools();
      await bob.listTools();
      await alice.callTool({ name: 'ev__echo', arguments: { message: `alice ${round}` } });
      await alice.callTool({ name: 'ev__get-sum', arguments: { a: round, b: 2 } });
      await bob.callTool({ name: 'ev__echo', arguments: { message: `bob ${round}` } });
      await bob.callTool({ name: 'other__get-sum', arguments: { a: 1, b: round } });
      const denied = await expectMcpError(() => bob.callTool({ name: 'ev__get-sum', arguments: { a: 1, b: 1 } }));
      assert.equal(denied.code, -32042);
    }
    await alice.close();
    await bob.close();
    await gate.stop();
    live = gate.auditEvents();
  });

  after(async () => {
    await idp?.stop();
    await ev?.stop();
    await other?.stop();
    if (process.env.GATE_KEEP_REPLAY) console.error(`replay files kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  });

  test('gives the audit stream the live gateway wrote, the same bytes and metrics every run', async () => {
    const first = await replay(dir, 'first', config, recording);
    assert.equal(first.code, 0, first.stderr);
    const second = await replay(dir, 'second', config, recording);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.audit, first.audit, 'byte-identical audit stream');
    assert.equal(second.metrics, first.metrics, 'identical metrics');
    assert.deepEqual(second.report, first.report);
    assert.equal(first.report.synthesizedInitializes, 0);
    // Each call's upstream spoke on its own first; every such message reached its caller only.
    assert.equal(first.report.upstreamMessagesHeard, eventsOf(first.audit).filter((e) => e.method === 'tools/call' && e.outcome === 'ok').length);
    assert.equal(first.report.invariants.noPrincipalSeesAnothersCursorTaskOrMessage, true);
    assert.deepEqual(Object.keys(first.report.upstreams).sort(), ['ev#1', 'other#1']);
    for (const u of Object.values(first.report.upstreams)) assert.equal(u.unanswerable, 0);

    const replayed = eventsOf(first.audit);
    assert.deepEqual(replayed.map(gist), live.map(gist), 'what the live gateway decided, event by event');
    assert.ok(replayed.filter((e) => e.outcome === 'denied').length === 3);
    assert.match(first.metrics, /gate_requests_total\{[^}]*outcome="denied"[^}]*\} 3\n/);
    assert.ok(!/^process_/m.test(first.metrics), 'the process metrics differ between runs: left out');
  });

  test('a stricter policy changes exactly the audit events it should', async () => {
    const base = eventsOf((await replay(dir, 'base', config, recording)).audit);
    const strict = await replay(dir, 'strict', { ...config, policy: policy(false) }, recording);
    assert.equal(strict.code, 0, strict.stderr);
    const after_ = eventsOf(strict.audit);
    assert.equal(after_.length, base.length);
    let changed = 0;
    base.forEach((was, i) => {
      const now = after_[i];
      if (was.principal === 'bob' && was.name === 'ev__echo') {
        // bob's echo calls: allowed by bob-echo before, denied by default now.
        assert.deepEqual([was.outcome, was.decision, was.ruleId], ['ok', 'allow', 'bob-echo']);
        assert.deepEqual([now.outcome, now.decision, now.ruleId], ['denied', 'deny', undefined]);
        for (const k of ['time', 'method', 'name', 'upstream', 'principal', 'issuer']) assert.deepEqual(now[k], was[k], k);
        changed++;
      } else if (was.principal === 'bob' && was.method === 'tools/list') {
        // bob's lists no longer show ev's echo.
        assert.equal(now.itemsServed, was.itemsServed - 1);
        assert.deepEqual({ ...now, itemsServed: was.itemsServed }, was);
        changed++;
      } else {
        assert.deepEqual(now, was, `event ${i} unchanged`);
      }
    });
    assert.equal(changed, 6, 'three echo calls and three lists of bob');
  });

  test('a lower per-principal rate limit refuses exactly the requests over it', async () => {
    const base = eventsOf((await replay(dir, 'unlimited', config, recording)).audit);
    const limit = 5;
    const limited = await replay(dir, 'limited', { ...config, server: { rateLimit: { perPrincipalPerMinute: limit } } }, recording);
    assert.equal(limited.code, 0, limited.stderr);
    const after_ = eventsOf(limited.audit);
    assert.equal(after_.length, base.length);
    const seen = { alice: 0, bob: 0 };
    let refused = 0;
    base.forEach((was, i) => {
      const now = after_[i];
      // Every request counts against its principal's window (notifications do not); all of
      // the recording falls within one minute.
      const isRequest = !was.method.startsWith('notifications/');
      if (isRequest && ++seen[was.principal] > limit) {
        assert.equal(now.method, 'http', JSON.stringify(now));
        assert.equal(now.outcome, 'rate_limited');
        assert.equal(now.principal, was.principal);
        refused++;
      } else {
        assert.deepEqual(now, was, `event ${i} unchanged`);
      }
    });
    assert.equal(refused, seen.alice - limit + (seen.bob - limit));
    assert.ok(refused > 10, `${refused}`);
  });

  // Faults on the simulated upstreams: the invariants hold on every run, and one upstream's
  // fault leaves the other's events exactly as they were.
  const faulted = async (name, faults, upstreams = config.upstreams) => {
    const base = await replay(dir, `${name}-base`, { ...config, upstreams }, recording);
    const run = await replay(dir, name, { ...config, upstreams }, recording, faults);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(run.report.invariants, {
      oneAuditEventPerMessage: true,
      noRequestAnsweredTwice: true,
      noPrincipalSeesAnothersCursorTaskOrMessage: true,
    });
    return { base: eventsOf(base.audit), events: eventsOf(run.audit), report: run.report };
  };
  const about = (events, upstream) => events.filter((e) => e.upstream === upstream);
  const whole = 600_000;

  test('a hanging upstream: its calls time out in virtual time, its breaker opens, the other is untouched', async () => {
    // bob's first list asks `other` on two sessions; with a 20 ms timeout both time out (two
    // failures open the breaker) and every later call to it is refused at once.
    const upstreams = [
      config.upstreams[0],
      { ...config.upstreams[1], timeouts: { requestMs: 20 }, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: 60_000 } },
    ];
    const { base, events, report } = await faulted('hang', [{ upstream: 'other', kind: 'hang', fromMs: 0, toMs: whole }], upstreams);
    assert.deepEqual(about(events, 'ev'), about(base, 'ev'));
    const firstList = events.find((e) => e.principal === 'bob' && e.method === 'tools/list');
    assert.equal(firstList.latencyMs, 20, 'the list waited requestMs of virtual time for `other`');
    assert.equal(firstList.outcome, 'ok', 'and was served without it');
    const calls = about(events, 'other');
    assert.equal(calls.length, 3);
    for (const c of calls) {
      assert.equal(c.outcome, 'upstream_down');
      assert.match(c.error, /^circuit open after repeated failures/);
      assert.equal(c.latencyMs, 0);
    }
    assert.equal(report.guards.other.requests.error, 2, JSON.stringify(report.guards));
    assert.ok(report.guards.other.requests.circuit_open >= 3, JSON.stringify(report.guards));
    assert.equal(report.guards.other.breakerState, 2, 'open at the end (0 closed, 1 half-open, 2 open)');
    assert.equal(report.upstreams['other#1'].faulted.hang, 2);
  });

  test('a failing upstream answers 503: its calls fail, the other is untouched', async () => {
    const { base, events, report } = await faulted('fail', [{ upstream: 'ev', kind: 'fail', status: 503, fromMs: 0, toMs: whole }]);
    assert.deepEqual(about(events, 'other'), about(base, 'other'));
    const okBefore = about(base, 'ev').filter((e) => e.outcome === 'ok').length;
    assert.ok(okBefore > 0);
    assert.ok(about(events, 'ev').every((e) => e.outcome !== 'ok'), 'no ev call succeeds');
    assert.ok(report.upstreams['ev#1'].faulted.fail >= 1);
  });

  test('a slow upstream: the same outcomes, each call later by the delay', async () => {
    const { base, events } = await faulted('slow', [{ upstream: 'ev', kind: 'slow', delayMs: 1500, fromMs: 0, toMs: whole }]);
    // Calls finish later, so the stream's order changes; what became of each does not.
    const outcomes = (list) => list.map((e) => JSON.stringify([e.principal, e.method, e.name, e.outcome])).sort();
    assert.deepEqual(outcomes(events), outcomes(base));
    const calls = about(events, 'ev').filter((e) => e.method === 'tools/call' && e.outcome === 'ok');
    assert.ok(calls.length > 0 && calls.every((e) => e.latencyMs >= 1500), JSON.stringify(calls.map((e) => e.latencyMs)));
  });

  test('an upstream that restarts (forgets its sessions): gate opens new ones, every outcome stays', async () => {
    const { base, events, report } = await faulted('restart', [{ upstream: 'ev', kind: 'restart', atMs: 100 }]);
    assert.deepEqual(events.map(gist), base.map(gist));
    assert.equal(report.upstreams['ev#1'].faulted.restart, 1);
    assert.ok(report.upstreams['ev#1'].asked.initialize > report.upstreams['other#1'].asked.initialize, 'sessions opened again');
  });

  test('a replica that dies: new sessions fail over to the other replica, every outcome stays', async () => {
    const upstreams = [{ ...config.upstreams[0], url: undefined, urls: ['http://127.0.0.1:1/mcp', 'http://127.0.0.1:2/mcp'] }, config.upstreams[1]];
    const { base, events, report } = await faulted('replica', [{ upstream: 'ev', replica: 2, kind: 'down', fromMs: 0, toMs: whole }], upstreams);
    assert.deepEqual(events.map(gist), base.map(gist));
    assert.equal(report.upstreams['ev#2'].faulted.down, 1);
    assert.equal(report.guards.ev.endpointsHealthy, 1, 'the dead replica is out of rotation');
  });

  test('a fault script it cannot read is refused, each fault saying why', async () => {
    const r = await replay(dir, 'bad-faults', config, recording, [
      { upstream: 'ev', kind: 'melt', fromMs: 0, toMs: 1 },
      { upstream: 'ev', kind: 'slow', fromMs: 5, toMs: 1 },
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /\/faults\/0: "kind" must be hang, fail, slow, restart, down or stall/);
    assert.match(r.stderr, /\/faults\/1: needs "fromMs" and a later "toMs"/);
  });

  // A fleet: several gate instances in one simulation over one real redis-server, a load
  // balancer that sends each message to the next instance (every session moves all the time).
  describe('fleet', () => {
    let redis;
    let db = 0;
    before(async () => {
      redis = await startRedis();
    });
    after(async () => {
      await redis?.stop();
    });
    const fleet = () => ({ instances: 3, store: `${redis.url}/${++db}` });
    const outcomes = (list) => list.map((e) => JSON.stringify([e.principal, e.method, e.name, e.outcome])).sort();

    test('the per-principal limit holds exactly across three instances', async () => {
      const limited = { ...config, server: { rateLimit: { perPrincipalPerMinute: 5 } } };
      const one = eventsOf((await replay(dir, 'limit-one', limited, recording)).audit);
      const three = await replay(dir, 'limit-three', limited, recording, undefined, fleet());
      assert.equal(three.code, 0, three.stderr);
      assert.deepEqual(Object.values(three.report.invariants), [true, true, true]);
      const events = eventsOf(three.audit);
      for (const who of ['alice', 'bob']) {
        const passed = events.filter((e) => e.principal === who && e.outcome !== 'rate_limited' && !e.method.startsWith('notifications/'));
        assert.equal(passed.length, 5, `${who}: exactly the limit across the fleet`);
      }
      assert.deepEqual(outcomes(events), outcomes(one), 'what one instance decides');
      assert.ok(three.report.store.commands > 0);
      assert.deepEqual(three.report.store.degraded, {});
    });

    test('an upstream budget holds across three instances within one call per instance', async () => {
      const budget = 4;
      const budgeted = { ...config, upstreams: [{ ...config.upstreams[0], budget: { period: 'day', upstreamCalls: budget } }, config.upstreams[1]] };
      const r = await replay(dir, 'budget-three', budgeted, recording, undefined, fleet());
      assert.equal(r.code, 0, r.stderr);
      const calls = eventsOf(r.audit).filter((e) => e.upstream === 'ev' && e.method === 'tools/call' && e.outcome !== 'denied');
      const spent = calls.filter((e) => e.outcome === 'ok').length;
      assert.ok(spent <= budget && spent >= budget - 3, `${spent} calls of a budget of ${budget}`);
      assert.ok(calls.filter((e) => e.outcome !== 'ok').every((e) => e.outcome === 'budget_exhausted'));
      assert.equal(calls.length - spent, 9 - spent, 'the rest refused');
    });

    test('a breaker opened on one instance reaches every instance within 250 ms', async () => {
      // Two minutes of traffic (the recording again every 10 s), `other` hanging throughout.
      const longer = path.join(dir, 'two-minutes.jsonl');
      execFileSync('python3', [path.join(REPO_ROOT, 'simulations', 'repeat_recording.py'), recording, longer, '2', '10'], { stdio: 'ignore' });
      const rest = 60_000;
      const upstreams = [
        config.upstreams[0],
        { ...config.upstreams[1], timeouts: { requestMs: 20 }, circuitBreaker: { failureThreshold: 2, halfOpenAfterMs: rest } },
      ];
      const r = await replay(dir, 'breaker-three', { ...config, upstreams }, longer, [{ upstream: 'other', kind: 'hang', fromMs: 0, toMs: 600_000 }], fleet());
      assert.equal(r.code, 0, r.stderr);
      const calls = eventsOf(r.audit).filter((e) => e.upstream === 'other');
      const at = (e) => Date.parse(e.time);
      const refused = calls.filter((e) => /^circuit open/.test(e.error));
      const timedOut = calls.filter((e) => /did not answer|handshake failed/.test(e.error));
      assert.ok(refused.length > 0);
      const opened = Math.min(...refused.map(at));
      // After the opening has had 250 ms to spread (and a call its 20 ms), the only calls that
      // still reach `other` are the instances' own half-open probes, one per instance per rest.
      const late = timedOut.filter((e) => at(e) > opened + 250 + 20);
      assert.ok(late.length <= 3 * 2, `${late.length} calls reached the hung upstream late: ${JSON.stringify(late.map((e) => e.time))}`);
      // Every instance refused calls itself: the opening reached all three.
      const sections = r.metrics.split('# gate instance ').slice(1);
      assert.equal(sections.length, 3);
      for (const m of sections) assert.match(m, /gate_upstream_requests_total\{[^}]*outcome="circuit_open"[^}]*upstream="other"[^}]*\} [1-9]|gate_upstream_requests_total\{[^}]*upstream="other"[^}]*outcome="circuit_open"[^}]*\} [1-9]/);
    });

    test('a store that stalls past its 500 ms bound: every request is answered from local state', async () => {
      // Sticky sessions: a session opened while the store does not answer is known only to its
      // instance (docs/fleet.md), so a balancer that moves it would meet a 404 elsewhere.
      const base = eventsOf((await replay(dir, 'stall-base', config, recording)).audit);
      const r = await replay(dir, 'stall', config, recording, [{ kind: 'stall', fromMs: 0, toMs: 2000 }], { ...fleet(), balance: 'sticky' });
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.values(r.report.invariants), [true, true, true]);
      assert.ok(r.report.store.heldByStalls > 0, JSON.stringify(r.report.store));
      assert.ok(Object.keys(r.report.store.degraded).length > 0, 'the fallbacks are counted');
      const events = eventsOf(r.audit);
      assert.deepEqual(outcomes(events), outcomes(base), 'the same outcomes: gate fails open');
      assert.ok(events.some((e) => e.latencyMs >= 500), 'a request waited out the bound');
    });

    test('a balancer that moves sessions during the stall: only the moved sessions are lost', async () => {
      const r = await replay(dir, 'stall-rotate', config, recording, [{ kind: 'stall', fromMs: 0, toMs: 2000 }], fleet());
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(Object.values(r.report.invariants), [true, true, true]);
      const lost = eventsOf(r.audit).filter((e) => e.outcome === 'error');
      assert.ok(lost.length > 0);
      // The one failure a moved session meets: another instance never heard of it.
      for (const e of lost) assert.equal(e.error, 'unknown or expired session: initialize a new one');
    });
  });

  test('a recording it cannot read is refused with its file and line', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync(recording, 'utf8').split('\n')[0]}\n{"kind":"request","seq":2}\n`);
    const r = await replay(dir, 'bad', config, bad);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.jsonl:2: a request line needs "at", an RFC 3339 UTC timestamp/);
  });
});
