// gate-hooks end to end on SQLite: the real binary, real HTTPS receivers behind a test CA made
// with openssl, signatures checked independently with node's crypto.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { TOKENS, eventually, makeTestCa, metric, signatureValid, startHooks, startPostgres, startReceiver } from './lib/index.mjs';

const SECRET = 'whsec-0123456789abcdef';

// One PostgreSQL for the whole file, started on first use; each gate-hooks gets a fresh
// database in it.
let pg;
const database = async (backend) => (backend === 'postgres' ? (pg ??= await startPostgres()).createDatabase() : undefined);
after(async () => {
  await pg?.stop();
});

for (const backend of ['sqlite', 'postgres']) {
describe(`gate-hooks on ${backend}`, { timeout: 240_000 }, () => {
  let ca;
  let receiver;
  let hooks;
  let dbUrl;

  const create = async (event, url, extra = {}) => {
    const r = await hooks.api('POST', '/webhooks', { body: { event, url, ...extra } });
    assert.equal(r.status, 201, r.text);
    return r.json;
  };
  const emit = async (type, data = {}, token = TOKENS.org_a) => {
    const r = await hooks.api('POST', '/events', { body: { type, data }, token });
    assert.equal(r.status, 202, r.text);
    return r.json;
  };
  const history = async (id) => (await hooks.api('GET', `/webhooks/${id}/deliveries`)).json.deliveries;
  const forEvent = (eventId) => receiver.received.filter((r) => r.json?.event_id === eventId);
  const at = (url, eventId) => forEvent(eventId).filter((r) => r.url === url);

  before(async () => {
    ca = makeTestCa();
    receiver = await startReceiver(ca);
    dbUrl = await database(backend);
    hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile } }, dbPath: dbUrl });
  });

  after(async () => {
    await hooks?.stop();
    hooks?.cleanup();
    await receiver?.stop();
    ca?.cleanup();
  });

  test('an event reaches its webhook signed, and the history shows it', async () => {
    receiver.respond = () => ({ status: 200, body: 'thanks' });
    const hook = await create('deploy.success', receiver.url('/deploys'), { secret: SECRET });
    assert.match(hook.id, /^hook_[0-9a-f]+$/);
    assert.equal(hook.has_secret, true);
    assert.equal(hook.secret, undefined, 'the secret is never sent back');
    const ev = await emit('deploy.success', { function: 'resize', version: 7 });
    assert.equal(ev.deliveries, 1);
    await eventually(() => forEvent(ev.id).length === 1, { what: 'the delivery' });
    const [got] = forEvent(ev.id);
    assert.equal(got.url, '/deploys');
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['gate-event'], 'deploy.success');
    assert.match(got.headers['gate-delivery'], /^dlv_/);
    assert.equal(got.json.id, got.headers['gate-delivery']);
    assert.ok(Math.abs(Number(got.headers['gate-timestamp']) - Date.now() / 1000) < 60);
    assert.ok(signatureValid(SECRET, got.body, got.headers['gate-signature']), 'the signature checks out');
    assert.ok(!signatureValid('another-secret-xx', got.body, got.headers['gate-signature']));
    assert.deepEqual(got.json.data, { function: 'resize', version: 7 });
    assert.equal(got.json.type, 'deploy.success');
    assert.equal(got.json.organization, 'org_a');
    await eventually(async () => (await history(hook.id))[0]?.status === 'succeeded', { what: 'history' });
    const [d] = await history(hook.id);
    assert.equal(d.response_code, 200);
    assert.equal(d.response_body, 'thanks');
    assert.equal(d.attempts, 1);
  });

  test('whatever bytes a receiver answers are kept as text: ill-formed UTF-8 and NUL replaced, cut between characters', async () => {
    const hook = await create('deploy.success', receiver.url('/binary'));
    receiver.respond = (r) =>
      r.url === '/binary' ? { status: 200, body: Buffer.concat([Buffer.from('ok'), Buffer.from([0xff, 0x00]), Buffer.from('é'.repeat(3000))]) } : { status: 200 };
    await emit('deploy.success', { v: 1 });
    await eventually(async () => (await history(hook.id))[0]?.status === 'succeeded', { what: 'a recorded success' });
    const [d] = await history(hook.id);
    assert.equal(d.attempts, 1, 'recorded on the first attempt, not retried');
    // 2 + 3 + 3 bytes, then 2044 two-byte characters: 4096 bytes, no character split.
    assert.equal(d.response_body, 'ok\uFFFD\uFFFD' + 'é'.repeat(2044));
  });

  test('a receiver that is down, then up: the retries succeed; Retry-After (seconds and HTTP date) is honoured', async () => {
    const hook = await create('deploy.failed', receiver.url('/flaky'));
    let calls = 0;
    let retryAt;
    receiver.respond = (r) => {
      if (r.url !== '/flaky') return { status: 200 };
      calls += 1;
      if (calls === 1) return { status: 503, body: 'down' };
      if (calls === 2) return { status: 429, headers: { 'retry-after': '1' } };
      if (calls === 3) {
        // The HTTP-date form (IMF-fixdate, whole seconds): 0.9-1.9 s ahead, under maxDelayMs
        // (2 s) and past the schedule's 200-400 ms.
        retryAt = new Date(Date.now() + 1900).toUTCString();
        return { status: 503, headers: { 'retry-after': retryAt } };
      }
      return { status: 204 };
    };
    const ev = await emit('deploy.failed', { reason: 'oom' });
    await eventually(async () => (await history(hook.id))[0]?.status === 'succeeded', { timeoutMs: 15_000, what: 'success after retries' });
    const attempts = forEvent(ev.id);
    assert.equal(attempts.length, 4);
    assert.equal(new Set(attempts.map((a) => a.headers['gate-delivery'])).size, 1, 'one delivery id across retries');
    // The schedule alone would have waited 100-200 ms; the receiver asked for 1 s.
    assert.ok(attempts[2].at - attempts[1].at >= 1000, `waited ${attempts[2].at - attempts[1].at} ms after Retry-After: 1`);
    assert.ok(attempts[3].at >= Date.parse(retryAt), `attempt at ${new Date(attempts[3].at).toISOString()}, asked for ${retryAt}`);
    const [d] = await history(hook.id);
    assert.equal(d.attempts, 4);
    assert.equal(d.response_code, 204);
  });

  test('a receiver that always fails: the dead-letter queue shows it, and a retry after recovery empties it', async () => {
    const hook = await create('activation.error', receiver.url('/broken'));
    let broken = true;
    receiver.respond = (r) => (r.url === '/broken' && broken ? { status: 500, body: 'boom' } : { status: 200 });
    const ev = await emit('activation.error', { fn: 'x' });
    await eventually(async () => (await history(hook.id))[0]?.status === 'dead', { timeoutMs: 15_000, what: 'dead letter' });
    assert.equal(forEvent(ev.id).length, 4, 'maxAttempts attempts, then the queue');
    const stats = (await hooks.api('GET', '/webhook-deliveries/dlq/stats')).json;
    assert.equal(stats.by_event_type['activation.error'], 1);
    assert.ok(stats.total >= 1);
    assert.equal(stats.by_age.under_1h, stats.total);
    const list = (await hooks.api('GET', `/webhook-deliveries/dlq?webhook_id=${hook.id}`)).json;
    assert.equal(list.entries.length, 1);
    const [entry] = list.entries;
    assert.equal(entry.attempts, 4);
    assert.equal(entry.response_code, 500);
    assert.equal(entry.response_body, 'boom');
    assert.ok(entry.dead_at && entry.created_at);
    // Org b sees none of it.
    const other = (await hooks.api('GET', '/webhook-deliveries/dlq/stats', { token: TOKENS.org_b })).json;
    assert.equal(other.total, 0);
    assert.equal((await hooks.api('POST', `/webhook-deliveries/dlq/${hook.id}/retry`, { token: TOKENS.org_b })).status, 404);
    broken = false;
    const retried = await hooks.api('POST', `/webhook-deliveries/dlq/${hook.id}/retry`);
    assert.equal(retried.status, 202);
    assert.equal(retried.json.retried, 1);
    await eventually(async () => (await hooks.api('GET', `/webhook-deliveries/dlq?webhook_id=${hook.id}`)).json.entries.length === 0, { what: 'the queue emptied' });
    assert.equal((await history(hook.id))[0].status, 'succeeded');
  });

  test('a 410 from the receiver disables the webhook', async () => {
    const hook = await create('rollback.success', receiver.url('/gone'));
    receiver.respond = (r) => (r.url === '/gone' ? { status: 410 } : { status: 200 });
    await emit('rollback.success');
    await eventually(async () => (await hooks.api('GET', `/webhooks/${hook.id}`)).json.enabled === false, { what: 'disabled' });
    const w = (await hooks.api('GET', `/webhooks/${hook.id}`)).json;
    assert.match(w.disabled_reason, /410/);
    assert.equal((await emit('rollback.success')).deliveries, 0, 'a disabled webhook gets nothing');
    const on = await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { enabled: true } });
    assert.equal(on.json.enabled, true);
    assert.equal(on.json.disabled_reason, undefined);
  });

  // Waits until the given deliveries are due (they would be claimed now if they were not held),
  // then delivers a fence event: claims take the oldest due first, so once the fence has
  // arrived, a held delivery that was claimable would have been attempted too.
  const fenceAfter = async (webhookId, eventIds) => {
    const due = (await history(webhookId)).filter((d) => eventIds.includes(d.event_id)).map((d) => Date.parse(d.next_attempt_at));
    assert.equal(due.length, eventIds.length, 'every delivery is waiting');
    await eventually(() => Date.now() > Math.max(...due) + 1000, { what: 'the held deliveries falling due' });
    const fence = await create('usage.threshold', receiver.url(`/fence-${webhookId}`));
    const ev = await emit('usage.threshold');
    await eventually(() => at(`/fence-${webhookId}`, ev.id).length === 1, { what: 'the fence delivery' });
    await hooks.api('DELETE', `/webhooks/${fence.id}`);
  };
  // The delivery of `eventId` has no attempt under way (none is claimed once its webhook is off).
  const settled = (webhookId, eventId) =>
    eventually(async () => (await history(webhookId)).find((d) => d.event_id === eventId)?.status === 'pending', { what: 'no attempt under way' });
  // On PostgreSQL, how many of a webhook's deliveries are held out of the pending index.
  const heldRows = (webhookId) => (backend === 'postgres' ? Number(pg.psql(`SELECT count(*) FROM deliveries WHERE webhook_id = '${webhookId}' AND status = 'pending' AND held`, new URL(dbUrl).pathname.slice(1)).trim()) : undefined);

  test('a disabled webhook holds its waiting deliveries, an attempt in flight included, until it is enabled', async () => {
    // Other tests' webhooks may take the same events: only this one's receiver path counts.
    const hook = await create('deploy.failed', receiver.url('/held'));
    let hung;
    let healthy = false;
    receiver.respond = (r) => {
      if (r.url !== '/held') return { status: 200 };
      if (healthy) return { status: 204 };
      // The first event is asked to come back in 2 s; the second hangs until the test answers.
      return r.json.data.n === 2 && !hung ? { hang: true } : { status: 503, headers: { 'retry-after': '2' } };
    };
    receiver.onHang = (res) => {
      hung = res;
    };
    const waiting = await emit('deploy.failed', { n: 1 });
    await eventually(async () => (await history(hook.id)).find((d) => d.event_id === waiting.id)?.attempts === 1, { what: 'the first attempt failing' });
    const inFlight = await emit('deploy.failed', { n: 2 });
    await eventually(() => hung !== undefined, { what: 'the second attempt hanging' });
    assert.equal((await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { enabled: false } })).json.enabled, false);
    // A retry claimed just before the switch may still be on its way: count once it is back.
    await settled(hook.id, waiting.id);
    const attempted = at('/held', waiting.id).length;
    // The attempt that was in flight fails after the switch: it comes back held.
    hung.writeHead(503);
    hung.end();
    await eventually(async () => (await history(hook.id)).find((d) => d.event_id === inFlight.id)?.attempts === 1, { what: 'the in-flight outcome' });
    await fenceAfter(hook.id, [waiting.id, inFlight.id]);
    assert.equal(at('/held', waiting.id).length, attempted, 'not attempted while disabled');
    assert.equal(at('/held', inFlight.id).length, 1, 'not attempted while disabled');
    if (backend === 'postgres') assert.equal(heldRows(hook.id), 2);
    healthy = true;
    assert.equal((await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { enabled: true } })).json.enabled, true);
    await eventually(async () => (await history(hook.id)).every((d) => d.status === 'succeeded'), { timeoutMs: 15_000, what: 'both delivered once enabled' });
    if (backend === 'postgres') assert.equal(heldRows(hook.id), 0);
  });

  test('a 410 holds the webhook\'s other waiting deliveries until it is enabled', async () => {
    const hook = await create('rollback.success', receiver.url('/gone-later'));
    let first;
    let healthy = false;
    receiver.respond = (r) => {
      if (r.url !== '/gone-later') return { status: 200 };
      if (healthy) return { status: 204 };
      // The first event is asked to come back in 2 s; the second is answered 410 meanwhile.
      return r.json.event_id === first ? { status: 503, headers: { 'retry-after': '2' } } : { status: 410 };
    };
    first = (await emit('rollback.success', { n: 1 })).id;
    await eventually(async () => (await history(hook.id)).find((d) => d.event_id === first)?.attempts >= 1, { what: 'the first attempt failing' });
    await emit('rollback.success', { n: 2 });
    await eventually(async () => (await hooks.api('GET', `/webhooks/${hook.id}`)).json.enabled === false, { what: 'the 410 disabling it' });
    await settled(hook.id, first);
    const attempted = at('/gone-later', first).length;
    await fenceAfter(hook.id, [first]);
    assert.equal(at('/gone-later', first).length, attempted, 'not attempted while disabled');
    if (backend === 'postgres') assert.equal(heldRows(hook.id), 1);
    healthy = true;
    await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { enabled: true } });
    await eventually(async () => (await history(hook.id)).find((d) => d.event_id === first)?.status === 'succeeded', { timeoutMs: 15_000, what: 'delivered once enabled' });
  });

  test('a webhook\'s url and secret can be changed in place; waiting deliveries follow; a bad change changes nothing', async () => {
    const hook = await create('usage.threshold', receiver.url('/old'), { secret: SECRET });
    const NEW_SECRET = 'whsec-fedcba9876543210';
    let moved = false;
    receiver.respond = (r) => (r.url === '/old' && !moved ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 });
    const waiting = await emit('usage.threshold', { n: 1 });
    await eventually(() => at('/old', waiting.id).length >= 1, { what: 'the first attempt failing' });
    // A bad member refuses the whole change.
    const bad = await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { url: receiver.url('/new'), secret: 'short' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.error.field, 'secret');
    assert.equal((await hooks.api('GET', `/webhooks/${hook.id}`)).json.url, receiver.url('/old'));
    for (const [body, field] of [[{}, undefined], [{ event: 'deploy.failed' }, 'event'], [{ url: 'http://127.0.0.1/' }, 'url'], [{ secret: 5 }, 'secret']]) {
      const r = await hooks.api('PATCH', `/webhooks/${hook.id}`, { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.field, field, JSON.stringify(body));
    }
    const changed = await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { url: receiver.url('/new'), secret: NEW_SECRET } });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(changed.json.url, receiver.url('/new'));
    assert.equal(changed.json.enabled, true, 'what was not named is kept');
    moved = true;
    // The delivery that was waiting goes to the new url, signed with the new secret.
    await eventually(() => at('/new', waiting.id).length === 1, { timeoutMs: 15_000, what: 'the retry at the new url' });
    const [retry] = at('/new', waiting.id);
    assert.ok(signatureValid(NEW_SECRET, retry.body, retry.headers['gate-signature']));
    assert.ok(!signatureValid(SECRET, retry.body, retry.headers['gate-signature']));
    // null removes the secret: deliveries go unsigned.
    const unsigned = await hooks.api('PATCH', `/webhooks/${hook.id}`, { body: { secret: null } });
    assert.equal(unsigned.json.has_secret, false);
    const plain = await emit('usage.threshold', { n: 2 });
    await eventually(() => at('/new', plain.id).length === 1, { what: 'the unsigned delivery' });
    assert.equal(at('/new', plain.id)[0].headers['gate-signature'], undefined);
    await hooks.api('DELETE', `/webhooks/${hook.id}`);
  });

  test('the test action against a live, a failing, a refused and a silent url', async () => {
    receiver.respond = (r) => {
      if (r.url === '/test-fail') return { status: 500 };
      if (r.url === '/test-hang') return { hang: true };
      return { status: 200 };
    };
    const live = await create('usage.threshold', receiver.url('/test-ok'), { secret: SECRET });
    const r1 = await hooks.api('POST', `/webhooks/${live.id}/test`);
    assert.deepEqual(r1.json, { success: true, status: 200, status_text: 'OK' });
    const sent = receiver.received.at(-1);
    assert.equal(sent.json.type, 'webhook.test');
    assert.ok(signatureValid(SECRET, sent.body, sent.headers['gate-signature']));
    const failing = await create('usage.threshold', receiver.url('/test-fail'));
    assert.deepEqual((await hooks.api('POST', `/webhooks/${failing.id}/test`)).json, { success: false, status: 500, status_text: 'Internal Server Error' });
    const refused = await create('usage.threshold', 'https://127.0.0.1:1/closed');
    const r3 = (await hooks.api('POST', `/webhooks/${refused.id}/test`)).json;
    assert.equal(r3.success, false);
    assert.match(r3.error, /connect/i);
    assert.equal(Object.keys(r3).sort().join(), 'error,success');
    const silent = await create('usage.threshold', receiver.url('/test-hang'));
    const r4 = (await hooks.api('POST', `/webhooks/${silent.id}/test`)).json;
    assert.equal(r4.success, false);
    assert.match(r4.error, /timeout/);
  });

  test('a receiver that redirects: the status is the answer, never followed, and the delivery is retried', async () => {
    const moved = (r) => /^\/moved-30[1278]$/.test(r.url);
    receiver.respond = (r) => (moved(r) ? { status: Number(r.url.slice(-3)), headers: { location: receiver.url('/redirected-here') } } : { status: 200 });
    for (const status of [301, 302, 307, 308]) {
      const hook = await create('rollback.success', receiver.url(`/moved-${status}`));
      const r = (await hooks.api('POST', `/webhooks/${hook.id}/test`)).json;
      assert.equal(r.success, false);
      assert.equal(r.status, status);
      await hooks.api('DELETE', `/webhooks/${hook.id}`);
    }
    const hook = await create('rollback.success', receiver.url('/moved-307'));
    const ev = await emit('rollback.success', { n: 1 });
    await eventually(() => at('/moved-307', ev.id).length >= 2, { what: 'a second attempt at the redirecting url' });
    receiver.respond = () => ({ status: 200 });
    await eventually(async () => (await history(hook.id))[0]?.status === 'succeeded', { what: 'delivered once it answers 200' });
    assert.deepEqual(receiver.received.filter((r) => r.url === '/redirected-here'), [], 'the url a redirect names hears nothing');
    await hooks.api('DELETE', `/webhooks/${hook.id}`);
  });

  test('organizations are isolated, and a missing or wrong token gets 401', async () => {
    const mine = await create('deploy.success', receiver.url('/mine'));
    const b = (path, method = 'GET', body) => hooks.api(method, path, { token: TOKENS.org_b, body });
    assert.equal((await b(`/webhooks/${mine.id}`)).status, 404);
    assert.equal((await b(`/webhooks/${mine.id}/deliveries`)).status, 404);
    assert.equal((await b(`/webhooks/${mine.id}`, 'PATCH', { enabled: false })).status, 404);
    assert.equal((await b(`/webhooks/${mine.id}`, 'DELETE')).status, 404);
    assert.equal((await b(`/webhooks/${mine.id}/test`, 'POST')).status, 404);
    assert.ok(!(await b('/webhooks')).json.webhooks.some((w) => w.id === mine.id));
    // Org b's event does not reach org a's webhook of the same type.
    const before = receiver.received.length;
    assert.equal((await emit('deploy.success', {}, TOKENS.org_b)).deliveries, 0);
    assert.equal(receiver.received.length, before);
    const none = await hooks.api('GET', '/webhooks', { token: null });
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate'), /^Bearer/);
    assert.equal((await hooks.api('GET', '/webhooks', { token: 'not-a-token-at-all' })).status, 401);
    assert.equal((await hooks.api('GET', '/webhook-deliveries/dlq', { token: null })).status, 401);
    assert.equal((await hooks.api('GET', '/health', { token: null })).status, 200);
  });

  test("another organization's ids answer like ids nobody holds, change nothing, and its dead letters stay its own", async () => {
    const mine = await create('usage.threshold', receiver.url('/org-a-only'), { secret: SECRET });
    receiver.respond = (r) => (r.url === '/org-a-only' ? { status: 500, body: 'down' } : { status: 200 });
    await emit('usage.threshold', { pct: 95 });
    await eventually(async () => (await history(mine.id))[0]?.status === 'dead', { timeoutMs: 15_000, what: 'a dead letter of org a' });
    receiver.respond = () => ({ status: 200 });
    const nobody = `hook_${'0'.repeat(mine.id.length - 'hook_'.length)}`;
    const asB = async (method, id, suffix = '', body) => {
      const r = await hooks.api(method, `${suffix.startsWith('/webhook-deliveries') ? '' : `/webhooks/${id}`}${suffix.replace('{id}', id)}`, { token: TOKENS.org_b, body });
      return { status: r.status, text: r.text.replaceAll(id, '<id>') };
    };
    for (const [method, suffix, body] of [
      ['GET', ''],
      ['PATCH', '', { url: receiver.url('/stolen'), secret: 'whsec-stolen-0123456789' }],
      ['PATCH', '', { enabled: false }],
      ['POST', '/test'],
      ['GET', '/deliveries'],
      ['POST', '/webhook-deliveries/dlq/{id}/retry'],
      ['DELETE', ''],
    ]) {
      const foreign = await asB(method, mine.id, suffix, body);
      assert.equal(foreign.status, 404, `${method} ${suffix}: ${foreign.text}`);
      assert.deepEqual(foreign, await asB(method, nobody, suffix, body), `${method} ${suffix}: as for an id nobody holds`);
    }
    // Org b lists, counts and finds none of org a's dead letters, even by its id.
    const dlqOfB = (query = '') => hooks.api('GET', `/webhook-deliveries/dlq${query}`, { token: TOKENS.org_b });
    assert.deepEqual((await dlqOfB(`?webhook_id=${mine.id}`)).json.entries, []);
    assert.ok(!(await dlqOfB()).json.entries.some((e) => e.webhook_id === mine.id));
    assert.equal((await hooks.api('GET', '/webhook-deliveries/dlq/stats', { token: TOKENS.org_b })).json.by_event_type['usage.threshold'], undefined);
    // Nothing of it changed org a's webhook, nor moved its dead letter.
    const still = (await hooks.api('GET', `/webhooks/${mine.id}`)).json;
    assert.equal(still.url, receiver.url('/org-a-only'));
    assert.equal(still.enabled, true);
    assert.equal(still.has_secret, true);
    const entries = (await hooks.api('GET', `/webhook-deliveries/dlq?webhook_id=${mine.id}`)).json.entries;
    assert.equal(entries.length, 1);
    assert.equal(entries[0].webhook_id, mine.id);
    assert.ok(!receiver.received.some((r) => r.url === '/stolen'));
    const retried = await hooks.api('POST', `/webhook-deliveries/dlq/${mine.id}/retry`);
    assert.equal(retried.json.retried, 1, 'org a retries its own');
    await eventually(async () => (await history(mine.id))[0]?.status === 'succeeded', { what: "org a's retry delivered" });
  });

  test('every bad input gets a 400 that names the field, and nothing is stored', async () => {
    const count = async () => (await hooks.api('GET', '/webhooks')).json.webhooks.length;
    const n = await count();
    const bad = async (body, field, pattern) => {
      const r = await hooks.api('POST', '/webhooks', { body });
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.field, field, r.text);
      if (pattern) assert.match(r.json.error.message, pattern);
    };
    await bad({ event: 'deploy.started', url: receiver.url() }, 'event', /unknown event/);
    await bad({ url: receiver.url() }, 'event', /required/);
    await bad({ event: 'deploy.success', url: 'http://example.com/x' }, 'url', /https/);
    await bad({ event: 'deploy.success', url: 'ftp:/x' }, 'url');
    await bad({ event: 'deploy.success', url: receiver.url(), secret: 'short' }, 'secret', /16/);
    await bad({ event: 'deploy.success', url: receiver.url(), extra: 1 }, 'extra');
    const notJson = await hooks.api('POST', '/webhooks', { raw: '{"event": ' });
    assert.equal(notJson.status, 400);
    assert.equal(notJson.json.error.code, 'invalid_json');
    const huge = await hooks.api('POST', '/webhooks', { raw: JSON.stringify({ event: 'deploy.success', url: receiver.url(), pad: 'x'.repeat(80_000) }) });
    assert.equal(huge.status, 413);
    assert.equal(await count(), n, 'nothing was created');
    const ev = await hooks.api('POST', '/events', { body: { type: 'deploy.nope' } });
    assert.equal(ev.json.error.field, 'type');
    assert.equal((await hooks.api('POST', '/events', { body: { type: 'deploy.success', data: [1] } })).json.error.field, 'data');
    assert.equal((await hooks.api('GET', '/webhook-deliveries/dlq?limit=0')).json.error.field, 'limit');
    assert.equal((await hooks.api('GET', '/webhook-deliveries/dlq?event_type=x')).json.error.field, 'event_type');
    assert.equal((await hooks.api('GET', '/webhook-deliveries/dlq?colour=red')).json.error.field, 'colour');
    assert.equal((await hooks.api('PATCH', '/webhooks/hook_nope', { body: { enabled: 'yes' } })).json.error.field, 'enabled');
    assert.equal((await hooks.api('PUT', '/webhooks')).status, 405);
    assert.equal((await hooks.api('GET', '/nowhere')).status, 404);
  });
});

}

// Private targets, SSRF spellings and the store's file modes: hooks-targets.test.mjs.

for (const backend of ['sqlite', 'postgres']) {
describe(`gate-hooks loses nothing (${backend})`, { timeout: 120_000 }, () => {
  test('kill -9 in the middle of a burst: after a restart every acknowledged event is delivered at least once', async () => {
    const ca = makeTestCa();
    const receiver = await startReceiver(ca);
    const config = { delivery: { allowPrivateTargets: true, caFile: ca.caFile } };
    let hooks = await startHooks({ config, dbPath: await database(backend) });
    const first = hooks;
    const dbPath = hooks.database;
    try {
      const hook = (await hooks.api('POST', '/webhooks', { body: { event: 'usage.threshold', url: receiver.url('/burst'), secret: SECRET } })).json;
      const acknowledged = [];
      let killed = false;
      const fire = async (i) => {
        try {
          const r = await hooks.api('POST', '/events', { body: { type: 'usage.threshold', data: { i } } });
          if (r.status === 202) acknowledged.push(r.json.id);
        } catch {
          // the daemon died under this request: not acknowledged, the platform would resend
        }
      };
      for (let batch = 0; batch < 30; ++batch) {
        await Promise.all(Array.from({ length: 10 }, (_, k) => fire(batch * 10 + k)));
        if (batch === 12) {
          await hooks.kill9();
          killed = true;
          break;
        }
      }
      assert.ok(killed);
      assert.ok(acknowledged.length >= 100, `${acknowledged.length} acknowledged before the kill`);
      hooks = await startHooks({ config, dbPath });
      const delivered = () => new Set(receiver.received.filter((r) => r.url === '/burst').map((r) => r.json.event_id));
      await eventually(() => acknowledged.every((id) => delivered().has(id)), { timeoutMs: 30_000, what: 'every acknowledged event delivered' });
      // Every copy is genuine, and a receiver can deduplicate by the delivery id.
      const copies = receiver.received.filter((r) => r.url === '/burst');
      assert.ok(copies.every((r) => signatureValid(SECRET, r.body, r.headers['gate-signature'])));
      const ids = new Set(copies.map((r) => r.headers['gate-delivery']));
      assert.ok(ids.size >= acknowledged.length);
      const w = await hooks.api('GET', `/webhooks/${hook.id}/deliveries`);
      assert.equal(w.status, 200);
    } finally {
      await hooks.stop();
      hooks.cleanup();
      first.cleanup(); // the database lives in the first instance's folder
      await receiver.stop();
      ca.cleanup();
    }
  });
});
}

describe('two gate-hooks instances on one PostgreSQL', { timeout: 120_000 }, () => {
  test('share the queue without attempting any delivery twice', async () => {
    const ca = makeTestCa();
    const receiver = await startReceiver(ca);
    const url = await database('postgres');
    const config = { delivery: { allowPrivateTargets: true, caFile: ca.caFile, concurrency: 8 } };
    const one = await startHooks({ config, dbPath: url });
    const two = await startHooks({ config, dbPath: url });
    try {
      receiver.respond = () => ({ status: 200 });
      const hook = (await one.api('POST', '/webhooks', { body: { event: 'deploy.success', url: receiver.url('/shared') } })).json;
      assert.equal((await two.api('GET', `/webhooks/${hook.id}`)).status, 200, 'both see one store');
      const ids = [];
      for (let batch = 0; batch < 20; ++batch)
        await Promise.all(
          Array.from({ length: 10 }, async (_, k) => {
            const via = (batch + k) % 2 ? one : two;
            const r = await via.api('POST', '/events', { body: { type: 'deploy.success', data: { n: batch * 10 + k } } });
            assert.equal(r.status, 202);
            ids.push(r.json.id);
          }),
        );
      const shared = () => receiver.received.filter((r) => r.url === '/shared');
      await eventually(() => new Set(shared().map((r) => r.json.event_id)).size === ids.length, { timeoutMs: 30_000, what: 'all delivered' });
      const perDelivery = new Map();
      for (const r of shared()) perDelivery.set(r.headers['gate-delivery'], (perDelivery.get(r.headers['gate-delivery']) ?? 0) + 1);
      const twice = [...perDelivery].filter(([, n]) => n > 1);
      assert.deepEqual(twice, [], 'no delivery attempted twice');
      assert.equal(perDelivery.size, ids.length);
      // Both instances worked the queue.
      // An attempt is counted once its answer is back, after the receiver has recorded it.
      const attempts = async (h) => metric(await h.metrics(), 'gate_hooks_attempts_total', {}, NaN);
      await eventually(async () => (await attempts(one)) + (await attempts(two)) >= ids.length, { what: 'every attempt counted' });
      const [a, b] = [await attempts(one), await attempts(two)];
      assert.equal(a + b, ids.length);
      assert.ok(a > 0 && b > 0, `attempts ${a} and ${b}`);
    } finally {
      await one.stop();
      await two.stop();
      one.cleanup();
      two.cleanup();
      await receiver.stop();
      ca.cleanup();
    }
  });
});

describe('gate-hooks operations', { timeout: 60_000 }, () => {
  test('gate-hooks emit posts an event that is delivered; bad usage exits 2', async () => {
    const { spawnSync } = await import('node:child_process');
    const { hooksBin } = await import('./lib/index.mjs');
    const ca = makeTestCa();
    const receiver = await startReceiver(ca);
    const hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile } } });
    try {
      await hooks.api('POST', '/webhooks', { body: { event: 'rollback.success', url: receiver.url('/emitted') } });
      const env = { ...process.env, HOOKS_TOKEN: TOKENS.org_a };
      const ok = spawnSync(hooksBin(), ['emit', '--api', hooks.base, '--token-env', 'HOOKS_TOKEN', '--type', 'rollback.success', '--data', '{"to":"v6"}'], { env, encoding: 'utf8' });
      assert.equal(ok.status, 0, ok.stderr);
      const id = JSON.parse(ok.stdout).id;
      await eventually(() => receiver.received.some((r) => r.json?.event_id === id), { what: 'the emitted event delivered' });
      assert.deepEqual(receiver.received.find((r) => r.json?.event_id === id).json.data, { to: 'v6' });
      const refused = spawnSync(hooksBin(), ['emit', '--api', hooks.base, '--token-env', 'HOOKS_TOKEN', '--type', 'deploy.nope'], { env, encoding: 'utf8' });
      assert.equal(refused.status, 1);
      assert.match(refused.stdout, /"field":"type"/);
      const usage = spawnSync(hooksBin(), ['emit', '--api', hooks.base], { env, encoding: 'utf8' });
      assert.equal(usage.status, 2);
      assert.match(usage.stderr, /--token-env and --type/);
      const noToken = spawnSync(hooksBin(), ['emit', '--api', hooks.base, '--token-env', 'UNSET_VARIABLE_X', '--type', 'deploy.success'], { encoding: 'utf8' });
      assert.equal(noToken.status, 2);
    } finally {
      await hooks.stop();
      hooks.cleanup();
      await receiver.stop();
      ca.cleanup();
    }
  });

  test('an idle kept-alive connection is closed by gate-hooks, not left for the receiver to time out', async () => {
    const ca = makeTestCa();
    // This receiver would keep an idle connection for a minute; gate-hooks reuses one for
    // 4 s at most, so it must hang up itself rather than hold the socket until then.
    const receiver = await startReceiver(ca, { keepAliveTimeoutMs: 60_000 });
    const hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile } } });
    try {
      await hooks.api('POST', '/webhooks', { body: { event: 'deploy.success', url: receiver.url('/idle') } });
      assert.equal((await hooks.api('POST', '/events', { body: { type: 'deploy.success', data: {} } })).status, 202);
      await eventually(() => receiver.received.length === 1, { what: 'the delivery' });
      assert.equal(receiver.closedByPeer, 0, 'the connection is kept alive after the delivery');
      await eventually(() => receiver.closedByPeer === 1, { timeoutMs: 15_000, what: 'gate-hooks closing the idle connection' });
      assert.equal(receiver.connections, 1);
    } finally {
      await hooks.stop();
      hooks.cleanup();
      await receiver.stop();
      ca.cleanup();
    }
  });

  test('a burst to one receiver uses at most connectionsPerReceiver connections, kept alive', async () => {
    const ca = makeTestCa();
    const receiver = await startReceiver(ca);
    // Eight attempts may be in flight, but only two exchanges with one receiver at once.
    const hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile, concurrency: 8, connectionsPerReceiver: 2 } } });
    try {
      let open = 0;
      let most = 0;
      receiver.respond = () => {
        open += 1;
        most = Math.max(most, open);
        return { status: 204, hang: true };
      };
      // The receiver answers each request 30 ms late, so a burst overlaps.
      receiver.onHang = (res) =>
        setTimeout(() => {
          open -= 1;
          res.writeHead(204);
          res.end();
        }, 30);
      await hooks.api('POST', '/webhooks', { body: { event: 'deploy.success', url: receiver.url('/capped') } });
      await Promise.all(Array.from({ length: 40 }, (_, i) => hooks.api('POST', '/events', { body: { type: 'deploy.success', data: { i } } })));
      await eventually(() => receiver.received.filter((r) => r.url === '/capped').length === 40, { timeoutMs: 20_000, what: '40 deliveries' });
      assert.ok(most <= 2, `${most} requests in flight at the receiver at once`);
      assert.equal(most, 2, 'both turns were used');
      assert.ok(receiver.connections <= 2, `${receiver.connections} TLS connections for 40 deliveries`);
    } finally {
      await hooks.stop();
      hooks.cleanup();
      await receiver.stop();
      ca.cleanup();
    }
  });

  test('/metrics is valid Prometheus text and counts deliveries; a bad configuration names the member', async () => {
    const { spawnSync } = await import('node:child_process');
    const { writeFileSync, mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { hooksBin } = await import('./lib/index.mjs');
    const ca = makeTestCa();
    const receiver = await startReceiver(ca);
    const hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile } } });
    const dir = mkdtempSync(path.join(tmpdir(), 'gate-hooks-badcfg-'));
    try {
      await hooks.api('POST', '/webhooks', { body: { event: 'deploy.success', url: receiver.url('/m') } });
      await hooks.api('POST', '/events', { body: { type: 'deploy.success' } });
      await eventually(async () => /gate_hooks_deliveries_total\{outcome="succeeded"\} 1/.test(await hooks.metrics()), { what: 'the counter' });
      const text = await hooks.metrics();
      const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      assert.equal(check.status, 0, check.stdout + check.stderr);
      for (const series of ['gate_hooks_attempts_total', 'gate_hooks_events_total', 'gate_hooks_delivery_seconds_bucket', 'gate_hooks_queue_depth', 'gate_hooks_dead_letters'])
        assert.match(text, new RegExp(`^${series}`, 'm'));
      const bad = path.join(dir, 'bad.json');
      writeFileSync(bad, JSON.stringify({ tokens: [{ organization: 'a', token: 'short' }] }), { mode: 0o600 });
      const r = spawnSync(hooksBin(), ['--config', bad], { encoding: 'utf8' });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /\/tokens\/0\/token: must be at least 16 characters/);
      writeFileSync(bad, JSON.stringify({ tokens: [{ organization: 'a', token: '0123456789abcdef' }], delivery: { timeoutMs: 5000, leaseMs: 1000 } }));
      assert.match(spawnSync(hooksBin(), ['--config', bad], { encoding: 'utf8' }).stderr, /leaseMs: must be longer than timeoutMs/);
      writeFileSync(bad, JSON.stringify({ tokens: [{ organization: 'a', token: '0123456789abcdef' }], delivery: { connectionsPerReceiver: 0 } }));
      assert.match(spawnSync(hooksBin(), ['--config', bad], { encoding: 'utf8' }).stderr, /\/delivery\/connectionsPerReceiver: must be between 1 and 1024/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await hooks.stop();
      hooks.cleanup();
      await receiver.stop();
      ca.cleanup();
    }
  });
});
