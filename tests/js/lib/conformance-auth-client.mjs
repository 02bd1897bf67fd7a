// The "client" of a conformance client-mode authorization scenario (auth/metadata-*, auth/scope-*,
// auth/iss-*, ...), when the OAuth client under test is gate itself: the scenario's resource
// server becomes gate's only upstream, with `auth.strategy: "user-account"`, so gate runs a
// user's authorization-code login at the scenario's authorization server (docs/user-accounts.md).
// The suite runs it as
//
//   node conformance-auth-client.mjs <scenario server URL>
//
// with MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and, for auth/pre-registration,
// MCP_CONFORMANCE_CONTEXT ({client_id, client_secret, issuer}) set by the suite.
//
// It starts a test identity provider (lib/idp.mjs) and gate with `auth.mode: "required"`,
// `server.publicUrl` gate's own base (known once it listens: started, then reloaded) and the
// upstream `cf` (namespace `cf`; `protocol: "2026-07-28"` at that revision, a session at the
// dated ones). An SDK client with a token of that provider calls `cf__test-tool` (the tool every
// auth scenario's server has) without listing first. gate sends it to a login: the 1.x client
// gets -32042 (URLElicitationRequiredError) and calls again after the login; the v2 client
// (2026-07-28, URL elicitation declared) gets an `elicitation/create` in URL mode, does the
// login, accepts, and its retry carries on. The login is the user's, done with fetch: gate's
// connect page, its form posted (Origin: gate), the authorization request (the suite's server
// approves at once: 302 to gate's callback) and gate's callback with the cookie gate set.
//
// The user follows at most MAX_LOGINS links and none after a login that failed. The script
// judges nothing: it exits 0 when the flow ran to its end and gate stopped cleanly, and logs
// what happened as one line, `outcome: {logins, declined, callbacks: [{status, text}], result}`
// (result: {ok: true, text} or {code, message}), which the test compares with what it expects
// of the scenario (a refused login is right for auth/iss-wrong-issuer, for example).
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

import { startGate } from './gate.mjs';
import { startIdp } from './idp.mjs';

const MODERN = '2026-07-28';
const MAX_LOGINS = 3;
const NAMESPACE = 'cf';
const TOOL = `${NAMESPACE}__test-tool`;
const RESOURCE = 'https://gate.conformance.test/mcp';
const SECRET_VAR = 'GATE_CONFORMANCE_CLIENT_SECRET';
const PREFIX = '[conformance-auth-client]';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const serverUrl = process.argv[2];
const modern = revision === MODERN;

function log(line) {
  process.stderr.write(`${PREFIX} ${line}\n`);
}

/** gate's configuration: the scenario's server as the user-account upstream `cf`. */
function gateConfig(idp, publicUrl) {
  const auth = { strategy: 'user-account' };
  if (context.client_id) {
    // auth/pre-registration: the authorization server offers no registration; gate's client
    // there is the one the operator was given.
    auth.clientId = context.client_id;
    auth.clientAuth = { type: 'client_secret_basic', secretRef: SECRET_VAR };
  }
  // auth/basic-cimd: gate's client ID metadata document is the URL the suite expects (its
  // authorization server takes it without fetching it); gate's own would be under publicUrl,
  // which is http here.
  const cimd = scenario === 'auth/basic-cimd' ? { clientMetadataUrl: 'https://conformance-test.local/client-metadata.json' } : {};
  return {
    auth: { mode: 'required', resource: RESOURCE, issuers: [{ issuer: idp.issuer }] },
    server: { publicUrl, ...cimd },
    upstreams: [{ id: NAMESPACE, url: serverUrl, namespace: NAMESPACE, ...(modern ? { protocol: MODERN } : {}), auth }],
  };
}

/** The text of gate's outcome page (`<p id="outcome">`), else its title, else the body's start. */
function pageText(html) {
  const m = /<p id="outcome">([^<]*)<\/p>/.exec(html) ?? /<title>([^<]*)<\/title>/.exec(html);
  return (m ? m[1] : html).replace(/\s+/g, ' ').trim().slice(0, 300);
}

/** A manual-redirect GET or POST; resolves { status, location, setCookie, text }. */
async function hop(url, init = {}) {
  const r = await fetch(url, { redirect: 'manual', ...init });
  const text = await r.text();
  return { status: r.status, location: r.headers.get('location'), setCookie: r.headers.get('set-cookie'), text };
}

/**
 * The user opening gate's login link: the connect page, Continue (the form posted back with
 * gate's Origin), the authorization server (which approves at once) and gate's callback with
 * the cookie set at Continue. Resolves { status, text } of the callback's page.
 */
async function followLogin(gate, link) {
  const url = new URL(link);
  if (`${url.origin}${url.pathname}` !== `${gate.base}/oauth/connect`) throw new Error(`the login link is not gate's connect page: ${link}`);
  const page = await hop(link);
  log(`connect page: HTTP ${page.status} ${pageText(page.text).slice(0, 120)}`);
  if (page.status !== 200) throw new Error(`gate's connect page answered HTTP ${page.status}`);
  const login = url.searchParams.get('login');
  const form = await hop(`${gate.base}/oauth/connect`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gate.base },
    body: `login=${encodeURIComponent(login)}`,
  });
  log(`continue: HTTP ${form.status} to ${form.location}`);
  if (form.status !== 302 || !form.location || !form.setCookie) throw new Error(`Continue answered HTTP ${form.status}: ${pageText(form.text)}`);
  const cookie = form.setCookie.split(';')[0];
  const authorize = await hop(form.location);
  log(`authorization server: HTTP ${authorize.status} to ${authorize.location}`);
  if (authorize.status !== 302 || !authorize.location) throw new Error(`the authorization request answered HTTP ${authorize.status}: ${authorize.text.slice(0, 300)}`);
  if (!authorize.location.startsWith(`${gate.base}/oauth/callback?`)) throw new Error(`the authorization server sent the browser elsewhere: ${authorize.location}`);
  const callback = await hop(authorize.location, { headers: { cookie } });
  const text = pageText(callback.text);
  log(`callback: HTTP ${callback.status} ${text}`);
  return { status: callback.status, text };
}

/** What the user does with each login gate offers: follows it, or not (over the limit). */
function user(gate, outcome) {
  return async (link) => {
    const failed = outcome.callbacks.some((c) => c.status !== 200);
    if (outcome.logins >= MAX_LOGINS || failed) {
      outcome.declined++;
      log(`login offered, not followed (${failed ? 'the last one failed' : `${MAX_LOGINS} followed already`}): ${link}`);
      return false;
    }
    outcome.logins++;
    log(`login ${outcome.logins} offered: ${link}`);
    try {
      outcome.callbacks.push(await followLogin(gate, link));
    } catch (e) {
      log(`login ${outcome.logins} failed before the callback: ${e.message}`);
      outcome.callbacks.push({ status: 0, text: `failed before the callback: ${e.message}` });
      return false;
    }
    return true; // the user opened it; a failed login shows on the next offer (not followed)
  };
}

const resultOf = (r) => ({ ok: !r.isError, text: (r.content ?? []).map((c) => c.text ?? '').join('') });
const errorOf = (e) => ({ code: e.code, message: String(e.message).slice(0, 500) });

/** 1.x SDK, no URL elicitation: each -32042 names a login; after it, the call again. */
async function callLegacy(gate, headers, follow) {
  const client = new Client({ name: `conformance-auth-${scenario}`, version: '0.0.0' }, { capabilities: {} });
  await client.connect(new StreamableHTTPClientTransport(new URL(gate.url), { requestInit: { headers } }));
  try {
    for (;;) {
      try {
        return resultOf(await client.callTool({ name: TOOL, arguments: {} }));
      } catch (e) {
        const link = e.code === -32042 ? (e.elicitations ?? e.data?.elicitations)?.[0]?.url : undefined;
        log(`call answered ${e.code}: ${String(e.message).slice(0, 200)}`);
        if (!link || !(await follow(link))) return errorOf(e);
      }
    }
  } finally {
    await client.close();
  }
}

/** v2 SDK pinned to 2026-07-28 with URL elicitation: input_required carries the login. */
async function callModern(gate, headers, follow) {
  const client = new ModernClient(
    { name: `conformance-auth-${scenario}`, version: '0.0.0' },
    { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode: { pin: MODERN } } },
  );
  client.setRequestHandler('elicitation/create', async (req) => {
    if (req.params.mode !== 'url') throw new Error(`gate asked a ${req.params.mode} elicitation`);
    if (await follow(req.params.url)) return { action: 'accept' };
    // The user closed the prompt: the client gives the call up and sends no retry. (A retry
    // carrying `decline` would wait for that login: "Found in gate" in conformance-auth.test.mjs.)
    throw new Error('the user did not open the login: call given up');
  });
  await client.connect(new ModernTransport(new URL(gate.url), { requestInit: { headers } }));
  try {
    return resultOf(await client.callTool({ name: TOOL, arguments: {} }));
  } catch (e) {
    log(`call answered ${e.code}: ${String(e.message).slice(0, 200)}`);
    return errorOf(e);
  } finally {
    await client.close();
  }
}

async function main() {
  if (!scenario?.startsWith('auth/')) throw new Error(`not an authorization scenario: ${scenario}`);
  const idp = await startIdp();
  const env = context.client_secret ? { [SECRET_VAR]: context.client_secret } : {};
  let gate;
  const outcome = { logins: 0, declined: 0, callbacks: [], result: undefined };
  let failed;
  try {
    gate = await startGate({ config: gateConfig(idp, 'http://127.0.0.1:1'), env });
    await gate.reloaded(gateConfig(idp, gate.base));
    log(`gate pid ${gate.pid} at ${gate.url}, upstream ${serverUrl}, revision ${revision}${context.client_id ? `, client ${context.client_id}` : ''}`);
    const headers = { authorization: `Bearer ${await idp.mint({ sub: 'conformance-user', aud: RESOURCE })}` };
    const call = modern ? callModern : callLegacy;
    outcome.result = await call(gate, headers, user(gate, outcome));
  } catch (err) {
    failed = err;
  }
  const ended = gate ? await gate.proc.stop({ graceMs: 15_000 }) : undefined;
  if (gate) process.stderr.write(`${gate.stderrLines.map((l) => `[gate] ${l}`).join('\n')}\n`);
  await idp.stop();
  log(`outcome: ${JSON.stringify(outcome)}`);
  if (failed) throw failed;
  log(`gate ended ${JSON.stringify(ended)}`);
  if (ended.code !== 0) throw new Error(`gate did not stop cleanly on SIGTERM: ${JSON.stringify(ended)}`);
  log(`done: ${scenario} through gate`);
}

main().then(
  () => process.exit(0),
  (err) => {
    log(`failed: ${err.stack ?? err}`);
    process.exit(1);
  },
);
