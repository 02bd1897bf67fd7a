// /metrics is valid Prometheus text exposition (checked by promtool, independently of the
// library that wrote it) and carries the spec's series.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { connectClient, get, rawRequest, runGate, startEverything, startGate } from './lib/index.mjs';

describe('metrics exposition', { timeout: 120_000 }, () => {
  let up;
  let gate;

  before(async () => {
    up = await startEverything();
    gate = await startGate({ config: { upstreams: [{ id: 'everything', url: up.url, namespace: 'e' }] } });
    const client = await connectClient(gate.url);
    await client.listTools({});
    await client.callTool({ name: 'e__echo', arguments: { message: 'x' } });
    await client.callTool({ name: 'zz__echo', arguments: {} }).catch(() => {});
    await client.close();
    await rawRequest(gate.url, { headers: { Host: 'evil.example' }, body: '{}' }).catch(() => {});
  });

  after(async () => {
    await gate?.stop();
    await up?.stop();
  });

  test('promtool accepts the exposition', async () => {
    const r = await get(`${gate.base}/metrics`);
    assert.equal(r.status, 200);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: r.text, encoding: 'utf8' });
    assert.equal(check.error, undefined, `promtool could not run: ${check.error}`);
    assert.equal(check.status, 0, `promtool: ${check.stdout}${check.stderr}`);
  });

  test('the spec series and process collectors are present', async () => {
    const { text } = await get(`${gate.base}/metrics`);
    for (const series of [
      /^gate_requests_total\{method="tools\/call",outcome="ok"\} 1$/m,
      /^gate_requests_total\{method="tools\/call",outcome="error"\} 1$/m,
      /^gate_request_duration_seconds_bucket\{method="tools\/list",le="[^"]+"\} \d+$/m,
      /^gate_upstream_requests_total\{outcome="ok",upstream="everything"\} \d+$/m,
      /^gate_upstream_request_duration_seconds_count\{upstream="everything"\} \d+$/m,
      /^gate_http_rejections_total\{reason="forbidden_host"\} 1$/m,
      /^gate_request_upstream_calls_count \d+$/m,
      /^gate_build_info\{version="v\d+\.\d+\.\d+"\} 1$/m,
      /^process_cpu_seconds_total [\d.e+-]+$/m,
      /^process_resident_memory_bytes [\d.e+-]+$/m,
      /^process_open_fds \d+$/m,
    ]) {
      assert.match(text, series);
    }
  });

  test('--version prints the release identifier gate_build_info carries', async () => {
    const { text } = await get(`${gate.base}/metrics`);
    const label = /^gate_build_info\{version="([^"]+)"\} 1$/m.exec(text)?.[1];
    assert.match(label ?? '', /^v\d+\.\d+\.\d+$/);
    const r = await runGate(['--version']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout.toString('utf8'), `gate ${label}\n`);
  });
});

// gate_requests_total's outcome label holds exactly the spec's five values, each reachable;
// finer audit outcomes (a budget's) count under one of them.
describe('gate_requests_total outcomes', { timeout: 60_000 }, () => {
  test('ok, error, denied, rate_limited and upstream_down are each counted', async () => {
    const up = await startEverything();
    const gate = await startGate({
      config: {
        upstreams: [
          { id: 'ev', url: up.url, namespace: 'ev', rateLimit: { requestsPerMinute: 2 } },
          { id: 'dead', url: 'http://127.0.0.1:1/mcp', namespace: 'dead' },
        ],
        policy: {
          defaultDecision: 'deny',
          rules: [{ id: 'all-but-sum', allow: [{ server: 'ev', methods: ['tools/call'], names: ['echo'] }, { server: 'dead' }] }],
        },
        audit: { sinks: [{ type: 'stdout' }] },
      },
    });
    const client = await connectClient(gate.url);
    try {
      const call = (name) => client.callTool({ name, arguments: { message: 'x', a: 1, b: 2 } }).catch((e) => e);
      await call('ev__echo'); // ok
      await call('ev__echo'); // ok (the window's 2)
      await call('ev__echo'); // rate_limited (-32040)
      await call('ev__get-sum'); // denied (-32042)
      await call('dead__echo'); // upstream_down (-32041)
      await call('nowhere__echo'); // error (-32043, an unknown namespace)
      const { text } = await get(`${gate.base}/metrics`);
      const outcomes = [...text.matchAll(/^gate_requests_total\{method="tools\/call",outcome="([^"]+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
      assert.deepEqual(Object.fromEntries(outcomes), { ok: 2, rate_limited: 1, denied: 1, upstream_down: 1, error: 1 });
      // The audit events say the same, call by call.
      const events = await gate.waitForAudit((ev) => ev.filter((e) => e.method === 'tools/call').length === 6);
      assert.deepEqual(
        events.filter((e) => e.method === 'tools/call').map((e) => e.outcome),
        ['ok', 'ok', 'rate_limited', 'denied', 'upstream_down', 'error'],
      );
    } finally {
      await client.close();
      await gate.stop();
      await up.stop();
    }
  });
});

