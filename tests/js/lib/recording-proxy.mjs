// An HTTP proxy in front of a real MCP server that records what gate sends it: each
// request's HTTP method, headers and JSON-RPC method. Streams (SSE) pass through as they come.
// `stop()` closes it like a dead replica: listener and open connections. `failWith({status,
// body})` makes it answer every POST itself, as a broken upstream would, and `failWith({hang:
// true})` makes it answer nothing at all, until `failWith(null)`.
import http from 'node:http';

export async function startRecordingProxy(targetUrl) {
  const target = new URL(targetUrl);
  const seen = [];
  let failure = null;
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      let rpc = null;
      try {
        rpc = body.length ? JSON.parse(body.toString('utf8')) : null;
      } catch {
        rpc = null;
      }
      seen.push({ httpMethod: req.method, headers: req.headers, rpcMethod: rpc?.method ?? null });
      if (failure?.hang) return; // accepts, reads, never answers: a hung replica
      if (failure && req.method === 'POST') {
        res.writeHead(failure.status, { 'content-type': failure.contentType ?? 'application/json' });
        res.end(failure.body);
        return;
      }
      const out = http.request(
        {
          host: target.hostname,
          port: target.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, host: target.host },
        },
        (up) => {
          res.writeHead(up.statusCode, up.headers);
          up.pipe(res);
        },
      );
      out.on('error', () => res.destroy());
      out.end(body);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}${target.pathname}`,
    seen,
    count: (rpcMethod) => seen.filter((r) => r.rpcMethod === rpcMethod).length,
    failWith: (f) => {
      failure = f;
    },
    stop: () => {
      for (const s of sockets) s.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}
