// MCP clients of the tests: the official SDK client over streamable HTTP.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

/** Capabilities that make server-everything register all of its conditional tools. */
export const FULL_CLIENT_CAPABILITIES = {
  roots: { listChanged: true },
  sampling: {},
  elicitation: { form: {}, url: {} },
  tasks: { requests: { sampling: { createMessage: {} }, elicitation: { create: {} } } },
};

/**
 * Connects an SDK Client to `url` (initialize + initialized). `capabilities` defaults to
 * none. Close it with `client.close()`.
 */
export async function connectClient(url, { capabilities = {}, name = 'gate-js-tests', requestInit, onSampling } = {}) {
  const client = new Client({ name, version: '0.0.0' }, { capabilities });
  if (capabilities.sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async () => (onSampling?.(), {
      role: 'assistant',
      content: { type: 'text', text: 'stub' },
      model: 'stub',
    }));
  }
  if (capabilities.elicitation) {
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'decline' }));
  }
  if (capabilities.roots) {
    client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: [] }));
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), requestInit ? { requestInit } : undefined);
  await client.connect(transport);
  return client;
}

const LISTS = {
  tools: { method: 'listTools', key: 'tools' },
  prompts: { method: 'listPrompts', key: 'prompts' },
  resources: { method: 'listResources', key: 'resources' },
  resourceTemplates: { method: 'listResourceTemplates', key: 'resourceTemplates' },
};
export const LIST_KINDS = Object.keys(LISTS);

/**
 * Every item of a list, following nextCursor across all pages.
 * Returns { items, pages, cursors }. Fails on a repeated cursor or over `maxPages`.
 */
export async function listAll(client, kind, { maxPages = 1000 } = {}) {
  const { method, key } = LISTS[kind];
  const items = [];
  const cursors = [];
  let cursor;
  let pages = 0;
  for (;;) {
    const res = await client[method](cursor === undefined ? {} : { cursor });
    pages++;
    items.push(...res[key]);
    if (res.nextCursor === undefined || res.nextCursor === null) break;
    if (cursors.includes(res.nextCursor)) throw new Error(`${kind}: cursor repeated: ${res.nextCursor}`);
    if (pages >= maxPages) throw new Error(`${kind}: more than ${maxPages} pages`);
    cursor = res.nextCursor;
    cursors.push(cursor);
  }
  return { items, pages, cursors };
}

/** The identity of a list item: name for tools/prompts, uri / uriTemplate for resources. */
export const itemKey = (kind, item) =>
  kind === 'resources' ? item.uri : kind === 'resourceTemplates' ? item.uriTemplate : item.name;

/** Every list of a server, fetched through a fresh client with `capabilities`. */
export async function fetchAllLists(url, capabilities = {}) {
  const client = await connectClient(url, { capabilities });
  try {
    const out = {};
    for (const kind of LIST_KINDS) out[kind] = (await listAll(client, kind)).items;
    return out;
  } finally {
    await client.close();
  }
}

/** Runs `fn`, expecting it to throw an MCP (JSON-RPC) error; returns the error. */
export async function expectMcpError(fn) {
  try {
    const v = await fn();
    throw Object.assign(new Error(`expected a JSON-RPC error, got a result: ${JSON.stringify(v).slice(0, 500)}`), {
      notAnMcpError: true,
    });
  } catch (err) {
    if (err.notAnMcpError) throw err;
    if (typeof err.code !== 'number') throw err;
    return err;
  }
}
