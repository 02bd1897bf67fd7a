// @modelcontextprotocol/conformance 0.2.0-alpha.12, client mode, its authorization scenarios,
// with gate as the OAuth client under test: each scenario's resource server is gate's upstream
// with `auth.strategy: "user-account"` (docs/user-accounts.md), so the discovery (RFC 9728 from
// the upstream's 401, RFC 8414 / OpenID), the registration (RFC 7591) or the configured client,
// the authorization request (PKCE S256, resource, scope) and the callback (state, cookie, iss)
// are gate's, and the suite scores them. lib/conformance-auth-client.mjs is the command the
// suite runs: it starts an identity provider and gate, calls the upstream's `test-tool` through
// gate with an SDK client, and plays the user with fetch when gate sends it to a login (the
// suite's authorization server approves at once). It judges nothing; it logs an `outcome:` line
// (logins followed, the callback pages, the call's result) which EXPECT below compares.
//
// The CLI, the checks.json and the stderr.txt are those of conformance-client.test.mjs; the
// scenarios' servers are the suite's (express on port 0, every interface: the suite reads the
// port back at once, which a listen on a named host does not allow).
//
// Which scenarios run and which do not, and why: docs/ci.md ("The conformance authorization
// scenarios").
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { CONFORMANCE_ENTRY, JS_DIR, spawnTracked } from './lib/index.mjs';

const CLIENT = path.join(JS_DIR, 'lib', 'conformance-auth-client.mjs');
const SUITE_TIMEOUT_MS = 45_000; // the suite's wait for the command (its default is 30 s)
const RUN_TIMEOUT_MS = 60_000;
const V2025_06 = '2025-06-18';
const V2025 = '2025-11-25';
const V2026 = '2026-07-28';

// What the user and the call saw, by the driver's `outcome:` line:
//   logins     links followed to the end (the callback);
//   callback   the status of every callback page (200 "connected", 400 refused);
//   result     'ok': the call answered the tool's "test"; 'given-up': gate offered one more
//              login, which the user did not follow (the driver follows at most 3, none after
//              one that failed), and the call did not run; a RegExp: the call failed at once
//              with a message matching it, no login offered.
const connects = (logins = 1) => ({ logins, callback: 200, result: 'ok' });
const REFUSED_CALLBACK = { logins: 1, callback: 400, callbackText: /did not come from the authorization server/, result: 'given-up' };
const refusedBefore = (why) => ({ logins: 0, result: why });

// WARNING checks gate gets, each with the reason; the test fails when one is not reported
// any more (then remove it here). None today.

// [scenario, revision, expectation, { warnings: Map(check id -> reason) }]
const CASES = [];
// Under a sanitizer (CI's ASan and TSan passes, GATE_SANITIZED) a scenario of both revisions
// runs at one, the two taken in turn: most of each run is the suite's and the driver's Node,
// gate's paths are the same at both save each era's own, which the turns still reach; the
// release pass runs every one at both (docs/ci.md).
const sanitized = Boolean(process.env.GATE_SANITIZED);
let turn = 0;
const both = (scenario, expect, extra) => {
  if (!sanitized || turn % 2 === 0) CASES.push([scenario, V2025, expect, extra]);
  if (!sanitized || turn % 2 === 1) CASES.push([scenario, V2026, expect, extra]);
  turn += 1;
};
for (const m of ['metadata-default', 'metadata-var1', 'metadata-var2', 'metadata-var3']) both(`auth/${m}`, connects());
// gate's client ID metadata document URL as client_id (server.clientMetadataUrl), not a
// registration.
both('auth/basic-cimd', connects());
both('auth/scope-from-www-authenticate', connects());
both('auth/scope-from-scopes-supported', connects());
both('auth/scope-omitted-when-undefined', connects());
// A login for mcp:basic, the call's 403 insufficient_scope (mcp:write): a second login asking
// for both (SEP-2350's union, scored at 2026-07-28).
both('auth/scope-step-up', connects(2));
// Every call answers 403 insufficient_scope: gate offers a login each time; the user follows
// three and gives up (the suite counts authorization requests: at most 3). gate never starts an
// authorization by itself: each one is a user following a link.
both('auth/scope-retry-limit', { logins: 3, callback: 200, result: 'given-up' });
for (const m of ['basic', 'post', 'none']) {
  CASES.push([`auth/token-endpoint-auth-${m}`, V2025_06, connects()]);
  both(`auth/token-endpoint-auth-${m}`, connects());
}
// No registration there: gate's client is configured (clientId, clientAuth client_secret_basic
// with the secret in gate's environment), from the context the suite hands the command.
both('auth/pre-registration', connects());
// 2026-07-28 only.
CASES.push(['auth/resource-mismatch', V2026, refusedBefore(/protected resource metadata names resource "https:\/\/evil\.example\.com\/mcp", not the upstream's URL/)]);
CASES.push(['auth/metadata-issuer-mismatch', V2026, refusedBefore(/metadata names issuer "https:\/\/attacker\.example\.com", not the one it was fetched for/)]);
// gate does not ask for offline_access (the suite's MAY: an INFO); its registration lists the
// refresh_token grant.
CASES.push(['auth/offline-access-scope', V2026, connects()]);
CASES.push(['auth/offline-access-not-supported', V2026, connects()]);
// The first token is taken once; then the server answers 401 and its metadata names another
// authorization server: gate forgets the token and the discovery, registers there, and the
// user logs in again.
CASES.push(['auth/authorization-server-migration', V2026, connects(2)]);
CASES.push(['auth/iss-supported', V2026, connects()]);
CASES.push(['auth/iss-not-advertised', V2026, connects()]);
// RFC 9207: the callback is refused (400) and no code is redeemed.
for (const s of ['iss-supported-missing', 'iss-wrong-issuer', 'iss-unexpected', 'iss-normalized']) CASES.push([`auth/${s}`, V2026, REFUSED_CALLBACK]);

// Not run:
//   auth/2025-03-26-oauth-metadata-backcompat, auth/2025-03-26-oauth-endpoint-fallback (2025-03-26
//     only): no protected resource metadata, the authorization server at the MCP server's origin
//     or at fixed paths without metadata. gate follows the later revisions: without the
//     metadata it refuses the login ("the protected resource metadata of upstream cf could not
//     be read: .../.well-known/oauth-protected-resource answered HTTP 404", -32041), and the
//     suite's authorization-server-metadata, client-registration, authorization-request and
//     token-request checks are missing (FAILURE). An operator can name the server
//     (auth.authorizationServer) for the first; nothing reaches the second.
//   auth/client-credentials-*, auth/enterprise-managed-authorization, auth/wif-jwt-bearer,
//     auth/dpop, auth/dpop-nonce (extensions): not authorization-code logins;
//     conformance-client.test.mjs and docs/ci.md say which apply.
//
// Found in gate (no scenario fails on it; the driver steps around it): a 2026-07-28 client that
// answers gate's URL elicitation with `decline` (or `cancel`) sends its retry with
// `requestState: "gate.login:<id>"` and that answer; gate takes both off unread
// (take_login_retry, gateway/mcp/account_logins.cpp) and, the login still open, waits for it
// (`finished(offer.id, login_wait)`, 10 minutes) instead of answering. Seen here: after a
// refused callback (auth/iss-*) gate offers a new login; declining it left the call without an
// answer until the client's 60 s request timeout, and the suite reported "CLIENT TIMED OUT". So
// the driver gives the call up (its elicitation handler throws: no retry is sent) where a user
// would close the prompt. A 1.x client's `decline` is answered at once (-32042).

// Our own check per run: the driver ran its flow to the end and gate stopped cleanly.
const COMPLETED = 'gate-client-completed';
const PREFIX = '[conformance-auth-client]';
const RANK = { FAILURE: 0, WARNING: 1, SKIPPED: 2, INFO: 3, SUCCESS: 4 };

/** The one checks.json and stderr.txt under `dir` (a scenario with a `/` nests a folder). */
function results(dir) {
  const files = readdirSync(dir, { recursive: true }).map(String);
  const one = (name) => {
    const found = files.filter((f) => path.basename(f) === name);
    assert.equal(found.length, 1, `one ${name} under ${dir}: ${files.join(', ')}`);
    return readFileSync(path.join(dir, found[0]), 'utf8');
  };
  return { checks: JSON.parse(one('checks.json')), stderr: one('stderr.txt') };
}

/** Runs one scenario through gate; resolves { checks, outcome, driverLog }. */
async function runScenario(workDir, [scenario, revision]) {
  const outDir = mkdtempSync(path.join(workDir, 'run-'));
  const command = `${process.execPath} ${CLIENT}`;
  assert.ok(!command.includes(' ', command.indexOf(' ') + 1), `the suite splits the command on spaces: ${command}`);
  const argv = [CONFORMANCE_ENTRY, 'client', '--command', command, '--scenario', scenario, '--spec-version', revision, '--timeout', String(SUITE_TIMEOUT_MS), '-o', outDir];
  const proc = spawnTracked(process.execPath, argv, { cwd: workDir, name: `conformance client ${scenario}` });
  const timer = setTimeout(() => proc.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const { code, signal } = await proc.exited;
  clearTimeout(timer);
  const output = `${proc.stdout.text()}\n${proc.stderr.text()}`;
  assert.equal(signal, null, `conformance ${scenario} killed (${signal}):\n${output.slice(-4000)}`);
  assert.ok(code === 0 || code === 1, `conformance ${scenario} exited ${code}:\n${output.slice(-4000)}`);
  assert.doesNotMatch(output, /CLIENT TIMED OUT/, `the suite gave up waiting for the driver (${scenario} at ${revision})`);
  const { checks, stderr } = results(outDir);
  const driverLog = stderr.split('\n').filter((l) => l.startsWith(PREFIX));
  const done = driverLog.includes(`${PREFIX} done: ${scenario} through gate`);
  checks.push({ id: COMPLETED, status: done ? 'SUCCESS' : 'FAILURE', errorMessage: done ? undefined : driverLog.join(' | ').slice(0, 3000) });
  const line = driverLog.find((l) => l.startsWith(`${PREFIX} outcome: `));
  const outcome = line ? JSON.parse(line.slice(`${PREFIX} outcome: `.length)) : undefined;
  return { checks, outcome, driverLog };
}

const show = (c) => `${c.id}: ${c.status} ${c.name ?? ''} ${c.errorMessage ?? c.description ?? ''}`.trim();

/** No FAILURE; a WARNING only where listed (and each listed one still reported); no SKIPPED. */
function assertChecks(t, [scenario, revision, , { warnings = new Map() } = {}], checks) {
  const bad = checks.filter((c) => c.status === 'FAILURE' || (c.status === 'WARNING' && !warnings.has(c.id)));
  assert.deepEqual(bad.map(show), [], `checks gate fails (${scenario} at ${revision})`);
  assert.deepEqual(checks.filter((c) => c.status === 'SKIPPED').map(show), [], `checks skipped (${scenario} at ${revision})`);
  for (const [id, why] of warnings) {
    const got = checks.filter((c) => c.id === id);
    assert.ok(got.length > 0, `the expected warning ${id} is reported (${scenario})`);
    const worst = got.reduce((a, c) => ((RANK[c.status] ?? 0) < (RANK[a.status] ?? 0) ? c : a));
    assert.equal(worst.status, 'WARNING', `${id} is no longer a warning: remove it from the case (${why})`);
    t.diagnostic(`expected warning: ${show(worst)} -- ${why}`);
  }
  const ours = new Set(['wire-schema-valid', COMPLETED, 'incoming-request', 'outgoing-response', 'incoming-auth-request', 'outgoing-auth-response']);
  assert.ok(checks.some((c) => c.status === 'SUCCESS' && !ours.has(c.id)), `${scenario} at ${revision} scored something of gate's`);
}

/** The driver's outcome is what the scenario asks of a client (see `connects` and the rest). */
function assertOutcome([scenario, revision, expect], { outcome, driverLog }) {
  const where = `${scenario} at ${revision}:\n${driverLog.join('\n')}`;
  assert.ok(outcome, `the driver logged its outcome (${where})`);
  assert.equal(outcome.logins, expect.logins, `logins followed (${where})`);
  assert.deepEqual(outcome.callbacks.map((c) => c.status), Array(expect.logins).fill(expect.callback), `callback pages (${where})`);
  if (expect.callbackText) for (const c of outcome.callbacks) assert.match(c.text, expect.callbackText, where);
  if (expect.result === 'ok') {
    assert.deepEqual(outcome.result, { ok: true, text: 'test' }, `the call ran upstream (${where})`);
    assert.equal(outcome.declined, 0, `no login left unfollowed (${where})`);
  } else if (expect.result === 'given-up') {
    assert.equal(outcome.declined, 1, `one more login offered, not followed (${where})`);
    assert.notEqual(outcome.result.ok, true, `the call did not run (${where})`);
  } else {
    assert.equal(outcome.declined, 0, `no login offered (${where})`);
    assert.match(outcome.result.message ?? '', /upstream cf unavailable/, where);
    assert.match(outcome.result.message ?? '', expect.result, where);
  }
}

describe('conformance authorization scenarios: gate as the OAuth client of a user-account upstream', { concurrency: 3, timeout: 300_000 }, () => {
  let workDir;

  before(() => {
    assert.ok(Number(process.versions.node.split('.')[0]) >= 22, `conformance needs Node >= 22, this is ${process.version}`);
    workDir = mkdtempSync(path.join(tmpdir(), 'gate-conformance-auth-'));
  });

  after(() => {
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  for (const c of CASES) {
    const [scenario, revision] = c;
    test(`${scenario} at ${revision}`, { timeout: RUN_TIMEOUT_MS + 10_000 }, async (t) => {
      const run = await runScenario(workDir, c);
      assertChecks(t, c, run.checks);
      assertOutcome(c, run);
    });
  }
});
