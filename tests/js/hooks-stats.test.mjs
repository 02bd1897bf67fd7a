// gate-hooks' GET /stats and each delivery's latest attempt (its end and duration) on both
// stores, SQLite and a real PostgreSQL, against the real binary and a real HTTPS receiver: the
// organization's queue depth while an attempt hangs, its dead letters, the last hour's
// deliveries by their latest attempt, rate and failure rate, and another organization's
// numbers untouched. (Beside hooks.test.mjs, which runs the rest of the API on both stores,
// because that file is past 600 lines.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { TOKENS, eventually, makeTestCa, startHooks, startPostgres, startReceiver } from './lib/index.mjs';

let pg;
after(async () => {
  await pg?.stop();
});

for (const backend of ['sqlite', 'postgres']) {
  describe(`gate-hooks stats on ${backend}`, { timeout: 120_000 }, () => {
    let ca;
    let receiver;
    let hooks;

    before(async () => {
      ca = makeTestCa();
      receiver = await startReceiver(ca);
      const dbPath = backend === 'postgres' ? await (pg ??= await startPostgres()).createDatabase() : undefined;
      hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile, maxAttempts: 2 } }, dbPath });
    });
    after(async () => {
      await hooks?.stop();
      hooks?.cleanup();
      await receiver?.stop();
      ca?.cleanup();
    });

    const create = async (event, p, token = TOKENS.org_a) => {
      const r = await hooks.api('POST', '/webhooks', { body: { event, url: receiver.url(p) }, token });
      assert.equal(r.status, 201, r.text);
      return r.json;
    };
    const emit = async (type, token = TOKENS.org_a) => assert.equal((await hooks.api('POST', '/events', { body: { type, data: {} }, token })).status, 202);
    const history = async (id, token = TOKENS.org_a) => (await hooks.api('GET', `/webhooks/${id}/deliveries`, { token })).json.deliveries;

    test('the queue, dead letters and the last hour by latest attempt, per organization', async () => {
      const empty = { window_seconds: 3600, queue_depth: 0, dead_letters: 0, delivered_last_hour: 0, failed_last_hour: 0, delivery_rate_per_minute: 0, failure_rate: null };
      assert.deepEqual(await hooks.stats(), empty);
      assert.equal((await hooks.api('GET', '/stats', { token: null })).status, 401);

      const held = [];
      receiver.onHang = (res) => held.push(res);
      receiver.respond = (r) => (r.url === '/fail' ? { status: 500 } : r.url === '/hang' ? { hang: true } : { status: 200 });
      const ok = await create('deploy.success', '/ok');
      const failing = await create('deploy.failed', '/fail');
      const slow = await create('usage.threshold', '/hang');
      const theirs = await create('deploy.success', '/theirs', TOKENS.org_b);

      await emit('deploy.success');
      await emit('deploy.success');
      await emit('deploy.failed');
      await eventually(async () => (await history(failing.id))[0]?.status === 'dead', { timeoutMs: 15_000, what: 'a dead letter' });
      await eventually(async () => (await history(ok.id)).every((d) => d.status === 'succeeded'), { what: 'two deliveries' });
      // The failing delivery failed twice (maxAttempts 2): one delivery, one failure.
      assert.deepEqual(await hooks.stats(), { ...empty, dead_letters: 1, delivered_last_hour: 2, failed_last_hour: 1, delivery_rate_per_minute: 2 / 60, failure_rate: 1 / 3 });
      assert.deepEqual(await hooks.stats(TOKENS.org_b), empty, "another organization's deliveries are not counted");

      // An attempt that hangs is queued until it ends; its duration is the time it took.
      await emit('usage.threshold');
      await eventually(() => held.length === 1, { what: 'the hanging attempt' });
      assert.equal((await hooks.stats()).queue_depth, 1);
      const receivedAt = receiver.received.findLast((r) => r.url === '/hang').at;
      await eventually(() => Date.now() - receivedAt >= 200, { what: 'the attempt taking 200 ms' });
      const releasedAt = Date.now();
      held[0].writeHead(202).end();
      await eventually(async () => (await history(slow.id))[0]?.status === 'succeeded', { what: 'the slow delivery' });
      const [d] = await history(slow.id);
      assert.ok(d.last_duration_ms >= releasedAt - receivedAt - 1, `${d.last_duration_ms} ms for an answer held ${releasedAt - receivedAt} ms`);
      assert.ok(d.last_duration_ms < 2000, `${d.last_duration_ms} ms`);
      assert.ok(Math.abs(Date.parse(d.last_attempt_at) - releasedAt) < 2000, d.last_attempt_at);
      assert.equal(d.response_code, 202);
      assert.deepEqual(await hooks.stats(), { ...empty, dead_letters: 1, delivered_last_hour: 3, failed_last_hour: 1, delivery_rate_per_minute: 3 / 60, failure_rate: 1 / 4 });

      // A dead letter retried to success: delivered, no longer failed, out of the queue.
      receiver.respond = () => ({ status: 200 });
      assert.equal((await hooks.api('POST', `/webhook-deliveries/dlq/${failing.id}/retry`)).status, 202);
      await eventually(async () => (await history(failing.id))[0]?.status === 'succeeded', { what: 'the retried delivery' });
      assert.deepEqual(await hooks.stats(), { ...empty, delivered_last_hour: 4, delivery_rate_per_minute: 4 / 60, failure_rate: 0 });

      await emit('deploy.success', TOKENS.org_b);
      await eventually(async () => (await history(theirs.id, TOKENS.org_b))[0]?.status === 'succeeded', { what: "org_b's delivery" });
      assert.equal((await hooks.stats(TOKENS.org_b)).delivered_last_hour, 1);
      assert.equal((await hooks.stats()).delivered_last_hour, 4);
    });
  });
}
