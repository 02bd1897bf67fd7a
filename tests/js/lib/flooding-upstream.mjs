// An upstream that sends gate more than it should hold: an event that never ends (on gate's
// own `subscriptions/listen` at a 2026-07-28 upstream, on a session's GET stream, or as a
// call's answer stream), tools lists of as many pages and names as a test asks for. Plain
// node:http on 127.0.0.1 and a kernel-chosen port; every answer is a text it writes itself.
//
// startFloodingUpstream({ modern, flood, tools })
//   modern: false (2025-11-25: initialize opens a session) | true (2026-07-28: server/discover,
//           list changes announced through subscriptions/listen)
//   flood:  where the endless event goes: 'listen' (the answer to gate's subscriptions/listen),
//           'get' (a session's GET stream) or 'call' (the answer stream of tools/call `flood`);
//           at most `floodBytes` (default 256 MiB) are written, 1 MiB at a time, as gate reads;
//           then the response ends, or with `holdOpen` stays open with its event unfinished
//   tools(cursor): the tools/list page for `cursor` (undefined first), as
//           { tools: [<tool objects>] | text: '<the tools array's JSON text>', next?: string }
// Returns { url, floods, pages, stop() }: `floods` each flooding stream as
// { written, closed: Promise<written>, ended, full } (closed once gate, or the bound, ends it;
// full: all written and held open), `pages` the cursors of every tools/list asked, `calls` the
// name of every tool called (`huge` answers with a length of 100 MiB and sends only its start;
// `long` with a length of 48 MiB and sends only its start; `chunked` with no length sends 40 MiB
// of its text as gate reads, then nothing more), `sent` the bytes each `chunked` answer wrote.
import http from 'node:http';

const MODERN = '2026-07-28';
const MiB = 1024 * 1024;

export async function startFloodingUpstream({ modern = false, flood, floodBytes = 256 * MiB, holdOpen = false, tools } = {}) {
  const floods = [];
  const pages = [];
  const calls = [];
  const sent = [];
  let sessions = 0;
  const chunk = Buffer.alloc(MiB, 'x');

  const reply = (id, resultText) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}`;
  const json = (res, text, headers = {}) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };

  // One event whose data line never ends, written as fast as gate reads it.
  function endless(res, before = '') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const f = { written: 0 };
    let done;
    f.closed = new Promise((resolve) => (done = resolve));
    floods.push(f);
    res.write(`${before}data: "`);
    let open = true;
    res.on('close', () => {
      open = false;
      f.ended = true;
      done(f.written);
    });
    const pump = () => {
      while (open && f.written < floodBytes) {
        f.written += chunk.length;
        if (!res.write(chunk)) return res.once('drain', pump);
      }
      if (open && !holdOpen) res.end();
      if (open && holdOpen) f.full = true;
    };
    pump();
  }

  function list(res, msg) {
    const cursor = msg.params?.cursor;
    pages.push(cursor);
    const page = tools ? tools(cursor) : { tools: [{ name: 'echo', inputSchema: { type: 'object' } }] };
    const items = page.text ?? JSON.stringify(page.tools);
    const next = page.next === undefined ? '' : `,"nextCursor":${JSON.stringify(page.next)}`;
    json(res, reply(msg.id, `{"tools":${items}${next}}`));
  }

  const server = http.createServer(async (req, res) => {
    if (req.method === 'DELETE') return res.writeHead(200).end();
    if (req.method === 'GET') {
      if (modern || flood !== 'get') return res.writeHead(405).end();
      return endless(res);
    }
    if (req.method !== 'POST') return res.writeHead(405).end();
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const msg = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (msg.id === undefined || !msg.method) return res.writeHead(202).end();
    switch (msg.method) {
      case 'initialize':
        if (modern) return res.writeHead(404).end();
        return json(
          res,
          reply(msg.id, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"flooding","version":"1.0.0"}}`),
          { 'mcp-session-id': `flood-${++sessions}` },
        );
      case 'server/discover':
        if (!modern) return res.writeHead(404).end();
        return json(
          res,
          reply(
            msg.id,
            `{"supportedVersions":["${MODERN}"],"capabilities":{"tools":{"listChanged":true}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"flooding","version":"1.0.0"}}}`,
          ),
        );
      case 'subscriptions/listen':
        if (flood !== 'listen') return res.writeHead(405).end();
        // Acknowledged first, as a server does; then the event that never ends.
        return endless(res, `data: {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{}}\n\n`);
      case 'tools/list':
        return list(res, msg);
      case 'tools/call':
        calls.push(msg.params?.name);
        if (flood === 'call' && msg.params?.name === 'flood') return endless(res);
        if (msg.params?.name === 'long') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(48 * MiB) });
          return res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"text","text":"`);
        }
        if (msg.params?.name === 'chunked') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"text","text":"`);
          const at = sent.push(0) - 1;
          let open = true;
          res.on('close', () => (open = false));
          const pump = () => {
            while (open && sent[at] < 40 * MiB) {
              sent[at] += chunk.length;
              if (!res.write(chunk)) return res.once('drain', pump);
            }
          };
          return pump();
        }
        if (msg.params?.name === 'huge') {
          // An answer whose length says 100 MiB: only its start is sent.
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(100 * MiB) });
          return res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"result":{"content":[{"type":"text","text":"`);
        }
        return json(res, reply(msg.id, '{"content":[{"type":"text","text":"ok"}]}'));
      default:
        return json(res, `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":-32601,"message":"no ${msg.method}"}}`);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    floods,
    pages,
    calls,
    sent,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
