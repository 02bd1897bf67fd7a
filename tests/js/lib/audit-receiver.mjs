// An audit webhook receiver on 127.0.0.1 (a chosen port, or one the kernel picks): records
// every POST it is sent (headers, parsed body, the answer it gave) and answers per `mode`:
//   ok      200, the batch accepted
//   fail    503
//   slow    waits `slowMs`, then 200 (accepted)
//   refuse  400
import http from 'node:http';

export async function startAuditReceiver({ port = 0, mode = 'ok', slowMs = 1500 } = {}) {
  const attempts = []; // { mode, headers, events }
  const accepted = []; // { headers, events } of batches answered 200
  const state = { mode };
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let events;
    try {
      events = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      events = { unparsable: true };
    }
    const m = state.mode;
    attempts.push({ mode: m, headers: req.headers, events });
    if (m === 'fail') return res.writeHead(503).end('down for maintenance');
    if (m === 'refuse') return res.writeHead(400).end('bad batch');
    if (m === 'slow') await new Promise((r) => setTimeout(r, slowMs));
    accepted.push({ headers: req.headers, events });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const bound = server.address().port;
  return {
    url: `http://127.0.0.1:${bound}/audit`,
    port: bound,
    attempts,
    accepted,
    /** Every event of every accepted batch, in arrival order. */
    events: () => accepted.flatMap((b) => (Array.isArray(b.events) ? b.events : [])),
    setMode: (m) => {
      state.mode = m;
    },
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
