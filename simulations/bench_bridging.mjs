// The sampling round trip (upstream -> client -> upstream) directly against
// @modelcontextprotocol/server-everything and through gate, side by side in one run, and
// gate's memory per held bridged session.
//
// Round trip: an SDK client that answers sampling at once calls `trigger-sampling-request`;
// the upstream asks the client to sample, the client answers, the upstream answers the call.
// Through gate that is one bridged call with the sampling request and the answer crossing
// gate once each. Direct and gate calls alternate, so both see the same machine state.
//
// Memory: gate's RSS with no client, then with N clients each holding a downstream session
// and a bridged session at the upstream (initialize, then one `echo` call); the difference
// divided by N. Each bridged session includes its open GET stream to the upstream.
//
//   node simulations/bench_bridging.mjs [round-trips] [held-sessions]   (defaults 400, 200)
// Environment: GATE_BIN (default build/gate).
import { readFileSync } from 'node:fs';

import { FULL_CLIENT_CAPABILITIES, connectClient, openRawSession, post, rpc, startEverything, startGate } from '../tests/js/lib/index.mjs';

const rounds = Number(process.argv[2] ?? 400);
const held = Number(process.argv[3] ?? 200);

const rssKiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => x.toFixed(3);

const up = await startEverything();
const gate = await startGate({ config: { upstreams: [{ id: 'everything', url: up.url }] } });
try {
  // The moment the client is asked to sample splits the round trip into its two legs:
  // call -> sampling request at the client, and sampling answer -> call result.
  let asked = 0n;
  const onSampling = () => {
    asked = process.hrtime.bigint();
  };
  const direct = await connectClient(up.url, { capabilities: FULL_CLIENT_CAPABILITIES, onSampling });
  const viaGate = await connectClient(gate.url, { capabilities: FULL_CLIENT_CAPABILITIES, onSampling });
  const legs = new Map([[direct, [[], []]], [viaGate, [[], []]]]);
  const call = async (client) => {
    const t = process.hrtime.bigint();
    const r = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'bench', maxTokens: 5 } });
    if (r.isError) throw new Error(`sampling call failed: ${JSON.stringify(r)}`);
    const end = process.hrtime.bigint();
    legs.get(client)[0].push(Number(asked - t) / 1e6);
    legs.get(client)[1].push(Number(end - asked) / 1e6);
    return Number(end - t) / 1e6;
  };
  for (let i = 0; i < 50; i++) {
    await call(direct);
    await call(viaGate);
  }
  const d = [];
  const g = [];
  for (let i = 0; i < rounds; i++) {
    d.push(await call(direct));
    g.push(await call(viaGate));
  }
  // Baseline: one plain proxied call (echo, no server message) in the same setting.
  const plain = async (client) => {
    const t = process.hrtime.bigint();
    await client.callTool({ name: 'echo', arguments: { message: 'bench' } });
    return Number(process.hrtime.bigint() - t) / 1e6;
  };
  const pd = [];
  const pg = [];
  for (let i = 0; i < rounds; i++) {
    pd.push(await plain(direct));
    pg.push(await plain(viaGate));
  }
  await direct.close();
  await viaGate.close();

  const idle = rssKiB(gate.pid);
  const sessions = [];
  for (let i = 0; i < held; i++) {
    const s = await openRawSession(gate.url);
    const r = await post(gate.url, rpc('tools/call', { name: 'echo', arguments: { message: 'hold' } }), s.headers);
    if (r.status !== 200) throw new Error(`echo through gate: HTTP ${r.status}`);
    sessions.push(s);
  }
  const holding = rssKiB(gate.pid);

  const report = {
    roundTrips: rounds,
    directP50Ms: ms(quantile(d, 0.5)),
    directP99Ms: ms(quantile(d, 0.99)),
    gateP50Ms: ms(quantile(g, 0.5)),
    gateP99Ms: ms(quantile(g, 0.99)),
    addedP50Ms: ms(quantile(g, 0.5) - quantile(d, 0.5)),
    // Leg 1: the call reaches the upstream and its sampling request reaches the client.
    // Leg 2: the client's answer reaches the upstream and the call's result the client.
    directLegsP50Ms: legs.get(direct).map((x) => ms(quantile(x, 0.5))),
    gateLegsP50Ms: legs.get(viaGate).map((x) => ms(quantile(x, 0.5))),
    plainCallAddedP50Ms: ms(quantile(pg, 0.5) - quantile(pd, 0.5)),
    heldSessions: held,
    gateIdleRssKiB: idle,
    gateHoldingRssKiB: holding,
    kibPerBridgedSession: ((holding - idle) / held).toFixed(1),
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await gate.stop();
  await up.stop();
}
