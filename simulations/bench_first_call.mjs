// The first call of a new upstream session when the upstream holds its GET stream's header
// back until it has an event (the v2 SDK's Node adapter does): how long gate's handshake waits
// before the call goes out (docs/sessions.md). Three new client sessions per run; the first
// pays the upstream session's handshake, the others reuse it.
//   GATE_BIN=<gate> <node22> simulations/bench_first_call.mjs   (from the repository root)
import { startConformanceServer } from '../tests/js/lib/conformance-server.mjs';
import { connectClient, startGate } from '../tests/js/lib/index.mjs';

const up = await startConformanceServer({ flushGet: false });
const gate = await startGate({ config: { upstreams: [{ id: 'cf', url: up.url }] } });
const times = [];
for (let i = 0; i < 3; i++) {
  const client = await connectClient(gate.url, { name: `first-${i}` });
  const t0 = performance.now();
  await client.listTools();
  times.push(Math.round(performance.now() - t0));
  await client.close();
}
console.log(`first tools/list of each new session (ms): ${times.join(' ')}`);
await gate.stop();
await up.stop();
