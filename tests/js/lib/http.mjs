// Raw HTTP helpers for bad-input tests: `post` (fetch) and `rawRequest` (node:http, for a
// forged Host header, chunked uploads and bodies the server may refuse half-way).
import http from 'node:http';

export const MCP_ACCEPT = 'application/json, text/event-stream';
export const PROTOCOL_VERSION = '2025-06-18';

/**
 * Parses an MCP POST response body: plain JSON, or an SSE stream whose `data:` events are
 * JSON-RPC messages. Returns an array of messages (possibly empty), or null when the body
 * is neither.
 */
export function parseMcpBody(text, contentType = '') {
  if (!text) return [];
  if (contentType.includes('text/event-stream')) {
    const messages = [];
    for (const block of text.split(/\r?\n\r?\n/)) {
      const data = block
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, ''))
        .join('\n');
      if (!data) continue;
      try {
        messages.push(JSON.parse(data));
      } catch {
        // not JSON: ignore (e.g. a priming event)
      }
    }
    return messages;
  }
  try {
    const v = JSON.parse(text);
    return Array.isArray(v) ? v : [v];
  } catch {
    return null;
  }
}

function summarize(status, headers, text) {
  const contentType = headers['content-type'] ?? '';
  const messages = parseMcpBody(text, contentType);
  return {
    status,
    headers,
    text,
    messages,
    // the first JSON-RPC response (has result or error), if any
    json: messages?.find((m) => m && ('result' in m || 'error' in m)) ?? messages?.[0] ?? null,
  };
}

/**
 * POST `body` (string sent verbatim; anything else JSON-encoded) with MCP headers.
 * Resolves { status, headers (lower-case object), text, messages, json }.
 */
export async function post(url, body, headers = {}, { timeoutMs = 15_000 } = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
    body: typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  return summarize(res.status, Object.fromEntries(res.headers), text);
}

/** GET `url`; resolves { status, headers, text }. */
export async function get(url, headers = {}, { timeoutMs = 15_000 } = {}) {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
  return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
}

/**
 * One request over node:http, for what fetch cannot do: any Host header, chunked bodies,
 * and servers that answer (e.g. 413) before reading the whole body.
 *   body:    string/Buffer sent with Content-Length (unless headers say otherwise)
 *   chunks:  an (async) iterable of Buffers sent with Transfer-Encoding: chunked; sending
 *            stops as soon as a response arrives
 *   localAddress: the client address to connect from (any 127.x.y.z on Linux loopback), for
 *            what gate keys by the caller's address
 *   holdOpen: with `chunks`, do not end the request after the last chunk: wait for the
 *            server to answer a body it has already refused (e.g. 413 at the cap) without
 *            writing into a socket the server is closing (EPIPE would hide its answer)
 * Resolves { status, headers, text, messages, json, bytesSent } once a response is read. A
 * connection error after the status line arrived is ignored; one before it rejects.
 */
export function rawRequest(url, { method = 'POST', headers = {}, body, chunks, holdOpen = false, localAddress, timeoutMs = 15_000 } = {}) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    let responded = false;
    let bytesSent = 0;
    const hdrs = { ...headers };
    const hasHeader = (n) => Object.keys(hdrs).some((k) => k.toLowerCase() === n);
    if (method === 'POST' && !hasHeader('content-type')) hdrs['content-type'] = 'application/json';
    if (!hasHeader('accept')) hdrs.accept = MCP_ACCEPT;
    if (body !== undefined && !chunks && !hasHeader('content-length') && !hasHeader('transfer-encoding')) {
      hdrs['content-length'] = Buffer.byteLength(body);
    }
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: hdrs,
        setHost: !hasHeader('host'),
        agent: false,
        localAddress,
      },
      (res) => {
        responded = true;
        const parts = [];
        res.on('data', (d) => parts.push(d));
        const finish = () => {
          clearTimeout(timer);
          if (holdOpen) req.destroy();
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ ...summarize(res.statusCode, res.headers, text), bytesSent });
        };
        res.on('end', finish);
        res.on('error', finish); // a reset after the head: keep what arrived
        res.on('aborted', finish);
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`rawRequest ${method} ${url}: no response within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => {
      if (responded) return;
      clearTimeout(timer);
      err.message = `rawRequest ${method} ${url} (sent ${bytesSent} bytes, no response): ${err.message}`;
      err.bytesSent = bytesSent;
      reject(err);
    });
    req.on('response', () => {
      responded = true;
    });

    if (chunks) {
      (async () => {
        try {
          for await (const c of chunks) {
            if (responded || req.destroyed) break;
            const ok = req.write(c);
            bytesSent += c.length;
            if (!ok) {
              await new Promise((r) => {
                const done = () => {
                  req.off('drain', done);
                  req.off('response', done);
                  req.off('close', done);
                  r();
                };
                req.once('drain', done);
                req.once('response', done);
                req.once('close', done);
              });
            }
          }
          if (!req.destroyed && !holdOpen) req.end();
        } catch (err) {
          req.destroy(err);
        }
      })();
    } else {
      if (body !== undefined) {
        bytesSent = Buffer.byteLength(body);
        req.end(body);
      } else {
        req.end();
      }
    }
  });
}

/** Yields `count` chunks of `size` bytes (filled with spaces: JSON whitespace). */
export function* fillerChunks(size, count) {
  const buf = Buffer.alloc(size, 0x20);
  for (let i = 0; i < count; i++) yield buf;
}

// ---- JSON-RPC bodies --------------------------------------------------------------------

let nextId = 1;
export const rpc = (method, params, id = nextId++) =>
  params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
export const notification = (method, params) =>
  params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params };

export const initializeRequest = (id = nextId++) =>
  rpc(
    'initialize',
    {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'gate-js-tests-raw', version: '0.0.0' },
    },
    id,
  );

/**
 * Opens an MCP session with raw requests (initialize + notifications/initialized).
 * Returns { sessionId, protocolVersion, headers } where `headers` are the ones every
 * later request of the session carries.
 */
/**
 * A 2026-07-28 request as a client of that revision writes it: the `_meta` envelope
 * (`meta` adds to it, `capabilities` are its clientCapabilities) and its header mirrors
 * (Mcp-Name for a call, prompt, read or task method). Returns { body, headers }.
 */
export function modernRequest(method, params = {}, { id = 1, headers = {}, meta = {}, capabilities = {} } = {}) {
  const body = {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': capabilities,
        'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
        ...meta,
      },
    },
  };
  const name = params.name ?? params.uri;
  return {
    body,
    headers: {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name !== undefined && ['tools/call', 'prompts/get', 'resources/read'].includes(method) ? { 'mcp-name': name } : {}),
      ...(params.taskId !== undefined && method.startsWith('tasks/') ? { 'mcp-name': params.taskId } : {}),
      ...headers,
    },
  };
}

/**
 * A POST whose answer is an event stream (a `subscriptions/listen`), read frame by frame:
 * { next(): the next message as { text, json }, close() }. Refuses an answer that is not a
 * 200 event stream.
 */
export async function openEventStream(url, body, headers = {}) {
  const controller = new AbortController();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: MCP_ACCEPT, ...headers },
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const type = res.headers.get('content-type') ?? '';
  if (res.status !== 200 || !/text\/event-stream/.test(type)) {
    controller.abort();
    throw new Error(`not a 200 event stream: HTTP ${res.status} ${type}`);
  }
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  const next = async () => {
    for (;;) {
      const end = buffered.indexOf('\n\n');
      if (end >= 0) {
        const frame = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        const data = frame.split('\n').filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
        if (data) return { text: data, json: JSON.parse(data) };
        continue; // a comment (keep-alive)
      }
      const { value, done } = await reader.read();
      if (done) throw new Error('the stream ended');
      buffered += decoder.decode(value, { stream: true });
    }
  };
  return { next, close: () => controller.abort() };
}

export async function openRawSession(url, extraHeaders = {}) {
  const init = await post(url, initializeRequest(), extraHeaders);
  if (init.status !== 200 || !init.json?.result) {
    throw new Error(`initialize at ${url} failed: HTTP ${init.status} ${init.text.slice(0, 500)}`);
  }
  const sessionId = init.headers['mcp-session-id'];
  const protocolVersion = init.json.result.protocolVersion;
  const headers = { ...extraHeaders, 'mcp-protocol-version': protocolVersion };
  if (sessionId) headers['mcp-session-id'] = sessionId;
  const note = await post(url, notification('notifications/initialized'), headers);
  if (note.status !== 202 && note.status !== 200) {
    throw new Error(`notifications/initialized at ${url}: HTTP ${note.status} ${note.text.slice(0, 500)}`);
  }
  return { sessionId, protocolVersion, headers, initializeResult: init.json.result };
}

/** DELETEs a raw session (best effort). */
export async function closeRawSession(url, session) {
  if (!session?.sessionId) return;
  try {
    await fetch(url, { method: 'DELETE', headers: session.headers, signal: AbortSignal.timeout(5000) });
  } catch {
    // best effort
  }
}
