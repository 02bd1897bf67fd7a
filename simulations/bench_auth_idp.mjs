// A stand-in identity provider for simulations/bench_auth.sh: makes an ES256 key, serves its
// key set on 127.0.0.1 (a free port), and prints one line of JSON with the issuer and a
// token for the gateway's resource (one hour) that the benchmark sends on every call.
// Runs until killed.
import http from 'node:http';

import { SignJWT, exportJWK, generateKeyPair } from 'jose';

const resource = process.argv[2] ?? 'https://gate.bench/mcp';
const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = { ...(await exportJWK(publicKey)), kid: 'bench', alg: 'ES256', use: 'sig' };
const server = http.createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const issuer = `http://127.0.0.1:${server.address().port}`;
const now = Math.floor(Date.now() / 1000);
const token = await new SignJWT({ iss: issuer, aud: resource, sub: 'bench-user', groups: ['bench'], iat: now, exp: now + 3600 })
  .setProtectedHeader({ alg: 'ES256', kid: 'bench', typ: 'at+jwt' })
  .sign(privateKey);
process.stdout.write(`${JSON.stringify({ issuer, token })}\n`);
