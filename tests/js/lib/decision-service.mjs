// A decision service for policy.decisionHook on 127.0.0.1 (a port the kernel picks): a real
// HTTP server that records every description gate posts (and its headers) and answers with
// what `decide(description)` returns:
//   { decision: 'allow' | 'deny', reason? }   that JSON, 200
//   { status, body }                          a raw answer (garbage, an error status)
//   { hold: true }                            no answer until release(answer) (a slow hook)
// It counts the questions out at once (maxInFlight) so a test can see gate's concurrency bound.
import http from 'node:http';

export async function startDecisionService(decide = () => ({ decision: 'allow' })) {
  const asked = []; // { description, headers, text (the body as it came) }
  const held = [];
  const state = { decide, inFlight: 0, maxInFlight: 0, connections: 0 };
  const server = http.createServer(async (req, res) => {
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    res.on('close', () => {
      state.inFlight -= 1;
    });
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    let description;
    try {
      description = JSON.parse(text);
    } catch {
      description = { unparsable: text };
    }
    asked.push({ description, headers: req.headers, text });
    let answer = await state.decide(description);
    if (answer?.hold) answer = await new Promise((r) => held.push(r));
    if (answer?.drop) return req.socket.destroy(); // read the question, hung up without an answer
    if (res.destroyed) return;
    if (answer && 'status' in answer) return res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body ?? '');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
  server.on('connection', () => {
    state.connections += 1;
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}/decide`,
    port,
    asked,
    /** The descriptions of one stage, in arrival order. */
    of: (stage) => asked.filter((a) => a.description.stage === stage).map((a) => a.description),
    get maxInFlight() {
      return state.maxInFlight;
    },
    /** TCP connections gate opened to it so far. */
    get connections() {
      return state.connections;
    },
    /** Closes the connections that are idle, as a server's keep-alive timeout does. */
    closeIdle: () => server.closeIdleConnections(),
    setDecide: (d) => {
      state.decide = d;
    },
    /** Answers every held question with `answer` (a decision, or a raw { status, body }). */
    release: (answer = { decision: 'allow' }) => held.splice(0).forEach((r) => r(answer)),
    stop: () =>
      new Promise((r) => {
        held.splice(0).forEach((h) => h({ status: 503, body: 'stopping' }));
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
