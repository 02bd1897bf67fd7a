// A stand-in authorization server for simulations/bench_instructions.sh's mode `vaulted`: its
// metadata (RFC 8414, S256, iss), an authorization endpoint that approves at once (a 302 to
// the redirect URI with a code, the state and iss) and a token endpoint that issues a token for
// an hour with a refresh token. Prints one line of JSON with the issuer; runs until killed.
import http from 'node:http';

let issuer = '';
let issued = 0;
const server = http.createServer((req, res) => {
  const url = new URL(req.url, issuer);
  if (url.pathname === '/.well-known/oauth-authorization-server') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({
      issuer,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
    }));
    return;
  }
  if (url.pathname === '/authorize') {
    const back = new URL(url.searchParams.get('redirect_uri'));
    back.searchParams.set('code', 'bench-code');
    back.searchParams.set('state', url.searchParams.get('state'));
    back.searchParams.set('iss', issuer);
    res.writeHead(302, { location: back.toString() }).end();
    return;
  }
  if (url.pathname === '/token' && req.method === 'POST') {
    req.resume();
    req.on('end', () => {
      issued += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ access_token: `bench-user-token-${issued}`, token_type: 'Bearer', expires_in: 3600, refresh_token: 'bench-refresh' }));
    });
    return;
  }
  res.writeHead(404).end();
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
issuer = `http://127.0.0.1:${server.address().port}`;
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
