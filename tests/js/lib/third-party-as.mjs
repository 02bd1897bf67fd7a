// A third party's OAuth 2.1 / OpenID authorization server on 127.0.0.1: `oidc-provider`
// (a certified implementation) with its own sign-in and consent pages (devInteractions: any
// login name, any password), dynamic client registration (RFC 7591), resource indicators
// (RFC 8707: a token for one MCP server, a JWT with that server as its audience), refresh
// tokens and the `iss` authorization response parameter (RFC 9207). What it issued is
// counted per grant type, and `verify(token, audience)` checks a token as its resource
// server would (signature, issuer, audience): the subject, or null.
import { createServer } from 'node:http';

import Provider from 'oidc-provider';
import { createLocalJWKSet, exportJWK, generateKeyPair, jwtVerify } from 'jose';

/**
 * Starts it. Returns { issuer, grants (counts per grant_type), requests (counts per path),
 * revoked (grants revoked: { grantId, account, client }), endGrantsOf(account), faults
 * ({tokenEndpoint: null | 'garbage' | 'error'}),
 * introspectionEndpoint, clientToken(id, secret, resource, scope), revoke(id, secret, token),
 * verify(token, audience), stop() }. `accessTokenFormat`: 'jwt' or 'opaque' (then only its
 * introspection endpoint says what a token is); `clients`: static clients (id, secret, grants). `accessTokenTtl`: seconds a login's access token lives (60: due for refresh at once,
 * as gate counts); `refreshedTokenTtl`: one from a refresh.
 */
export async function startThirdPartyAs({
  scope = 'files:read files:write',
  accessTokenTtl = 3600,
  refreshedTokenTtl = accessTokenTtl,
  accessTokenFormat = 'jwt',
  clients = [],
} = {}) {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'k1', alg: 'ES256', use: 'sig' };
  const { d, ...publicJwk } = jwk;
  const keySet = createLocalJWKSet({ keys: [publicJwk] });
  const grants = {};
  let issuer = '';
  const listener = createServer();
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${listener.address().port}`;
  const provider = new Provider(issuer, {
    jwks: { keys: [jwk] },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope,
          audience: resource,
          accessTokenFormat,
          ...(accessTokenFormat === 'jwt' ? { jwt: { sign: { alg: 'ES256' } } } : {}),
        }),
      },
      introspection: { enabled: true },
      clientCredentials: { enabled: true },
    },
    clients,
    scopes: ['openid', 'offline_access', ...scope.split(' ')],
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // A token from a login lives accessTokenTtl, one from a refresh refreshedTokenTtl.
    ttl: { AccessToken: (_ctx, token) => (String(token.gty).includes('refresh_token') ? refreshedTokenTtl : accessTokenTtl), RefreshToken: 3600, Grant: 3600, Interaction: 600, Session: 3600 },
    pkce: { required: () => true },
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], id_token_signed_response_alg: 'ES256' },
  });
  provider.proxy = false;
  const grantIdsOf = {}; // account -> the grants its tokens were issued under
  provider.on('grant.success', (ctx) => {
    const g = ctx.oidc?.params?.grant_type ?? '?';
    grants[g] = (grants[g] ?? 0) + 1;
    const t = ctx.oidc?.entities?.AccessToken;
    if (t?.accountId && t.grantId) (grantIdsOf[t.accountId] ??= new Set()).add(t.grantId);
  });
  // Grants revoked (RFC 7009 at its revocation endpoint): whose, and by which client.
  const revoked = [];
  provider.on('grant.revoked', (ctx, grantId) => {
    const token = ctx.oidc?.entities?.RefreshToken ?? ctx.oidc?.entities?.AccessToken;
    revoked.push({ grantId, account: token?.accountId, client: ctx.oidc?.client?.clientId });
  });
  // Requests per path (the introspection endpoint's are counted by the tests).
  const requests = {};
  const serve = provider.callback();
  // A token endpoint gone bad, for the tests of a peer that lies: 'garbage' answers 200 with
  // an HTML page, 'error' 500 with one; null serves as the server would.
  const faults = { tokenEndpoint: null };
  listener.on('request', (req, res) => {
    const at = new URL(req.url, issuer).pathname;
    requests[at] = (requests[at] ?? 0) + 1;
    if (at === '/token' && req.method === 'POST' && faults.tokenEndpoint) {
      req.resume();
      res.writeHead(faults.tokenEndpoint === 'garbage' ? 200 : 500, { 'content-type': 'text/html' });
      res.end('<html><body>\u001b[31mnot a token\r\nSet-Cookie: x=1</body></html>');
      return;
    }
    serve(req, res);
  });
  return {
    issuer,
    grants,
    requests,
    revoked,
    faults,
    introspectionEndpoint: `${issuer}/token/introspection`,
    /** A client's own token (client_credentials) for `resource`, opaque or a JWT as configured. */
    async clientToken(clientId, secret, resource, tokenScope = 'files:read') {
      const r = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: tokenScope }),
      });
      const body = await r.json();
      if (!r.ok) throw new Error(`the token endpoint answered ${r.status}: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    /** Revokes a token at the server (RFC 7009). */
    async revoke(clientId, secret, token) {
      const r = await fetch(`${issuer}/token/revocation`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token }),
      });
      if (!r.ok) throw new Error(`revocation answered ${r.status}`);
    },
    /** Ends every grant of `account` at the server, as a user revoking gate's access there
     * would: its refresh tokens are then refused (invalid_grant). */
    async endGrantsOf(account) {
      for (const id of grantIdsOf[account] ?? []) await provider.Grant.adapter.destroy(id);
    },
    async verify(token, audience) {
      return (await this.claims(token, audience))?.sub ?? null;
    },
    /** The token's verified claims (sub, scope, ...), or null. */
    async claims(token, audience) {
      try {
        return (await jwtVerify(token, keySet, { issuer, audience })).payload;
      } catch {
        return null;
      }
    },
    stop: () =>
      new Promise((resolve) => {
        listener.closeAllConnections();
        listener.close(resolve);
      }),
  };
}
