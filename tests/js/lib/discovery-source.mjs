// A discovery source on 127.0.0.1 (a port the kernel picks): `GET /registry` answers the
// document it is given (`serve(doc)`: an object is sent as JSON, a string as it is), or an
// HTTP status instead (`fail(status)`). Every request is recorded with its Authorization header.
import http from 'node:http';

export async function startDiscoverySource(doc = { upstreams: [] }) {
  const requests = [];
  const state = { body: JSON.stringify(doc), status: 200 };
  const server = http.createServer((req, res) => {
    requests.push({ method: req.method, path: req.url, authorization: req.headers.authorization ?? null });
    if (req.url !== '/registry') return res.writeHead(404).end();
    if (state.status !== 200) return res.writeHead(state.status).end('unavailable');
    res.writeHead(200, { 'content-type': 'application/json' }).end(state.body);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/registry`,
    requests,
    serve(next) {
      state.status = 200;
      state.body = typeof next === 'string' ? next : JSON.stringify(next);
    },
    fail(status = 503) {
      state.status = status;
    },
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
