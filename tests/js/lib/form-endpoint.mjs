// A token endpoint on 127.0.0.1 for the upstream-credential tests: it records every request
// (its headers and its form, RFC 6749 application/x-www-form-urlencoded) and lets the test
// answer it: `answer(form, res)` writes the response (or nothing, to hang).
import http from 'node:http';

/** Returns { url, requests, stop() }. */
export async function startFormEndpoint(answer) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      requests.push({ headers: req.headers, form });
      answer(form, res);
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/token`,
    requests,
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A JSON answer. */
export const json = (res, status, body) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
