// docs/webhooks-openapi.json against a third-party OpenAPI validator
// (@seriousme/openapi-schema-validator), against the routes gate-hooks says it serves
// (`gate-hooks --routes`, the table its API dispatches on), and against real answers of the
// running service (ajv, the document's own schemas).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { REPO_ROOT, TOKENS, hooksBin, makeTestCa, startHooks, startReceiver } from './lib/index.mjs';

const doc = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs', 'webhooks-openapi.json'), 'utf8'));
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];

describe('the OpenAPI description of gate-hooks', { timeout: 120_000 }, () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(doc.openapi, '3.1.0');
  });

  test('describes exactly the routes the daemon serves', () => {
    const served = execFileSync(hooksBin(), ['--routes'], { encoding: 'utf8' }).trim().split('\n').sort();
    assert.ok(served.length >= 10, served.join('\n'));
    const described = [];
    for (const [p, item] of Object.entries(doc.paths))
      for (const m of METHODS) if (item[m]) described.push(`${m.toUpperCase()} ${p}`);
    assert.deepEqual(described.sort(), served);
  });

  describe('matches real answers', () => {
    let ca;
    let receiver;
    let hooks;
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'openapi');
    const pointer = (...parts) => parts.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');
    const check = (res, route, method, status) => {
      const op = doc.paths[route][method];
      const r = op.responses[String(status)];
      assert.ok(r, `${method} ${route} documents ${status}`);
      assert.equal(res.status, status, res.text);
      const resolved = r.$ref ? doc.components.responses[r.$ref.split('/').pop()] : r;
      const schemaRef = r.$ref
        ? `openapi#/components/responses/${pointer(r.$ref.split('/').pop(), 'content', 'application/json', 'schema')}`
        : `openapi#/paths/${pointer(route, method, 'responses', String(status), 'content', 'application/json', 'schema')}`;
      if (!resolved.content?.['application/json']) return;
      const validate = ajv.getSchema(schemaRef) ?? ajv.compile({ $ref: schemaRef });
      assert.ok(validate(res.json), `${method} ${route} ${status}: ${JSON.stringify(validate.errors)} for ${res.text}`);
    };

    before(async () => {
      ca = makeTestCa();
      receiver = await startReceiver(ca);
      hooks = await startHooks({ config: { delivery: { allowPrivateTargets: true, caFile: ca.caFile, maxAttempts: 1 } } });
    });
    after(async () => {
      await hooks?.stop();
      hooks?.cleanup();
      await receiver?.stop();
      ca?.cleanup();
    });

    test('webhooks, events, history, the test action, dead letters, errors', async () => {
      receiver.respond = (r) => (r.url === '/fail' ? { status: 500 } : { status: 200 });
      const created = await hooks.api('POST', '/webhooks', { body: { event: 'deploy.failed', url: receiver.url('/fail'), secret: '0123456789abcdef' } });
      check(created, '/webhooks', 'post', 201);
      const id = created.json.id;
      check(await hooks.api('GET', '/webhooks'), '/webhooks', 'get', 200);
      check(await hooks.api('GET', `/webhooks/${id}`), '/webhooks/{id}', 'get', 200);
      check(await hooks.api('PATCH', `/webhooks/${id}`, { body: { enabled: true } }), '/webhooks/{id}', 'patch', 200);
      check(await hooks.api('POST', `/webhooks/${id}/test`), '/webhooks/{id}/test', 'post', 200);
      check(await hooks.api('POST', '/events', { body: { type: 'deploy.failed', data: { a: 1 } } }), '/events', 'post', 202);
      let dlq;
      for (let i = 0; i < 200; ++i) {
        dlq = await hooks.api('GET', '/webhook-deliveries/dlq');
        if (dlq.json.entries.length > 0) break;
        await new Promise((r) => setTimeout(r, 25));
      }
      check(dlq, '/webhook-deliveries/dlq', 'get', 200);
      assert.equal(dlq.json.entries.length, 1);
      const history = await hooks.api('GET', `/webhooks/${id}/deliveries`);
      check(history, '/webhooks/{id}/deliveries', 'get', 200);
      const attempts = await hooks.api('GET', `/webhooks/${id}/attempts`);
      check(attempts, '/webhooks/{id}/attempts', 'get', 200);
      assert.equal(attempts.json.attempts.length, 1);
      const dlv = history.json.deliveries[0].id;
      check(await hooks.api('GET', `/webhook-deliveries/${dlv}/attempts`), '/webhook-deliveries/{id}/attempts', 'get', 200);
      check(await hooks.api('GET', `/webhook-deliveries/${dlv}/attempts`, { token: TOKENS.org_b }), '/webhook-deliveries/{id}/attempts', 'get', 404);
      check(await hooks.api('GET', `/webhooks/${id}/attempts`, { token: TOKENS.org_b }), '/webhooks/{id}/attempts', 'get', 404);
      check(await hooks.api('GET', '/webhook-deliveries/dlq/stats'), '/webhook-deliveries/dlq/stats', 'get', 200);
      const stats = await hooks.api('GET', '/stats');
      check(stats, '/stats', 'get', 200);
      assert.equal(stats.json.dead_letters, 1);
      check(await hooks.api('GET', '/stats', { token: null }), '/stats', 'get', 401);
      check(await hooks.api('GET', '/console/console.js', { token: null }), '/console/{asset}', 'get', 200);
      check(await hooks.api('GET', '/console/nothing.js', { token: null }), '/console/{asset}', 'get', 404);
      check(await hooks.api('POST', `/webhook-deliveries/dlq/${id}/retry`), '/webhook-deliveries/dlq/{webhook_id}/retry', 'post', 202);
      check(await hooks.api('POST', '/webhooks', { body: { event: 'x', url: 'https://a.example' } }), '/webhooks', 'post', 400);
      check(await hooks.api('GET', '/webhooks', { token: null }), '/webhooks', 'get', 401);
      check(await hooks.api('GET', '/webhooks/hook_0'), '/webhooks/{id}', 'get', 404);
      check(await hooks.api('GET', '/health', { token: null }), '/health', 'get', 200);
      check(await hooks.api('DELETE', `/webhooks/${id}`), '/webhooks/{id}', 'delete', 204);
    });
  });
});
