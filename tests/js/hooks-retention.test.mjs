// gate-hooks' retention end to end, on both stores (SQLite and a real PostgreSQL), against the
// real binary and a real HTTPS receiver on 127.0.0.1, with `retention: {days: 1,
// sweepIntervalMs: 1000}`: org_a's deliveries, delivered, dead and one waiting for its retry,
// are made two days old in the database (the binary's clock cannot be moved), and the next
// sweep deletes the finished ones with their attempts and events and keeps the waiting one;
// org_b's, recent, stay until they are aged in turn. The API and the numbers (/stats, the
// dead-letter queue, the webhook's attempts the console shows) read what is left; /metrics
// counts what went and the log has one line per sweep that deleted something.
import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';

import { TOKENS, eventually, makeTestCa, metric, startHooks, startPostgres, startReceiver } from './lib/index.mjs';

const TWO_DAYS_MS = 2 * 86_400_000;

let pg;
after(async () => {
  await pg?.stop();
});

// Every time of an organization's rows moved two days back, as if it all happened then (one
// transaction: a sweep sees all of it or none).
const agingSql = (org) => [
  'BEGIN',
  `UPDATE deliveries SET created_at = created_at - ${TWO_DAYS_MS}, updated_at = updated_at - ${TWO_DAYS_MS}, last_attempt_at = last_attempt_at - ${TWO_DAYS_MS}, dead_at = dead_at - ${TWO_DAYS_MS} WHERE organization = '${org}'`,
  `UPDATE events SET created_at = created_at - ${TWO_DAYS_MS} WHERE organization = '${org}'`,
  `UPDATE delivery_attempts SET ended_at = ended_at - ${TWO_DAYS_MS} WHERE webhook_id IN (SELECT id FROM webhooks WHERE organization = '${org}')`,
  'COMMIT',
];

for (const backend of ['sqlite', 'postgres']) {
  describe(`gate-hooks retention on ${backend}`, { timeout: 120_000 }, () => {
    let ca;
    let receiver;
    let hooks;
    let sql; // runs statements on the store's database, past gate-hooks

    before(async () => {
      ca = makeTestCa();
      receiver = await startReceiver(ca);
      let dbPath;
      if (backend === 'postgres') {
        pg ??= await startPostgres();
        const name = `retention_${process.pid}`;
        dbPath = pg.createDatabase(name);
        sql = (statements) => pg.psql(statements.join('; '), name);
      }
      hooks = await startHooks({
        config: {
          delivery: { allowPrivateTargets: true, caFile: ca.caFile, maxAttempts: 2, maxDelayMs: 3_600_000 },
          retention: { days: 1, sweepIntervalMs: 1000 },
        },
        dbPath,
      });
      if (backend === 'sqlite')
        sql = (statements) => {
          const db = new DatabaseSync(hooks.database);
          try {
            db.exec('PRAGMA busy_timeout = 5000');
            for (const s of statements) db.exec(s);
          } finally {
            db.close();
          }
        };
    });
    after(async () => {
      await hooks?.stop();
      hooks?.cleanup();
      await receiver?.stop();
      ca?.cleanup();
    });

    const call = async (method, p, token = TOKENS.org_a, status = 200) => {
      const r = await hooks.api(method, p, { token });
      assert.equal(r.status, status, `${method} ${p}: ${r.text}`);
      return r.json;
    };
    const create = async (event, p, token = TOKENS.org_a) => {
      const r = await hooks.api('POST', '/webhooks', { body: { event, url: receiver.url(p) }, token });
      assert.equal(r.status, 201, r.text);
      return r.json;
    };
    const emit = async (type, token = TOKENS.org_a) => assert.equal((await hooks.api('POST', '/events', { body: { type, data: {} }, token })).status, 202);
    const history = async (id, token = TOKENS.org_a) => (await call('GET', `/webhooks/${id}/deliveries`, token)).deliveries;
    const deleted = async () => {
      const text = await hooks.metrics();
      const kind = (k) => metric(text, 'gate_hooks_retention_deleted_total', { kind: k }, NaN);
      return { deliveries: kind('deliveries'), attempts: kind('attempts'), events: kind('events') };
    };
    const sweepLines = () => hooks.proc.stderr.text().split('\n').filter((l) => /retention: deleted/.test(l));

    test('old finished deliveries go with their attempts and events; waiting ones and recent ones stay', async () => {
      receiver.respond = (r) =>
        r.url === '/dead' ? { status: 500 } : r.url === '/later' ? { status: 503, headers: { 'retry-after': '3600' } } : { status: 200 };
      const ok = await create('deploy.success', '/ok');
      const dead = await create('deploy.failed', '/dead');
      const later = await create('usage.threshold', '/later');
      const theirs = await create('deploy.success', '/theirs', TOKENS.org_b);
      await emit('deploy.success');
      await emit('deploy.success');
      await emit('deploy.failed');
      await emit('usage.threshold');
      await emit('deploy.success', TOKENS.org_b);
      await eventually(async () => (await history(ok.id)).filter((d) => d.status === 'succeeded').length === 2, { what: 'two deliveries' });
      await eventually(async () => (await history(dead.id))[0]?.status === 'dead', { timeoutMs: 15_000, what: 'a dead letter' });
      await eventually(async () => (await history(later.id))[0]?.attempts === 1, { what: 'a delivery waiting for its retry' });
      await eventually(async () => (await history(theirs.id, TOKENS.org_b))[0]?.status === 'succeeded', { what: "org_b's delivery" });
      const [waiting] = await history(later.id);
      assert.equal(waiting.status, 'pending');
      const [gone] = await history(ok.id);
      assert.equal((await call('GET', `/webhook-deliveries/${gone.id}/attempts`)).attempts.length, 1);
      assert.equal((await hooks.stats()).dead_letters, 1);
      assert.deepEqual(await deleted(), { deliveries: 0, attempts: 0, events: 0 }, 'nothing is a day old yet');
      assert.deepEqual(sweepLines(), []);

      sql(agingSql('org_a'));
      await eventually(async () => (await history(ok.id)).length === 0, { what: "the sweep of org_a's old deliveries" });
      assert.deepEqual(await history(dead.id), []);
      assert.deepEqual((await history(later.id)).map((d) => [d.id, d.status]), [[waiting.id, 'pending']], 'a delivery in a retry stays');
      assert.equal((await history(theirs.id, TOKENS.org_b)).length, 1, "org_b's recent delivery stays");
      await call('GET', `/webhook-deliveries/${gone.id}/attempts`, TOKENS.org_a, 404);
      assert.equal((await call('GET', `/webhook-deliveries/${waiting.id}/attempts`)).attempts.length, 1);
      // What the console reads: the numbers and each webhook's attempts.
      const stats = await hooks.stats();
      assert.equal(stats.dead_letters, 0, 'the old dead letter is gone');
      assert.equal(stats.queue_depth, 1, 'the waiting delivery is still queued');
      assert.equal((await call('GET', '/webhook-deliveries/dlq/stats')).total, 0);
      assert.deepEqual((await call('GET', `/webhooks/${ok.id}/attempts`)).attempts, []);
      assert.equal((await call('GET', `/webhooks/${later.id}/attempts`)).attempts.length, 1);
      assert.equal((await hooks.stats(TOKENS.org_b)).delivered_last_hour, 1);
      // Two delivered (an attempt each), one dead (two attempts); their three events.
      await eventually(() => sweepLines().length > 0, { what: "the sweep's line" });
      assert.deepEqual(await deleted(), { deliveries: 3, attempts: 4, events: 3 });
      assert.equal(sweepLines().length, 1, sweepLines().join('\n'));
      assert.match(sweepLines()[0], /retention: deleted 3 deliveries finished before \d{4}-\d\d-\d\dT[\d:.]+Z \(retention\.days 1\), 4 attempts of theirs and 3 events, in \d+ batches/);

      // org_b's turn when its rows are as old; the sweeps in between deleted nothing, logged nothing.
      sql(agingSql('org_b'));
      await eventually(async () => (await history(theirs.id, TOKENS.org_b)).length === 0, { what: "the sweep of org_b's delivery" });
      await eventually(() => sweepLines().length > 1, { what: "the second sweep's line" });
      assert.deepEqual(await deleted(), { deliveries: 4, attempts: 5, events: 4 });
      assert.equal(sweepLines().length, 2, sweepLines().join('\n'));
      assert.match(sweepLines()[1], /deleted 1 deliveries .*, 1 attempts of theirs and 1 events/);
      assert.equal((await history(later.id)).length, 1, 'the waiting delivery is still there');
    });
  });
}
