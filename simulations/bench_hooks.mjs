// gate-hooks throughput: events ingested per second, deliveries per second to a loopback
// HTTPS receiver, and the time from ingest to delivery (p50/p99), on SQLite with one instance
// and on PostgreSQL with two sharing the queue (docs/benchmarks.md). The runs:
//   live:    events ingested as fast as the client can, delivered as they come (the
//            delivery rate can be no higher than the ingest rate; latency is ingest to arrival)
//   backlog: the receiver first refuses every delivery (503), so each, after its attempts
//            (maxAttempts 3), is in the dead-letter queue; the operator's retry then makes all
//            of them due at once, and the rate at which that backlog drains (retry call to last
//            arrival) is gate-hooks' delivery capacity, independent of the ingest client
//   paced:   a steady 500 events/s (GATE_HOOKS_BENCH_RATE), the machine not saturated
//   backlog-native, paced-native: the same with simulations/bench_receiver (C++) as the
//            receiver, whose share of the cores is a fraction of node's
//
//   node simulations/bench_hooks.mjs [events] [ingest-concurrency]   (defaults 5000, 32)
// Environment: GATE_HOOKS_BIN (default build/gate-hooks); GATE_HOOKS_BENCH_STORES (default
// "sqlite,postgres") and GATE_HOOKS_BENCH_RUNS (default
// "live,backlog,backlog-native,paced,paced-native") pick a subset;
// GATE_HOOKS_BENCH_RECEIVER_BIN (default simulations/bench_receiver next to gate-hooks).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { TOKENS, makeTestCa, startHooks, startPostgres, startReceiver } from '../tests/js/lib/index.mjs';

const events = Number(process.argv[2] ?? 5000);
const concurrency = Number(process.argv[3] ?? 32);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

// CPU time (ms) used so far by each process in `roots` and all its descendants, from /proc
// (utime + stime, in clock ticks of 10 ms): where a drain's CPU went, by component.
function cpuMs(roots) {
  const procs = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name may hold spaces and parentheses: fields are counted after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      procs.push({ pid: Number(name), ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
    } catch {} // gone meanwhile
  }
  const children = new Map();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  let ticks = 0;
  const visit = (p) => {
    ticks += p.ticks;
    for (const c of children.get(p.pid) ?? []) visit(c);
  };
  for (const p of procs) if (roots.includes(p.pid)) visit(p);
  return ticks * 10;
}
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const pacedRate = Number(process.env.GATE_HOOKS_BENCH_RATE ?? 500);
const stores = (process.env.GATE_HOOKS_BENCH_STORES ?? 'sqlite,postgres').split(',');
const runs = (process.env.GATE_HOOKS_BENCH_RUNS ?? 'live,backlog,backlog-native,paced,paced-native').split(',');
async function runAll(label, instances) {
  const out = [];
  if (runs.includes('live')) out.push(await run(label, instances));
  if (runs.includes('backlog')) out.push(await run(label, instances, true));
  if (runs.includes('backlog-native')) out.push(await run(label, instances, true, false, true));
  if (runs.includes('paced')) out.push(await run(label, instances, false, true));
  if (runs.includes('paced-native')) out.push(await run(label, instances, false, true, true));
  return out;
}

// simulations/bench_receiver: the same receiver's work (TLS, kept-alive connections, 503 then
// 204) in C++, so a drain's rate and a paced run's latency do not depend on the receiver's
// share of the cores and of the benchmark's event loop. It counts the deliveries itself and
// reports the last one's arrival; with `arrivals`, each delivery's arrival and event id too
// (as `received` entries, like the node receiver's).
async function startNativeReceiver(ca, { arrivals = false } = {}) {
  const bin = process.env.GATE_HOOKS_BENCH_RECEIVER_BIN ?? path.join(path.dirname(process.env.GATE_HOOKS_BIN ?? 'build/gate-hooks'), 'simulations/bench_receiver');
  const args = [path.join(ca.dir, 'server.pem'), path.join(ca.dir, 'server.key'), ...(arrivals ? ['--arrivals'] : [])];
  const child = spawn(bin, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise((r) => child.once('exit', r));
  const waiting = [];
  const receiver = { pid: child.pid, received: [] };
  createInterface({ input: child.stdout }).on('line', (l) => {
    const [word, a, b] = l.split(' ');
    if (word === 'arrival') receiver.received.push({ at: Number(a) / 1000, url: '/bench', json: { event_id: b } });
    else waiting.shift()?.({ a: Number(a), b: Number(b) });
  });
  const next = () =>
    Promise.race([
      new Promise((r) => waiting.push(r)),
      exited.then((code) => {
        throw new Error(`bench_receiver exited (${code})`);
      }),
    ]);
  const port = (await next()).a;
  return Object.assign(receiver, {
    url: (p) => `https://127.0.0.1:${port}${p}`,
    // Resolves when the n-th accepted delivery has been answered: { at, connections }.
    accept: (n) => {
      const done = next();
      child.stdin.write(`accept ${n}\n`);
      return done.then(({ a, b }) => ({ at: a, connections: b }));
    },
    stop: () => {
      child.stdin.end();
      return exited;
    },
  });
}

async function run(label, instances, backlog = false, paced = false, native = false) {
  const ca = instances.ca;
  const receiver = native ? await startNativeReceiver(ca, { arrivals: !backlog }) : await startReceiver(ca);
  let refusing = backlog;
  // Counted as they arrive: filtering every arrival so far on each poll cost the harness
  // (which shares the cores with what it measures) more CPU per delivery as a run went on.
  let delivered = 0;
  receiver.respond = () => {
    if (refusing) return { status: 503 };
    delivered += 1;
    return { status: 204 };
  };
  const hooks = instances.list;
  const hook = (await hooks[0].api('POST', '/webhooks', { body: { event: 'usage.threshold', url: receiver.url('/bench'), secret: '0123456789abcdef' } })).json;
  // The C++ receiver accepts from the start unless it is to refuse first (backlog).
  let nativeDone = native && !backlog ? receiver.accept(events) : null;
  let nativeFinished = null; // { at, connections }, once the C++ receiver has them all
  const sentAt = new Map();
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      while (next < events) {
        const i = next++;
        if (paced) {
          // Event i leaves at t0 + i / rate.
          const due = t0 + (i * 1000) / pacedRate;
          const wait = due - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        }
        const h = hooks[i % hooks.length];
        const at = performance.now();
        const r = await h.api('POST', '/events', { body: { type: 'usage.threshold', data: { i } }, token: TOKENS.org_a });
        if (r.status !== 202) throw new Error(`ingest: ${r.status} ${r.text}`);
        sentAt.set(r.json.id, at);
      }
    }),
  );
  const ingestSeconds = (performance.now() - t0) / 1000;
  const ok = () => receiver.received.filter((r) => r.url === '/bench' && !r.refused);
  let drainStart = null;
  let cpuAtStart = null;
  const cpuNow = () => ({
    hooks: cpuMs(hooks.map((h) => h.pid)),
    database: instances.dbPid ? cpuMs([instances.dbPid]) : 0,
    bench: selfCpuMs(),
    ...(native ? { receiver: cpuMs([receiver.pid]) } : {}),
  });
  if (backlog) {
    // Every delivery's attempts were refused, so all of them are in the dead-letter queue;
    // the operator's retry makes them due at the same moment.
    const dead = async () => (await hooks[0].api('GET', '/webhook-deliveries/dlq/stats', { token: TOKENS.org_a })).json.total;
    while ((await dead()) < events) await new Promise((r) => setTimeout(r, 50));
    for (const r of receiver.received) r.refused = true;
    // PostgreSQL: the statistics autovacuum would have gathered by now on a running system
    // (it analyzes a table within a minute of it changing); a database minutes old has none.
    instances.analyze?.();
    console.error(`${label}: ${events} dead letters; the retry starts the drain`);
    refusing = false;
    if (native) nativeDone = receiver.accept(events);
    cpuAtStart = cpuNow();
    drainStart = Date.now();
    const retried = await hooks[0].api('POST', `/webhook-deliveries/dlq/${hook.id}/retry`, { token: TOKENS.org_a });
    if (retried.status !== 202 || retried.json.retried !== events) throw new Error(`dlq retry: ${retried.status} ${retried.text}`);
  }
  const waitStart = Date.now();
  if (nativeDone) {
    nativeFinished = await Promise.race([nativeDone, new Promise((r) => setTimeout(() => r(null), 120_000))]);
    if (!nativeFinished) throw new Error(`${label}: not all of ${events} delivered after 2 minutes`);
    receiver.connections = nativeFinished.connections;
    delivered = events;
  }
  while (delivered < events) {
    if (Date.now() - waitStart > 120_000) {
      const dlq = (await hooks[0].api('GET', '/webhook-deliveries/dlq?limit=5', { token: TOKENS.org_a })).json;
      throw new Error(`${label}: ${delivered} of ${events} delivered after 2 minutes; dead letters: ${JSON.stringify(dlq)}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  // CPU per delivery in the drain, by component (the bench process is the client, and the
  // receiver unless the C++ one runs).
  const cpu = backlog
    ? Object.fromEntries(
        Object.entries(cpuNow()).map(([k, v]) => [
          k,
          Math.round(((v - cpuAtStart[k]) * 1000) / events),
        ]),
      )
    : undefined;
  const lastArrival = nativeFinished ? nativeFinished.at : backlog ? Math.max(...ok().map((r) => r.at)) : 0;
  const total = backlog ? (lastArrival - drainStart) / 1000 : (performance.now() - t0) / 1000;
  // The receiver stamps arrival with Date.now(); sentAt is performance.now(): same process,
  // converted through the time origin.
  const latencies = ok().map((r) => r.at - (performance.timeOrigin + sentAt.get(r.json.event_id)));
  const result = backlog
    ? { label: `${label}, backlog${native ? ' (C++ receiver)' : ''}`, events, deliveriesPerSec: Math.round(events / total), tlsConnections: receiver.connections, cpuMicrosecondsPerDelivery: cpu }
    : {
        label: `${label}, ${paced ? `paced at ${pacedRate}/s` : 'live'}${native ? ' (C++ receiver)' : ''}`,
        events,
        ingestPerSec: Math.round(events / ingestSeconds),
        deliveriesPerSec: Math.round(events / total),
        ingestToDeliveryP50Ms: quantile(latencies, 0.5).toFixed(1),
        ingestToDeliveryP99Ms: quantile(latencies, 0.99).toFixed(1),
        tlsConnections: receiver.connections,
      };
  await hooks[0].api('DELETE', `/webhooks/${hook.id}`);
  await receiver.stop();
  return result;
}

const ca = makeTestCa();
const config = { delivery: { allowPrivateTargets: true, caFile: ca.caFile, concurrency: 256, pollMs: 500, maxAttempts: 3 } };
const results = [];
if (stores.includes('sqlite')) {
  const one = await startHooks({ config });
  try {
    results.push(...(await runAll('SQLite, one instance', { ca, list: [one] })));
  } finally {
    await one.stop();
    one.cleanup();
  }
}
if (stores.includes('postgres')) {
  // GATE_HOOKS_BENCH_PGSTATS=1: where the database's time went, by statement (planning
  // included), counted from the last run's start (the drain's, for a backlog run); =plans
  // also logs the slowest plans (auto_explain with timing, which slows every statement).
  const pgStats = process.env.GATE_HOOKS_BENCH_PGSTATS ?? '';
  const pg = await startPostgres({
    settings: pgStats
      ? [
          'shared_preload_libraries=pg_stat_statements,auto_explain',
          'pg_stat_statements.track_planning=on',
          ...(pgStats === 'plans' ? ['auto_explain.log_min_duration=4ms', 'auto_explain.log_analyze=on', 'auto_explain.log_nested_statements=on'] : []),
        ]
      : [],
  });
  const url = pg.createDatabase('bench');
  if (pgStats) pg.psql('CREATE EXTENSION pg_stat_statements', 'bench');
  const a = await startHooks({ config, dbPath: url });
  const b = await startHooks({ config, dbPath: url });
  try {
    const analyze = () => {
      pg.psql('ANALYZE', 'bench');
      if (pgStats) pg.psql('SELECT pg_stat_statements_reset()', 'bench');
    };
    results.push(...(await runAll('PostgreSQL, two instances', { ca, list: [a, b], analyze, dbPid: pg.proc.pid })));
    if (pgStats)
      console.error(
        pg.psql(
          "SELECT round(total_exec_time)::text || ' ms executing, ' || round(total_plan_time)::text || ' ms planning, ' || calls || ' calls, ' || rows || ' rows: ' || left(regexp_replace(query, '\\s+', ' ', 'g'), 110) FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 8",
          'bench',
        ),
        // How many row updates were HOT (no index entry written).
        pg.psql("SELECT 'deliveries: ' || n_tup_upd || ' updates, ' || n_tup_hot_upd || ' HOT' FROM pg_stat_user_tables WHERE relname = 'deliveries'", 'bench'),
        // The slowest plans, as auto_explain logged them.
        pg.proc.stderr.text(),
      );
  } finally {
    await a.stop();
    await b.stop();
    a.cleanup();
    b.cleanup();
    await pg.stop();
  }
}
ca.cleanup();
console.log(JSON.stringify(results, null, 2));
