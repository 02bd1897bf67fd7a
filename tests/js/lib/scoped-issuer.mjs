// An OAuth authorization server on 127.0.0.1 for step-up tests: RFC 8414 metadata, its key set,
// and a client_credentials token endpoint that grants the scopes asked for (a `scope` form
// field) in the token's `scope` claim, for the audience `resource`. `requests` lists each
// token request's scope. Tokens are signed with a key made by openssl (idp.mjs).
import http from 'node:http';

import { SignJWT } from 'jose';

import { makeKey } from './idp.mjs';

export async function startScopedIssuer({ resource, clientId = 'step-up-client', clientSecret = 'step-up-secret' }) {
  const key = await makeKey('ES256');
  const requests = [];
  let issuer;
  const mint = (claims) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' })
      .setIssuer(issuer)
      .setAudience(resource)
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(key.privateKey);
  const server = http.createServer(async (req, res) => {
    const json = (status, body) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (req.url === '/.well-known/oauth-authorization-server')
      return json(200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/.well-known/jwks.json`,
        grant_types_supported: ['client_credentials'],
        token_endpoint_auth_methods_supported: ['client_secret_basic'],
        response_types_supported: ['token'],
      });
    if (req.url === '/.well-known/jwks.json') return json(200, { keys: [key.jwk] });
    if (req.url !== '/token' || req.method !== 'POST') return json(404, { error: 'not_found' });
    let body = '';
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    if (req.headers.authorization !== `Basic ${basic}`) return json(401, { error: 'invalid_client' });
    const scope = form.get('scope') ?? '';
    requests.push(scope);
    const token = await mint({ sub: clientId, scope });
    return json(200, { access_token: token, token_type: 'Bearer', expires_in: 600, scope });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  issuer = `http://127.0.0.1:${server.address().port}`;
  return {
    issuer,
    clientId,
    clientSecret,
    requests,
    mint: (sub, scope) => mint({ sub, scope }),
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
