// What gate ships for Prometheus and Grafana (config/prometheus, config/grafana; issue 36)
// names only series that exist: every series the alerting rules and the dashboards read is in
// a live gate's /metrics (gate-hooks' in a live gate-hooks'). gate writes a family only once
// it has a sample, so the gate here runs a federation that makes each of them: two replicas,
// auth with a tenant and its budget, a policy with a decision hook, a tool limit, pinned
// definitions, Redis as the shared store (stopped at the end, so fallbacks are counted), and
// traffic that reaches each outcome. promtool's own checks of the rules and their fixtures
// run in scripts/check-monitoring.py.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  REPO_ROOT,
  connectClient,
  eventually,
  get,
  metric,
  rawRequest,
  startDecisionService,
  startEverything,
  startGate,
  startHooks,
  startIdp,
  startRedis,
} from './lib/index.mjs';
import { dashboardExpressions, exposedNames, ruleExpressions, seriesNames } from './lib/promql-names.mjs';

const RESOURCE = 'https://gate.example/mcp';
const RULES = 'config/prometheus/gate-alerts.yml';
const DASHBOARDS = ['config/grafana/gate.json', 'config/grafana/gate-hooks.json'];
// Series Prometheus makes itself for each target, not read from /metrics.
const MADE_BY_PROMETHEUS = new Set(['up']);

const read = (p) => readFileSync(path.join(REPO_ROOT, p), 'utf8');

/** Every (file, expression) the shipped files hold. */
function shippedExpressions() {
  const rules = ruleExpressions(read(RULES));
  const out = rules.map((r) => ({ where: `${RULES} ${r.alert}`, expr: r.expr }));
  for (const file of DASHBOARDS) for (const expr of dashboardExpressions(JSON.parse(read(file)))) out.push({ where: file, expr });
  return out;
}

/** The names `expressions` read that `exposed(name)` does not have, each with where it is read. */
function missingSeries(expressions, exposed) {
  const missing = [];
  for (const { where, expr } of expressions)
    for (const name of seriesNames(expr)) if (!MADE_BY_PROMETHEUS.has(name) && !exposed(name)) missing.push(`${name} (${where})`);
  return missing;
}

describe('names read from PromQL', () => {
  test('series, not functions, keywords, labels, strings, ranges or numbers', () => {
    const names = (e) => [...seriesNames(e)].sort();
    assert.deepEqual(names('histogram_quantile(0.99, sum by (le, method) (rate(a_bucket{job=~"$job",x="{b}"}[$__rate_interval])))'), ['a_bucket']);
    assert.deepEqual(names('sum by (instance) (rate(a{o=~"error|x"}[5m])) / sum by (instance) (rate(b[5m:1m])) > 0.2'), ['a', 'b']);
    assert.deepEqual(names('x > 0 or sum(y unless y offset 1h) and on (instance) z offset 10m'), ['x', 'y', 'z']);
    assert.deepEqual(names('count(c > bool 0) or vector(1e3) + inf'), ['c']);
    assert.deepEqual(names('max without (endpoint) (d) * on (u) group_left (v) e:recorded'), ['d', 'e:recorded']);
    assert.deepEqual(names('up{job="gate"} == 0'), ['up']);
  });

  test('the rules file is read whole: one expression per alert, blocks included', () => {
    const text = read(RULES);
    const rules = ruleExpressions(text);
    assert.equal(rules.length, text.match(/^\s*- alert:/gm).length);
    for (const r of rules) assert.ok(r.expr && !/^\|/.test(r.expr), `${r.alert}: ${r.expr}`);
    const stuck = rules.find((r) => r.alert === 'GateHooksQueueStuck');
    assert.deepEqual([...seriesNames(stuck.expr)].sort(), ['gate_hooks_attempts_total', 'gate_hooks_queue_depth']);
  });

  test('a name that is not exposed is reported', () => {
    const exposed = exposedNames('# TYPE gate_requests_total counter\ngate_requests_total{method="ping",outcome="ok"} 1\n');
    assert.deepEqual(missingSeries([{ where: 'here', expr: 'rate(gate_requests_total[5m]) / rate(gate_request_totl[5m])' }], (n) => exposed.has(n)), ['gate_request_totl (here)']);
  });
});

describe('every series the dashboards and alerts name exists', { timeout: 120_000 }, () => {
  let everything;
  let idp;
  let hook;
  let redis;
  let gate;
  let hooks;
  let dir;
  let gateText;
  let hooksText;

  before(async () => {
    [everything, idp, hook, redis, hooks] = await Promise.all([startEverything(), startIdp(), startDecisionService(), startRedis(), startHooks()]);
    dir = mkdtempSync(path.join(tmpdir(), 'gate-monitoring-'));
    const lockFile = path.join(dir, 'gate.lock');
    // A lock file that holds none of the listed tools: each is a change ("new").
    writeFileSync(lockFile, `ev absent-tool sha256:${'0'.repeat(64)}\n`);
    gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev', urls: [everything.url, 'http://127.0.0.1:1/mcp'], namespace: 'ev', toolLimits: [{ names: ['echo'], requestsPerMinute: 1 }] },
        ],
        auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
        tenants: [{ id: 'acme', subjects: { claims: { org: 'acme' } }, budget: { period: 'day', upstreamCalls: 4 } }],
        policy: { defaultDecision: 'deny', rules: [{ id: 'everyone', allow: [{ server: 'ev' }] }], decisionHook: { url: hook.url, stages: ['call'] } },
        definitions: { pin: 'warn', lockFile },
        server: { redisUrl: redis.url },
      },
    });
    const token = await idp.mint({ sub: 'alice', aud: RESOURCE, org: 'acme' });
    const connect = () => connectClient(gate.url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
    const call = (c, name, args = {}) => c.callTool({ name, arguments: args }).catch((e) => e);
    const client = await connect();
    await client.listTools({});
    await call(client, 'ev__echo', { message: 'ok' });
    await call(client, 'ev__echo', { message: 'over the tool limit' });
    hook.setDecide(() => ({ status: 500, body: '' }));
    await call(client, 'ev__get-sum', { a: 1, b: 2 });
    hook.setDecide(() => ({ decision: 'allow' }));
    // Until the tenant's budget is spent (-32044).
    await eventually(async () => (await call(client, 'ev__get-sum', { a: 1, b: 2 }))?.code === -32044, { timeoutMs: 10_000, what: 'the budget spent' });
    await client.close();
    await rawRequest(gate.url, { headers: { Host: 'evil.example' }, body: '{}' }).catch(() => {});
    // The shared store gone: what needed it falls back to this instance's own state.
    await redis.stop();
    redis = undefined;
    await eventually(
      async () => {
        const c = await connect().catch(() => undefined);
        if (c) {
          await call(c, 'ev__get-sum', { a: 1, b: 2 });
          await c.close().catch(() => {});
        }
        return /^gate_shared_state_degraded_total\{/m.test((await get(`${gate.base}/metrics`)).text);
      },
      { timeoutMs: 20_000, everyMs: 100, what: 'a fallback counted' },
    );
    gateText = (await get(`${gate.base}/metrics`)).text;
    hooksText = await hooks.metrics();
  });

  after(async () => {
    await gate?.stop();
    await hooks?.stop();
    hooks?.cleanup();
    await Promise.all([everything?.stop(), idp?.stop(), hook?.stop(), redis?.stop()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('the federation reached what the series count', () => {
    assert.equal(metric(gateText, 'gate_shared_state_up', {}), 0);
    assert.ok(metric(gateText, 'gate_tenant_requests_total', { tenant: 'acme', outcome: 'budget_exhausted' }) >= 1);
    assert.ok(metric(gateText, 'gate_decision_hook_errors_total', { stage: 'call', kind: 'status' }) >= 1);
    assert.ok(metric(gateText, 'gate_tool_limit_refusals_total', { upstream: 'ev', limit: 'everyone' }) >= 1);
    assert.equal(metric(gateText, 'gate_upstream_endpoint_healthy', { upstream: 'ev', endpoint: everything.url }, -1), 1);
    // Unlike gate, gate-hooks writes each kind of its retention counter from its start, at 0:
    // no sweep here deletes anything (nothing is retention.days old), and the dashboard's
    // retention panel still reads a series.
    for (const kind of ['deliveries', 'attempts', 'events']) assert.equal(metric(hooksText, 'gate_hooks_retention_deleted_total', { kind }, -1), 0, kind);
  });

  test('in /metrics of gate and gate-hooks', () => {
    const gateNames = exposedNames(gateText);
    const hooksNames = exposedNames(hooksText);
    const exposed = (name) => (name.startsWith('gate_hooks_') ? hooksNames : gateNames).has(name);
    const expressions = shippedExpressions();
    assert.ok(expressions.length > 60, `${expressions.length} expressions`);
    assert.deepEqual(missingSeries(expressions, exposed), []);
  });
});
