// A raw MCP upstream that keeps every byte: it records each POST body as the text it received
// and answers with texts it writes itself, so a test sees exactly what gate sent and what gate
// passed on. (An SDK server parses with JSON.parse, which turns 123456789012345678901234567890
// into a double before anyone can look.) HTTP on 127.0.0.1 and a kernel-chosen port.
//
// `modern: false`: the 2025-11-25 era, initialize opens a session; `modern: true`: 2026-07-28,
// server/discover offers it and every request stands alone. The texts it answers with are the
// caller's (each a JSON text, spliced in as it is):
//   tools/list           -> {"tools": [{"name": "echo", "inputSchema": <schema>}, ...]} (ask's:
//                           <askSchema>)
//   tools/call echo      -> <result>
//   tools/call progress  -> a notifications/progress with <progress> as params, then <result>
//                           (an event stream)
//   tools/call ask       -> asks the client sampling/createMessage with <question> as params;
//                           once answered, <result>. In a session the question goes on the
//                           call's event stream and the answer comes as a POST; at 2026-07-28
//                           the call answers input_required (requestState: <state>) and the
//                           client's retry carries the answer.
// Returns { url, bodies, answers, stop() }: `bodies` every POST body as text, `answers` the
// texts of the client's answers to `ask` (the POST, or the retry's params).
import http from 'node:http';

const MODERN = '2026-07-28';

export async function startRawUpstream({ modern = false, schema = '{}', askSchema = '{"type":"object"}', result, progress = '{}', question = '{}', state = '{}' }) {
  const bodies = [];
  const answers = [];
  const waiting = new Map(); // question id -> resolve(answer text)
  let sessions = 0;
  let questions = 0;

  const reply = (id, resultText) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultText}}`;
  const json = (res, text, headers = {}) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers });
    res.end(text);
  };
  const events = (res, texts) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const t of texts) res.write(`data: ${t}\n\n`);
  };

  async function call(msg, text, res) {
    const name = msg.params?.name;
    if (name === 'progress') {
      events(res, [`{"jsonrpc":"2.0","method":"notifications/progress","params":${progress}}`]);
      res.end(`data: ${reply(msg.id, result)}\n\n`);
      return;
    }
    if (name !== 'ask') return json(res, reply(msg.id, result));
    if (modern) {
      // Its own reading of the retry: the answer's text, cut from the body as received.
      const at = text.indexOf('"inputResponses":');
      if (at >= 0) {
        answers.push(text.slice(at));
        return json(res, reply(msg.id, result));
      }
      return json(
        res,
        reply(
          msg.id,
          `{"resultType":"input_required","inputRequests":{"q":{"method":"sampling/createMessage","params":${question}}},"requestState":${state}}`,
        ),
      );
    }
    const qid = `q-${++questions}`;
    const answered = new Promise((resolve) => waiting.set(qid, resolve));
    events(res, [`{"jsonrpc":"2.0","id":"${qid}","method":"sampling/createMessage","params":${question}}`]);
    answers.push(await answered);
    res.end(`data: ${reply(msg.id, result)}\n\n`);
  }

  const server = http.createServer(async (req, res) => {
    if (req.method === 'DELETE') return res.writeHead(200).end();
    if (req.method !== 'POST') return res.writeHead(405).end();
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const text = Buffer.concat(chunks).toString('utf8');
    bodies.push(text);
    let msg;
    try {
      msg = JSON.parse(text); // for routing only: ids and names are plain
    } catch {
      // Not JSON (Boost.JSON writes 1e400 back as Infinity): recorded, refused.
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end('{"error":"not JSON"}');
    }
    if (!msg.method) {
      // A client's answer to a question, as gate passed it on.
      waiting.get(msg.id)?.(text);
      waiting.delete(msg.id);
      return res.writeHead(202).end();
    }
    if (msg.id === undefined) return res.writeHead(202).end();
    switch (msg.method) {
      case 'initialize':
        return json(
          res,
          reply(msg.id, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"raw-upstream","version":"1.0.0"}}`),
          { 'mcp-session-id': `raw-${++sessions}` },
        );
      case 'server/discover':
        if (!modern) return res.writeHead(404).end();
        return json(
          res,
          reply(
            msg.id,
            `{"supportedVersions":["${MODERN}"],"capabilities":{"tools":{}},"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"raw-upstream","version":"1.0.0"}}}`,
          ),
        );
      case 'tools/list':
        return json(res, reply(msg.id, `{"tools":[{"name":"echo","inputSchema":${schema}},{"name":"progress","inputSchema":{"type":"object"}},{"name":"ask","inputSchema":${askSchema}}]}`));
      case 'tools/call':
        return call(msg, text, res);
      default:
        return json(res, `{"jsonrpc":"2.0","id":${JSON.stringify(msg.id)},"error":{"code":-32601,"message":"no ${msg.method}"}}`);
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/mcp`,
    bodies,
    answers,
    /** The last body sent for `method` (and tool `name`). */
    lastBody(method, name) {
      for (let i = bodies.length - 1; i >= 0; i--) {
        let m;
        try {
          m = JSON.parse(bodies[i]);
        } catch {
          m = {}; // not JSON: routed by its text alone
          if (bodies[i].includes(`"method":"${method}"`) && (name === undefined || bodies[i].includes(`"name":"${name}"`))) return bodies[i];
        }
        if (m.method === method && (name === undefined || m.params?.name === name)) return bodies[i];
      }
      return undefined;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
