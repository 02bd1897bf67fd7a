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
  const direct = await connectClient(up.url, { capabilities: FULL_CLIENT_CAPABILITIES });
  const viaGate = await connectClient(gate.url, { capabilities: FULL_CLIENT_CAPABILITIES });
  const call = async (client) => {
    const t = process.hrtime.bigint();
    const r = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'bench', maxTokens: 5 } });
    if (r.isError) throw new Error(`sampling call failed: ${JSON.stringify(r)}`);
    return Number(process.hrtime.bigint() - t) / 1e6;
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
