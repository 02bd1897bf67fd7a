// A test identity provider on 127.0.0.1: key pairs made with openssl, its key set served at
// /.well-known/jwks.json (counting every fetch), and tokens minted independently of gate with
// the `jose` library. `behaviour` lets a test make the key set slow, oversized or broken.
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { randomUUID } from 'node:crypto';

import { SignJWT, exportJWK, importPKCS8, importSPKI } from 'jose';

const OPENSSL_KEYS = {
  RS256: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  PS256: ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048'],
  ES256: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256'],
  ES384: ['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'],
  EdDSA: ['-algorithm', 'Ed25519'],
};

/** A key pair made with openssl: { alg, kid, privateKey, publicKey, publicPem, jwk }. */
export async function makeKey(alg = 'ES256', kid = randomUUID()) {
  const pem = execFileSync('openssl', ['genpkey', ...OPENSSL_KEYS[alg]], { encoding: 'utf8' });
  const publicPem = execFileSync('openssl', ['pkey', '-pubout'], { input: pem, encoding: 'utf8' });
  const privateKey = await importPKCS8(pem, alg);
  const publicKey = await importSPKI(publicPem, alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { alg, kid, privateKey, publicKey, publicPem, jwk };
}

/**
 * Starts the provider. Returns { issuer, jwksUri, keys, fetches(), fetchTimes() (when each fetch
 * arrived, ms), setBehaviour(b), mint(claims, opts), stop() }. behaviour: { delayMs, body (a
 * string served instead of the set), status, headers (added to the answer, e.g. cache-control) }.
 * The set served is `keys` at the time of each fetch: a test rotates keys by changing that array.
 */
export async function startIdp({ algs = ['ES256'] } = {}) {
  const keys = [];
  for (const alg of algs) keys.push(await makeKey(alg));
  const fetchTimes = [];
  let behaviour = {};
  const server = http.createServer((req, res) => {
    if (req.url !== '/.well-known/jwks.json') {
      res.writeHead(404).end();
      return;
    }
    fetchTimes.push(Date.now());
    const answer = () => {
      const body = behaviour.body ?? JSON.stringify({ keys: keys.map((k) => k.jwk) });
      const headers = { 'content-type': 'application/json', ...behaviour.headers };
      res.writeHead(behaviour.status ?? 200, headers).end(body);
    };
    if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
    else answer();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${server.address().port}`;
  return {
    issuer,
    jwksUri: `${issuer}/.well-known/jwks.json`,
    keys,
    fetches: () => fetchTimes.length,
    fetchTimes: () => [...fetchTimes],
    setBehaviour: (b) => {
      behaviour = b;
    },
    /**
     * A token signed with keys[0] (or opts.key). Claims default to iss = this issuer, sub,
     * iat and exp in 5 minutes; pass a claim as undefined to leave it out.
     */
    async mint(claims = {}, { key = keys[0], header = {} } = {}) {
      const now = Math.floor(Date.now() / 1000);
      const all = { iss: issuer, sub: 'alice', iat: now, exp: now + 300, ...claims };
      for (const k of Object.keys(all)) if (all[k] === undefined) delete all[k];
      return new SignJWT(all)
        .setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'at+jwt', ...header })
        .sign(key.privateKey);
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
