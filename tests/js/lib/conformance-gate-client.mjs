// The "client" of a conformance client scenario, when the client under test is gate itself:
// gate is a client of its upstreams, so the scenario's server becomes gate's only upstream and
// an SDK client drives gate from the other side, asking of gate what the scenario asks of a
// client. The suite runs it as
//
//   node conformance-gate-client.mjs <scenario server URL>
//
// with MCP_CONFORMANCE_SCENARIO (the scenario), MCP_CONFORMANCE_PROTOCOL_VERSION (the revision
// the scenario runs at) and, for some scenarios, MCP_CONFORMANCE_CONTEXT (JSON) set by the
// suite. GATE_CONFORMANCE_NAMESPACE (ours) puts the upstream under that namespace instead of
// passthrough. At 2026-07-28 the upstream is configured `protocol: "2026-07-28"` and the client
// is the v2 SDK pinned to that revision; at the dated revisions the upstream is a session and
// the client the 1.x SDK. gate is started with `--port 0` and stopped by its PID (SIGTERM).
// gate's stderr is copied to this process's stderr, which the suite saves beside the checks.
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { connectClient } from './client.mjs';
import { startGate } from './gate.mjs';
import { modernRequest, post } from './http.mjs';

const MODERN = '2026-07-28';
const SEPARATOR = '__';

const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
const revision = process.env.MCP_CONFORMANCE_PROTOCOL_VERSION ?? '2025-11-25';
const context = process.env.MCP_CONFORMANCE_CONTEXT ? JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT) : {};
const namespace = process.env.GATE_CONFORMANCE_NAMESPACE || undefined;
const serverUrl = process.argv[2];
const modern = revision === MODERN;

/** The name gate lists for an upstream's tool or prompt `name`. */
const named = (name) => (namespace ? `${namespace}${SEPARATOR}${name}` : name);

function log(line) {
  process.stderr.write(`[conformance-gate-client] ${line}\n`);
}

async function connect(url, { capabilities = {}, onElicit } = {}) {
  if (!modern) {
    const client = await connectClient(url, { capabilities, name: `conformance-via-gate-${scenario}` });
    if (onElicit) client.setRequestHandler(ElicitRequestSchema, (req) => onElicit(req.params));
    return client;
  }
  const client = new ModernClient({ name: `conformance-via-gate-${scenario}`, version: '0.0.0' }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
  if (onElicit) client.setRequestHandler('elicitation/create', (req) => onElicit(req.params));
  await client.connect(new ModernTransport(new URL(url)));
  return client;
}

/** Calls the upstream's tool `name` through gate and fails on a JSON-RPC error or isError. */
async function call(client, name, args = {}) {
  const r = await client.callTool({ name: named(name), arguments: args });
  if (r.isError) throw new Error(`${named(name)} answered isError: ${JSON.stringify(r.content)}`);
  return r;
}

async function listed(client) {
  const { tools } = await client.listTools();
  log(`tools through gate: ${tools.map((t) => t.name).join(', ')}`);
  return tools;
}

const accept = (content) => () => ({ action: 'accept', content });

/** What each scenario asks of a client, done through gate. */
const SCENARIOS = {
  async initialize(url) {
    const client = await connect(url);
    await client.listTools();
    await client.close();
  },
  async tools_call(url) {
    const client = await connect(url);
    await listed(client);
    await call(client, 'add_numbers', { a: 5, b: 3 });
    await client.close();
  },
  async 'elicitation-sep1034-client-defaults'(url) {
    // The downstream client applies the schema's defaults (SEP-1034); gate relays the request
    // with its schema and the answer with its content.
    const client = await connect(url, { capabilities: { elicitation: { form: { applyDefaults: true } } }, onElicit: accept({}) });
    await listed(client);
    await call(client, 'test_client_elicitation_defaults');
    await client.close();
  },
  async 'sse-retry'(url) {
    const client = await connect(url);
    await listed(client);
    await call(client, 'test_reconnection');
    await client.close();
  },
  async 'request-metadata'(url) {
    const client = await connect(url);
    await listed(client);
    await client.close();
  },
  async 'sep-2322-client-request-state'(url) {
    const client = await connect(url, { capabilities: { elicitation: { form: {} } }, onElicit: accept({ confirmed: true }) });
    await listed(client);
    await call(client, 'test_mrtr_echo_state');
    await call(client, 'test_mrtr_unrelated');
    await call(client, 'test_mrtr_no_state');
    await call(client, 'test_mrtr_no_result_type');
    await client.close();
  },
  async 'http-standard-headers'(url) {
    const client = await connect(url);
    await listed(client);
    await call(client, 'test_headers');
    await call(client, 'my-hyphenated-tool');
    const { resources } = await client.listResources();
    for (const r of resources) await client.readResource({ uri: r.uri });
    const { prompts } = await client.listPrompts();
    for (const p of prompts) await client.getPrompt({ name: p.name });
    await client.close();
  },
  async 'http-custom-headers'(url) {
    const client = await connect(url);
    await listed(client);
    for (const { name, arguments: args } of context.toolCalls ?? []) await call(client, name, args);
    await client.close();
  },
  async 'http-invalid-tool-headers'(url) {
    const client = await connect(url);
    const tools = await listed(client);
    await call(client, 'valid_tool', { region: 'us-west1' });
    // The SDK client leaves out tools whose x-mcp-header annotations are invalid; asked for
    // them by a raw request, gate must not call them upstream either.
    const invalid = ['invalid_empty_header', 'invalid_object_header', 'invalid_array_header', 'invalid_null_header', 'invalid_number_header', 'invalid_duplicate_same_case', 'invalid_duplicate_diff_case', 'invalid_space_in_name', 'invalid_colon_in_name', 'invalid_non_ascii_name', 'invalid_control_char_name'];
    for (const name of invalid) {
      const listedByGate = tools.some((t) => t.name === named(name));
      const { body, headers } = modernRequest('tools/call', { name: named(name), arguments: {} });
      const res = await post(url, body, headers);
      log(`${named(name)}: listed by gate ${listedByGate}, raw call answered HTTP ${res.status} ${JSON.stringify(res.json?.error ?? res.json?.result ?? res.text).slice(0, 200)}`);
    }
    await client.close();
  },
  async 'auth/client-credentials-basic'(url) {
    const client = await connect(url);
    await listed(client);
    await call(client, 'test-tool');
    await client.close();
  },
  async 'sep-2640-client-no-prefetch'(url) {
    const client = await connect(url);
    const { body, headers } = modernRequest('skills/list', {});
    const res = await post(url, body, headers);
    log(`skills/list through gate: HTTP ${res.status} ${res.text.slice(0, 300)}`);
    await client.close();
  },
  async 'json-schema-ref-no-deref'(url) {
    const client = await connect(url);
    await listed(client);
    await client.close();
  },
  async 'json-schema-2020-12-preservation'(url) {
    const client = await connect(url);
    const tools = await listed(client);
    const focal = tools.find((t) => t.name === named('json_schema_2020_12_tool'));
    if (!focal) throw new Error('gate did not list json_schema_2020_12_tool');
    await call(client, 'json_schema_echo', { schema: focal.inputSchema });
    await client.close();
  },
};

/**
 * The token endpoint of the scenario's authorization server, looked up as an operator would
 * before writing gate's configuration (gate takes the endpoint, it does not discover it):
 * the resource's RFC 9728 metadata names the server, its RFC 8414 metadata the endpoint.
 */
async function tokenEndpoint() {
  const prmUrl = new URL('/.well-known/oauth-protected-resource/mcp', serverUrl);
  const prm = await (await fetch(prmUrl)).json();
  const as = prm.authorization_servers[0];
  const meta = await (await fetch(new URL('/.well-known/oauth-authorization-server', as))).json();
  return meta.token_endpoint;
}

/** The `auth` of the upstream entry and the environment holding its secret. */
async function upstreamAuth() {
  if (scenario !== 'auth/client-credentials-basic') return { auth: undefined, env: {} };
  const auth = {
    strategy: 'client-credentials',
    tokenEndpoint: await tokenEndpoint(),
    clientId: context.client_id,
    clientAuth: { type: 'client_secret_basic', secretRef: 'GATE_CONFORMANCE_CLIENT_SECRET' },
  };
  return { auth, env: { GATE_CONFORMANCE_CLIENT_SECRET: context.client_secret } };
}

async function main() {
  const run = SCENARIOS[scenario];
  if (!run) throw new Error(`no gate client for scenario ${scenario}`);
  const { auth, env } = await upstreamAuth();
  const upstream = { id: 'up', url: serverUrl, ...(namespace ? { namespace } : {}), ...(modern ? { protocol: MODERN } : {}), ...(auth ? { auth } : {}) };
  const gate = await startGate({ config: { upstreams: [upstream] }, env });
  log(`gate pid ${gate.pid} at ${gate.url}, upstream ${JSON.stringify(upstream)}, revision ${revision}`);
  let failed;
  try {
    await run(gate.url);
  } catch (err) {
    failed = err;
  }
  const ended = await gate.proc.stop({ graceMs: 15_000 });
  process.stderr.write(`${gate.stderrLines.map((l) => `[gate] ${l}`).join('\n')}\n`);
  log(`gate ended ${JSON.stringify(ended)}`);
  if (failed) throw failed;
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
