// ID-JAGs as an enterprise identity provider issues them (auth.ema's tests): signed with one of
// a test provider's keys (the `jose` library), for gate's issuer and resource, each with its own
// jti; and the token request that redeems one at gate's POST /oauth/token.
import { randomUUID } from 'node:crypto';

import { SignJWT } from 'jose';

export const EMA_RESOURCE = 'https://gate.example/mcp';
export const EMA_GATE_ISSUER = 'https://gate.example';

export function idJag(idp, claims = {}, { header = {}, key = idp.keys[0] } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const all = {
    iss: idp.issuer,
    sub: 'alice',
    aud: EMA_GATE_ISSUER,
    resource: EMA_RESOURCE,
    client_id: 'client-1',
    scope: 'mcp.read mcp.write',
    jti: randomUUID(),
    iat: now,
    exp: now + 120,
    ...claims,
  };
  for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
  return new SignJWT(all).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'oauth-id-jag+jwt', ...header }).sign(key.privateKey);
}

export const jwtBearerGrant = (assertion, extra = {}) => ({
  grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
  assertion,
  ...extra,
});
