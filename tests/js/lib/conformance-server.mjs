// The server side of the MCP conformance suite's scenarios, written for these tests on the v2
// SDK (@modelcontextprotocol/server 2.4.0): the suite's own reference server is not in its npm
// package, so this one implements what each scenario's "Server Implementation Requirements"
// ask for, by the names the scenarios call:
//   tools     test_simple_text, test_image_content, test_audio_content, test_embedded_resource,
//             test_multiple_content_types, test_error_handling (isError), test_tool_with_progress
//             (0/50/100 of 100 when the call has a progressToken), test_tool_with_logging and
//             test_logging_tool (log messages: the SDK drops them for a 2026-07-28 request
//             without a logLevel), test_missing_capability (-32021 unless sampling is declared),
//             test_streaming_elicitation, test_trigger_tool_change / test_trigger_prompt_change
//             (publish a list change to subscriptions/listen streams), test_header_param
//             (x-mcp-header Region), json_schema_2020_12_tool, the input_required tools of
//             SEP-2322 (test_input_required_result_*), and the 2025 scenarios' server-to-client
//             requests: test_sampling, test_elicitation, test_elicitation_sep1034_defaults,
//             test_elicitation_sep1330_enums
//   resources test://static-text, test://static-binary, test://watched-resource (subscribable
//             in a 2025 session), the template test://template/{id}/data; an unknown URI
//             answers -32602 with the URI as data
//   prompts   test_simple_prompt, test_prompt_with_arguments (arg1/arg2, completable),
//             test_prompt_with_embedded_resource, test_prompt_with_image,
//             test_input_required_result_prompt
// Cacheable results carry ttlMs/cacheScope. requestState is HMAC-sealed (the SDK's codec), so
// a tampered one answers -32602. A Host that is not a loopback name is refused (DNS
// rebinding). Served on 127.0.0.1 and a kernel-chosen port, both revisions on one endpoint as
// the suite's reference server does: 2026-07-28 statelessly, 2025-11-25 with sessions.
import http from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';

import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  InMemoryServerEventBus,
  McpServer,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
  completable,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  inputRequired,
  isLegacyRequest,
  localhostAllowedHostnames,
  validateHostHeader,
} from '@modelcontextprotocol/server';
import * as z from 'zod';

// A 1x1 PNG and a tiny WAV (16-bit mono, 8 kHz, four silent samples).
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
function wav() {
  const data = Buffer.alloc(8);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(1, 22);
  h.writeUInt32LE(8000, 24);
  h.writeUInt32LE(16000, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]).toString('base64');
}
const WAV = wav();

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const nameSchema = (field) => ({ type: 'object', properties: { [field]: { type: 'string' } }, required: [field] });
const ask = (message, field) => inputRequired.elicit({ message, requestedSchema: nameSchema(field) });
const answered = (responses, key) => responses?.[key]?.action === 'accept' && responses[key].content;
const pause = (ms) => new Promise((r) => setTimeout(r, ms));

function contentTools(server) {
  const noArgs = { inputSchema: z.object({}) };
  server.registerTool('test_simple_text', { description: 'simple text', ...noArgs }, async () => text('This is a simple text response for testing.'));
  server.registerTool('test_image_content', { description: 'an image', ...noArgs }, async () => ({
    content: [{ type: 'image', data: PNG, mimeType: 'image/png' }],
  }));
  server.registerTool('test_audio_content', { description: 'audio', ...noArgs }, async () => ({
    content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }],
  }));
  const embedded = { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } };
  server.registerTool('test_embedded_resource', { description: 'an embedded resource', ...noArgs }, async () => ({ content: [embedded] }));
  server.registerTool('test_multiple_content_types', { description: 'mixed content', ...noArgs }, async () => ({
    content: [{ type: 'text', text: 'Multiple content types test:' }, { type: 'image', data: PNG, mimeType: 'image/png' }, embedded],
  }));
  server.registerTool('test_error_handling', { description: 'always fails', ...noArgs }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }],
  }));
  server.registerTool('test_tool_with_progress', { description: 'reports progress', ...noArgs }, async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken, progress, total: 100 } });
      if (progress < 100) await pause(50);
    }
    return text(`Progress test completed (token ${progressToken ?? 'none'})`);
  });
  const logs = async (_args, ctx) => {
    for (const step of ['started', 'running', 'finished']) {
      await ctx.mcpReq.log('info', `tool ${step}`);
      await pause(20);
    }
    return text('Logging test completed');
  };
  server.registerTool('test_tool_with_logging', { description: 'logs three messages', ...noArgs }, logs);
  server.registerTool('test_logging_tool', { description: 'logs three messages', ...noArgs }, logs);
}

// Exercises the 2020-12 keywords json-schema-2020-12 looks for: $schema, $defs with an $anchor,
// composition, a conditional and additionalProperties.
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'postal', type: 'object', properties: { line: { type: 'string' }, town: { type: 'string' } } } },
  properties: { who: { type: 'string' }, address: { $ref: '#/$defs/address' }, via: { enum: ['mail', 'phone'] }, phone: { type: 'string' }, mail: { type: 'string' } },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['mail'] }] }],
  if: { properties: { via: { const: 'phone' } }, required: ['via'] },
  then: { required: ['phone'] },
  else: { required: ['mail'] },
  additionalProperties: false,
};

function diagnosticTools(server, bus) {
  const noArgs = { inputSchema: z.object({}) };
  // The SDK turns an error thrown by a tool into an isError result, but answers -32021 itself
  // when a tool asks for input through a capability the request did not declare.
  server.registerTool('test_missing_capability', { description: 'needs sampling', ...noArgs }, async (_args, ctx) => {
    const r = ctx.mcpReq.inputResponses?.probe;
    return r ? text('the client can sample') : inputRequired({ inputRequests: { probe: SAMPLE('Say anything', 10) } });
  });
  server.registerTool('test_streaming_elicitation', { description: 'asks for a name', ...noArgs }, async (_args, ctx) => {
    const content = answered(ctx.mcpReq.inputResponses, 'user_name');
    return content ? text(`Hello, ${content.name}!`) : inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } });
  });
  server.registerTool('test_header_param', { description: 'mirrors region in Mcp-Param-Region', inputSchema: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }) }) }, async ({ region }) =>
    text(`region ${region}`),
  );
  server.registerTool('json_schema_2020_12_tool', { description: 'a JSON Schema 2020-12 input schema', inputSchema: fromJsonSchema(SCHEMA_2020_12) }, async () => text('schema ok'));
  server.registerTool('test_trigger_tool_change', { description: 'announces a tool list change', ...noArgs }, async () => {
    await bus.publish({ kind: 'tools_list_changed' });
    return text('tools changed');
  });
  server.registerTool('test_trigger_prompt_change', { description: 'announces a prompt list change', ...noArgs }, async () => {
    await bus.publish({ kind: 'prompts_list_changed' });
    return text('prompts changed');
  });
}

const SAMPLE = (question, maxTokens) =>
  inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: question } }], maxTokens });
const ROOTS = () => inputRequired.listRoots();

function inputTools(server, codec) {
  const noArgs = { inputSchema: z.object({}) };
  const tool = (name, fn) => server.registerTool(name, { description: `SEP-2322 ${name}`, ...noArgs }, async (_a, ctx) => fn(ctx.mcpReq, ctx));
  tool('test_input_required_result_elicitation', (req) => {
    const content = answered(req.inputResponses, 'user_name');
    return content ? text(`Hello, ${content.name}!`) : inputRequired({ inputRequests: { user_name: ask('What is your name?', 'name') } });
  });
  tool('test_input_required_result_sampling', (req) => {
    const r = req.inputResponses?.capital_question;
    return r ? text(`The model said: ${r.content?.text ?? ''}`) : inputRequired({ inputRequests: { capital_question: SAMPLE('What is the capital of France?', 100) } });
  });
  tool('test_input_required_result_list_roots', (req) => {
    const r = req.inputResponses?.client_roots;
    return r ? text(`Roots: ${(r.roots ?? []).map((x) => x.uri).join(', ')}`) : inputRequired({ inputRequests: { client_roots: ROOTS() } });
  });
  tool('test_input_required_result_request_state', async (req, ctx) => {
    if (req.inputResponses?.confirm && req.requestState()?.flow === 'confirm') return text('state-ok: confirmed');
    const confirm = inputRequired.elicit({ message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } });
    return inputRequired({ inputRequests: { confirm }, requestState: await codec.mint({ flow: 'confirm' }, ctx) });
  });
  tool('test_input_required_result_multiple_inputs', async (req, ctx) => {
    const r = req.inputResponses ?? {};
    if (r.user_name && r.greeting && r.client_roots && req.requestState()?.flow === 'multi') return text(`All inputs received for ${r.user_name.content?.name}`);
    const inputRequests = { user_name: ask('What is your name?', 'name'), greeting: SAMPLE('Generate a greeting', 50), client_roots: ROOTS() };
    return inputRequired({ inputRequests, requestState: await codec.mint({ flow: 'multi' }, ctx) });
  });
  tool('test_input_required_result_multi_round', async (req, ctx) => {
    const state = req.requestState();
    const color = answered(req.inputResponses, 'step2');
    if (state?.round === 2 && color) return text(`${state.name} likes ${color.color}`);
    const name = answered(req.inputResponses, 'step1');
    if (state?.round === 1 && name) {
      return inputRequired({ inputRequests: { step2: ask('Step 2: What is your favorite color?', 'color') }, requestState: await codec.mint({ round: 2, name: name.name }, ctx) });
    }
    return inputRequired({ inputRequests: { step1: ask('Step 1: What is your name?', 'name') }, requestState: await codec.mint({ round: 1 }, ctx) });
  });
  tool('test_input_required_result_tampered_state', async (req, ctx) => {
    if (req.requestState()?.flow === 'sealed' && req.inputResponses?.confirm) return text('state verified');
    return inputRequired({ inputRequests: { confirm: ask('Please confirm', 'ok') }, requestState: await codec.mint({ flow: 'sealed' }, ctx) });
  });
  tool('test_input_required_result_capabilities', (req) => {
    const caps = req.envelope?.['io.modelcontextprotocol/clientCapabilities'] ?? {};
    if (req.inputResponses && Object.keys(req.inputResponses).length > 0) return text('inputs received');
    const inputRequests = {};
    if (caps.elicitation) inputRequests.user_name = ask('What is your name?', 'name');
    if (caps.sampling) inputRequests.greeting = SAMPLE('Generate a greeting', 50);
    if (caps.roots) inputRequests.client_roots = ROOTS();
    return Object.keys(inputRequests).length ? inputRequired({ inputRequests }) : text('no client capability to ask with');
  });
}

// The 2025-11-25 scenarios' server-to-client requests. The handlers return input_required; on a
// 2025-era request the SDK's shim sends the embedded request to the client itself and calls
// the handler again with the answer.
function askingTools(server) {
  const ELICIT_TEXT = (r) => `action=${r?.action}, content=${JSON.stringify(r?.content ?? {})}`;
  const asking = (name, inputSchema, request, done) =>
    server.registerTool(name, { description: `asks the client (${name})`, inputSchema }, async (args, ctx) => {
      const r = ctx.mcpReq.inputResponses?.answer;
      return r ? text(done(r)) : inputRequired({ inputRequests: { answer: request(args) } });
    });
  asking('test_sampling', z.object({ prompt: z.string() }), ({ prompt }) => SAMPLE(prompt, 100), (r) => `LLM response: ${r.content?.text ?? ''}`);
  const contact = { type: 'object', properties: { username: { type: 'string', description: "User's response" }, email: { type: 'string', description: "User's email address" } }, required: ['username', 'email'] };
  asking('test_elicitation', z.object({ message: z.string() }), ({ message }) => inputRequired.elicit({ message, requestedSchema: contact }), (r) => `User response: ${ELICIT_TEXT(r)}`);
  const defaults = {
    type: 'object',
    properties: {
      name: { type: 'string', default: 'John Doe' },
      age: { type: 'integer', default: 30 },
      score: { type: 'number', default: 95.5 },
      status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
      verified: { type: 'boolean', default: true },
    },
  };
  const done = (r) => `Elicitation completed: ${ELICIT_TEXT(r)}`;
  asking('test_elicitation_sep1034_defaults', z.object({}), () => inputRequired.elicit({ message: 'Defaults for every primitive type', requestedSchema: defaults }), done);
  const titled = (prefix, titles) => titles.map((title, i) => ({ const: `${prefix}${i + 1}`, title }));
  const enums = {
    type: 'object',
    properties: {
      untitledSingle: { type: 'string', enum: ['option1', 'option2', 'option3'] },
      titledSingle: { type: 'string', oneOf: titled('value', ['First Option', 'Second Option', 'Third Option']) },
      legacyEnum: { type: 'string', enum: ['opt1', 'opt2', 'opt3'], enumNames: ['Option One', 'Option Two', 'Option Three'] },
      untitledMulti: { type: 'array', items: { type: 'string', enum: ['option1', 'option2', 'option3'] } },
      titledMulti: { type: 'array', items: { anyOf: titled('value', ['First Choice', 'Second Choice', 'Third Choice']) } },
    },
  };
  asking('test_elicitation_sep1330_enums', z.object({}), () => inputRequired.elicit({ message: 'Every enum variant', requestedSchema: enums }), done);
}

function resources(server) {
  server.registerResource('static-text', 'test://static-text', { description: 'static text', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
  }));
  server.registerResource('static-binary', 'test://static-binary', { description: 'static binary', mimeType: 'image/png' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'image/png', blob: PNG }],
  }));
  server.registerResource('watched-resource', 'test://watched-resource', { description: 'subscribable', mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Watched resource content' }],
  }));
  const template = new ResourceTemplate('test://template/{id}/data', { list: undefined });
  server.registerResource('template', template, { description: 'a template', mimeType: 'application/json' }, async (uri, { id }) => ({
    contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
  }));
}

function prompts(server) {
  const user = (content) => ({ role: 'user', content });
  server.registerPrompt('test_simple_prompt', { description: 'simple' }, async () => ({
    messages: [user({ type: 'text', text: 'This is a simple prompt for testing.' })],
  }));
  const words = ['paris', 'park', 'party', 'test', 'testing'];
  const arg = (d) => completable(z.string().describe(d), (v) => words.filter((w) => w.startsWith(v ?? '')));
  server.registerPrompt('test_prompt_with_arguments', { description: 'two arguments', argsSchema: z.object({ arg1: arg('First'), arg2: arg('Second') }) }, async ({ arg1, arg2 }) => ({
    messages: [user({ type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })],
  }));
  server.registerPrompt('test_prompt_with_embedded_resource', { description: 'embeds a resource', argsSchema: z.object({ resourceUri: z.string() }) }, async ({ resourceUri }) => ({
    messages: [
      user({ type: 'resource', resource: { uri: resourceUri, mimeType: 'text/plain', text: 'Embedded resource content for testing.' } }),
      user({ type: 'text', text: 'Please process the embedded resource above.' }),
    ],
  }));
  server.registerPrompt('test_prompt_with_image', { description: 'an image' }, async () => ({
    messages: [user({ type: 'image', data: PNG, mimeType: 'image/png' }), user({ type: 'text', text: 'Please analyze the image above.' })],
  }));
  server.registerPrompt('test_input_required_result_prompt', { description: 'asks for context first' }, async (ctx) => {
    const content = answered(ctx.mcpReq.inputResponses, 'user_context');
    if (content) return { messages: [user({ type: 'text', text: `Context: ${content.context}` })] };
    return inputRequired({ inputRequests: { user_context: ask('What context should the prompt use?', 'context') } });
  });
}

function makeServer(bus, codec) {
  const hint = { ttlMs: 60_000, cacheScope: 'public' };
  const server = new McpServer(
    { name: 'gate-test-conformance-server', version: '1.0.0' },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        logging: {},
        completions: {},
      },
      cacheHints: Object.fromEntries(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read'].map((m) => [m, hint])),
      requestState: { verify: codec.verify },
    },
  );
  contentTools(server);
  diagnosticTools(server, bus);
  inputTools(server, codec);
  askingTools(server);
  resources(server);
  prompts(server);
  return server;
}

/** A resumable-stream store in memory: with one, the SDK's transport opens a POST's SSE stream
 *  with a priming event (an id, no data) and resumes a stream from Last-Event-ID. */
function memoryEventStore() {
  const events = [];
  return {
    async storeEvent(streamId, message) {
      events.push({ id: String(events.length + 1), streamId, message });
      return String(events.length);
    },
    async getStreamIdForEventId(eventId) {
      return events[Number(eventId) - 1]?.streamId;
    },
    async replayEventsAfter(lastEventId, { send }) {
      const from = events[Number(lastEventId) - 1];
      for (const e of events.slice(Number(lastEventId))) if (e.streamId === from?.streamId) await send(e.id, e.message);
      return from?.streamId;
    },
  };
}

// 2025-era traffic: one McpServer per session over the SDK's sessionful streamable HTTP
// transport, so server-to-client requests (sampling, elicitation) and resource subscriptions
// work as the 2025-11-25 scenarios expect.
// `closeAll()` closes every session's server: a request it put to a client that never answered
// (a scenario's sampling through gate) holds a 10-minute timer that would keep the test
// process alive.
function sessionfulLegacy(factory) {
  const sessions = new Map();
  const open = new Set();
  const gone = () => Response.json({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }, { status: 404 });
  const handle = async (request) => {
    const sid = request.headers.get('mcp-session-id');
    if (sid) return sessions.get(sid)?.handleRequest(request) ?? gone();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: memoryEventStore(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    const server = factory();
    open.add(server);
    await server.connect(transport);
    return transport.handleRequest(request);
  };
  handle.closeAll = () => Promise.all([...open].map((server) => server.close().catch(() => {})));
  return handle;
}

// Subscriptions of a 2025 session (the v2 McpServer does not answer resources/subscribe).
function subscriptions(server) {
  const subscribed = new Set();
  server.server.setRequestHandler('resources/subscribe', async (req) => (subscribed.add(req.params.uri), {}));
  server.server.setRequestHandler('resources/unsubscribe', async (req) => (subscribed.delete(req.params.uri), {}));
  return server;
}

function refuse(res) {
  res.writeHead(403, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Invalid Host header' } }));
}

/**
 * Starts the fixture. `legacy`: 'sessions' serves 2025-era requests with sessions (initialize,
 * Mcp-Session-Id), 'stateless' one stateless request each, 'reject' refuses them.
 * Returns { url, stop() }.
 */
export async function startConformanceServer({ legacy = 'sessions', flushGet = true } = {}) {
  const bus = new InMemoryServerEventBus();
  const codec = createRequestStateCodec({ key: randomBytes(32) });
  const factory = () => makeServer(bus, codec);
  const modern = createMcpHandler(factory, { legacy: legacy === 'sessions' ? 'reject' : legacy, bus });
  const old = legacy === 'sessions' ? sessionfulLegacy(() => subscriptions(factory())) : null;
  const fetch = async (request) => (old && (await isLegacyRequest(request)) ? old(request) : modern.fetch(request));
  const node = toNodeHandler({ fetch });
  const hosts = localhostAllowedHostnames();
  // DNS rebinding protection: a Host that is not a loopback name is refused.
  const httpServer = http.createServer((req, res) => {
    if (!validateHostHeader(req.headers.host, hosts).ok) return refuse(res);
    // The Node adapter sends a response's headers with its first body bytes; a 2025 session's
    // GET stream has none until a notification, so send them at once (as SDK v1 servers do;
    // `flushGet: false` leaves the adapter as it is).
    const writeHead = res.writeHead.bind(res);
    res.writeHead = (...args) => {
      writeHead(...args);
      if (flushGet && req.method === 'GET') res.flushHeaders();
      return res;
    };
    return node(req, res);
  });
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${httpServer.address().port}/mcp`,
    stop: async () => {
      await old?.closeAll();
      await new Promise((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(resolve);
      });
    },
  };
}
