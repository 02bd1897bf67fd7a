// An OTLP/HTTP trace receiver on 127.0.0.1 and a kernel-chosen port, for testing gate's
// trace exporter. It decodes every export with the official OTLP definitions, never with
// gate's own code: the protobufjs static module that the OpenTelemetry JS maintainers
// generate from the opentelemetry-proto repository (.proto files of v1.7.0 or later) and
// ship in @opentelemetry/otlp-transformer, build/src/generated/root.js (pinned 0.216.0 in
// package.json: the last release that still ships it with the trace messages; from 0.217.0
// on the package only has hand-written serializers and no request decoder).
//
// What it accepts, as an OTLP/HTTP receiver does (https://opentelemetry.io/docs/specs/otlp/):
//   POST /v1/traces with
//     Content-Type: application/x-protobuf   binary ExportTraceServiceRequest
//     Content-Type: application/json         OTLP/JSON encoding (below)
//   and Content-Encoding: gzip (or none / identity). Anything else is answered 4xx and
//   recorded with `ok: false` and an `error`. Requests to any other path are recorded with
//   `wrongPath: true` and answered 404; other methods on /v1/traces are answered 405.
//   A good export is answered `setStatus` (200 by default) with an empty
//   ExportTraceServiceResponse in the request's encoding (`{}` for JSON); an undecodable one
//   is answered 400 with a google.rpc.Status body, whatever `setStatus` says.
//
// OTLP/JSON as this receiver reads it (the OTLP spec's rules on top of the proto3 JSON
// mapping). Anything else is a malformed document: 400, `ok: false`, `error` says why.
//   - keys are the lowerCamelCase field names (`startTimeUnixNano`, `scopeSpans`, ...). An
//     unknown key (e.g. a snake_case `start_time_unix_nano`) is ignored, as the spec says a
//     receiver MUST, but listed in the record's `unknownFields` so a test can assert none.
//   - traceId / spanId / parentSpanId (of spans and of links) are hex strings (either case),
//     NOT base64: traceId 32 hex digits, spanId 16, parentSpanId 16 or "" (or absent) for a
//     root span. All-zero ids and ids of another length are rejected (in protobuf too).
//   - enums (span `kind`, status `code`) are integers; enum names as strings are rejected,
//     and so are integers that are not a value of the enum.
//   - 64-bit integers (startTimeUnixNano, endTimeUnixNano, event timeUnixNano, intValue) may
//     be JSON numbers or decimal strings ("1700000000000000000"); numbers are read exactly
//     (from their source text), so a 19-digit number loses no precision. Anything else
//     (a fraction, "12abc", a hex string, out of range) is rejected. The same holds for the
//     32-bit counters and flags (droppedAttributesCount, droppedEventsCount, flags, ...).
//   - doubleValue is a number, or "NaN" / "Infinity" / "-Infinity" / a numeric string.
//   - bytesValue is base64 (the proto3 JSON mapping; only the ids above are hex).
//   - every other field must have its proto type (string, boolean, integer, object, array);
//     the official `verify` of each message decides, with no coercion.
//
// startOtlpReceiver({ status = 200 }) resolves to
//   url                   base URL, http://127.0.0.1:<port> (append /v1/traces yourself)
//   port
//   requests              one record per request, in arrival order:
//                           { method, path, headers, contentType, format ('protobuf' |
//                             'json' | null), encoding (Content-Encoding, 'identity' when
//                             none), bytes (body length as received), wrongPath, status
//                             (the HTTP status answered), ok (decoded and valid), error
//                             (string or null), unknownFields (JSON paths), message (the
//                             official ExportTraceServiceRequest instance, or null),
//                             spans (this request's normalized spans), resources (its
//                             resource attributes, one {key: value} per ResourceSpans) }
//   spans()               the normalized spans of every request that decoded and was answered
//                         2xx, in arrival order (one entry per span: a retried export that was
//                         answered 503 first and then 200 counts once)
//   resources()           the resource attributes ({key: value}) of each ResourceSpans of
//                         those requests, in arrival order
//   waitForSpans(n | predicate, { timeoutMs = 10000 })
//                         resolves to spans() once it has n spans (or predicate(spans()) is
//                         truthy); rejects on timeout with what was received so far
//   setStatus(code, headers = {})  the status (and extra headers, e.g. Retry-After) for good
//                         exports from now on; 429/502/503/504 let a test exercise retries
//   stop()
//
// A normalized span:
//   { traceId (32 lowercase hex), spanId (16 lowercase hex), parentSpanId (16 hex, or '' for
//     a root span), traceState, flags (number), name,
//     kind: the enum name as a string: 'SPAN_KIND_UNSPECIFIED' | 'SPAN_KIND_INTERNAL' |
//           'SPAN_KIND_SERVER' | 'SPAN_KIND_CLIENT' | 'SPAN_KIND_PRODUCER' | 'SPAN_KIND_CONSUMER'
//     startTimeUnixNano, endTimeUnixNano: BigInt (nanoseconds since the epoch; 0n when unset)
//     attributes: { key: plain value }
//     status: { code: 'STATUS_CODE_UNSET' | 'STATUS_CODE_OK' | 'STATUS_CODE_ERROR', message }
//     events: [{ name, timeUnixNano (BigInt), attributes }]
//     links: [{ traceId, spanId, traceState, flags, attributes }]
//     resource: { key: plain value }   the span's ResourceSpans.resource attributes
//     scope: { name, version, attributes } }
// A plain value unwraps an AnyValue: stringValue -> string, boolValue -> boolean,
// intValue -> Number (BigInt when outside Number's safe range), doubleValue -> number,
// arrayValue -> array of plain values, kvlistValue -> { key: plain value },
// bytesValue -> Buffer, no value set -> null.
import { createRequire } from 'node:module';
import http from 'node:http';
import zlib from 'node:zlib';

const require = createRequire(import.meta.url);
const ROOT_PATH = require.resolve('@opentelemetry/otlp-transformer/build/src/generated/root.js');
const root = require(ROOT_PATH);
// The protobuf runtime the generated code itself runs on (a dependency of the package).
const $protobuf = createRequire(ROOT_PATH)('protobufjs/minimal');
const Long = $protobuf.util.Long;
if (!Long) throw new Error('protobufjs has no Long support: 64-bit fields would lose precision');

const P = root.opentelemetry.proto;
const { ExportTraceServiceRequest, ExportTraceServiceResponse } = P.collector.trace.v1;
const { ResourceSpans, ScopeSpans, Span, Status } = P.trace.v1;
const { AnyValue, ArrayValue, KeyValueList, KeyValue, InstrumentationScope } = P.common.v1;
const { Resource } = P.resource.v1;

const KIND_NAMES = Object.fromEntries(Object.entries(Span.SpanKind).map(([k, v]) => [v, k]));
const STATUS_NAMES = Object.fromEntries(Object.entries(Status.StatusCode).map(([k, v]) => [v, k]));

// --- OTLP/JSON -> the shape the official fromObject/verify take -------------------------
// Per message, the fields whose JSON form differs from what protobufjs's fromObject and
// verify expect (OTLP's hex ids, proto3 JSON's 64-bit strings and special doubles) and the
// nested messages to walk into. Every other field goes to `verify` as it is.
const HEX_ID = (bytes, { optional = false } = {}) => ({ kind: 'hex', bytes, optional });
const MSG = (type) => ({ kind: 'msg', type });
const LIST = (type) => ({ kind: 'list', type });
const INT64 = { kind: 'int64', unsigned: false };
const FIXED64 = { kind: 'int64', unsigned: true };
const UINT32 = { kind: 'uint32' };
const DOUBLE = { kind: 'double' };
const JSON_FIELDS = new Map([
  [ExportTraceServiceRequest, { resourceSpans: LIST(ResourceSpans) }],
  [ResourceSpans, { resource: MSG(Resource), scopeSpans: LIST(ScopeSpans) }],
  [Resource, { attributes: LIST(KeyValue), droppedAttributesCount: UINT32 }],
  [ScopeSpans, { scope: MSG(InstrumentationScope), spans: LIST(Span) }],
  [InstrumentationScope, { attributes: LIST(KeyValue), droppedAttributesCount: UINT32 }],
  [
    Span,
    {
      traceId: HEX_ID(16),
      spanId: HEX_ID(8),
      parentSpanId: HEX_ID(8, { optional: true }),
      flags: UINT32,
      startTimeUnixNano: FIXED64,
      endTimeUnixNano: FIXED64,
      attributes: LIST(KeyValue),
      droppedAttributesCount: UINT32,
      events: LIST(Span.Event),
      droppedEventsCount: UINT32,
      links: LIST(Span.Link),
      droppedLinksCount: UINT32,
      status: MSG(Status),
    },
  ],
  [Span.Event, { timeUnixNano: FIXED64, attributes: LIST(KeyValue), droppedAttributesCount: UINT32 }],
  [
    Span.Link,
    { traceId: HEX_ID(16), spanId: HEX_ID(8), flags: UINT32, attributes: LIST(KeyValue), droppedAttributesCount: UINT32 },
  ],
  [Status, {}],
  [KeyValue, { value: MSG(AnyValue) }],
  [AnyValue, { intValue: INT64, doubleValue: DOUBLE, arrayValue: MSG(ArrayValue), kvlistValue: MSG(KeyValueList) }],
  [ArrayValue, { values: LIST(AnyValue) }],
  [KeyValueList, { values: LIST(KeyValue) }],
]);

/** The JSON field names a message type has (its generated prototype's data properties). */
const knownFields = new Map();
function fieldsOf(type) {
  let f = knownFields.get(type);
  if (!f) {
    f = new Set(Object.keys(type.prototype).filter((k) => typeof type.prototype[k] !== 'function'));
    knownFields.set(type, f);
  }
  return f;
}

class Malformed extends Error {}

/** JSON.parse that keeps integers beyond Number's safe range exact (as BigInt). */
function parseJson(text) {
  return JSON.parse(text, (_key, value, context) => {
    if (typeof value === 'number' && !Number.isSafeInteger(value) && Number.isInteger(value)) {
      const src = context?.source;
      if (typeof src === 'string' && /^-?\d+$/.test(src)) return BigInt(src);
    }
    return value;
  });
}

const U64_MAX = (1n << 64n) - 1n;
const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

function toLong(value, { unsigned }, path) {
  let big;
  if (typeof value === 'bigint') big = value;
  else if (typeof value === 'number' && Number.isInteger(value)) big = BigInt(value);
  else if (typeof value === 'string' && (unsigned ? /^\d+$/ : /^-?\d+$/).test(value)) big = BigInt(value);
  else {
    throw new Malformed(
      `${path}: a 64-bit integer (JSON number or decimal string) expected, got ${JSON.stringify(String(value))} (${typeof value})`,
    );
  }
  if (unsigned ? big < 0n || big > U64_MAX : big < I64_MIN || big > I64_MAX) {
    throw new Malformed(`${path}: ${big} is out of range for ${unsigned ? 'fixed64' : 'int64'}`);
  }
  return Long.fromString(big.toString(), unsigned);
}

function toUint32(value, path) {
  let n;
  if (typeof value === 'number') n = value;
  else if (typeof value === 'string' && /^\d+$/.test(value)) n = Number(value);
  else throw new Malformed(`${path}: a 32-bit unsigned integer expected, got ${JSON.stringify(String(value))} (${typeof value})`);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new Malformed(`${path}: ${value} is not a uint32`);
  return n;
}

function toDouble(value, path) {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value === 'NaN') return NaN;
  if (value === 'Infinity') return Infinity;
  if (value === '-Infinity') return -Infinity;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  throw new Malformed(`${path}: a number expected, got ${JSON.stringify(String(value))} (${typeof value})`);
}

function hexToBytes(value, { bytes, optional }, path) {
  if (typeof value !== 'string') throw new Malformed(`${path}: a hex string expected, got ${typeof value}`);
  if (optional && value === '') return Buffer.alloc(0);
  if (value.length !== bytes * 2 || !/^[0-9a-fA-F]*$/.test(value)) {
    throw new Malformed(
      `${path}: ${bytes * 2} hex digits expected (OTLP/JSON ids are hex, not base64), got ${JSON.stringify(value)}`,
    );
  }
  return Buffer.from(value, 'hex');
}

/**
 * A copy of the parsed JSON `obj` (of message `type`) in the form fromObject/verify take:
 * ids as bytes, 64-bit integers as Long, special doubles as numbers, unknown keys dropped
 * (and listed in `unknown`). Type errors that are not about those are left to `verify`.
 */
function prepare(type, obj, path, unknown) {
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return obj; // verify: "object expected"
  const specs = JSON_FIELDS.get(type) ?? {};
  const known = fieldsOf(type);
  const out = {};
  for (const [key, value] of Object.entries(obj)) {
    const at = path ? `${path}.${key}` : key;
    if (!known.has(key)) {
      unknown.push(at);
      continue;
    }
    const spec = specs[key];
    if (!spec || value === null) {
      out[key] = value;
      continue;
    }
    switch (spec.kind) {
      case 'hex':
        out[key] = hexToBytes(value, spec, at);
        break;
      case 'int64':
        out[key] = toLong(value, spec, at);
        break;
      case 'uint32':
        out[key] = toUint32(value, at);
        break;
      case 'double':
        out[key] = toDouble(value, at);
        break;
      case 'msg':
        out[key] = prepare(spec.type, value, at, unknown);
        break;
      case 'list':
        out[key] = Array.isArray(value) ? value.map((v, i) => prepare(spec.type, v, `${at}[${i}]`, unknown)) : value;
        break;
      default:
        throw new Error(`unhandled field spec ${spec.kind}`);
    }
  }
  return out;
}

/** Decodes an OTLP/JSON document into the official message, or throws Malformed. */
function decodeJson(body) {
  let doc;
  try {
    doc = parseJson(body.toString('utf8'));
  } catch (err) {
    throw new Malformed(`not JSON: ${err.message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new Malformed('an ExportTraceServiceRequest object expected at the top level');
  }
  const unknownFields = [];
  const prepared = prepare(ExportTraceServiceRequest, doc, '', unknownFields);
  const problem = ExportTraceServiceRequest.verify(prepared);
  if (problem) throw new Malformed(`ExportTraceServiceRequest.verify: ${problem}`);
  let message;
  try {
    message = ExportTraceServiceRequest.fromObject(prepared);
  } catch (err) {
    throw new Malformed(`ExportTraceServiceRequest.fromObject: ${err.message}`);
  }
  return { message, unknownFields };
}

/** Decodes a binary ExportTraceServiceRequest, or throws Malformed. */
function decodeProtobuf(body) {
  let message;
  try {
    message = ExportTraceServiceRequest.decode(new Uint8Array(body.buffer, body.byteOffset, body.byteLength));
  } catch (err) {
    throw new Malformed(`ExportTraceServiceRequest.decode: ${err.message}`);
  }
  const problem = ExportTraceServiceRequest.verify(message);
  if (problem) throw new Malformed(`ExportTraceServiceRequest.verify: ${problem}`);
  return { message, unknownFields: [] };
}

/** The id rules of trace.proto: exact lengths, not all zero (parentSpanId may be empty). */
function checkIds(message) {
  const check = (bytes, len, path, { optional = false } = {}) => {
    const n = bytes?.length ?? 0;
    if (optional && n === 0) return;
    if (n !== len) throw new Malformed(`${path}: ${len} bytes expected, got ${n}`);
    if (bytes.every((b) => b === 0)) throw new Malformed(`${path}: an all-zero id is invalid`);
  };
  message.resourceSpans.forEach((rs, r) =>
    rs.scopeSpans.forEach((ss, s) =>
      ss.spans.forEach((span, i) => {
        const at = `resourceSpans[${r}].scopeSpans[${s}].spans[${i}]`;
        check(span.traceId, 16, `${at}.traceId`);
        check(span.spanId, 8, `${at}.spanId`);
        check(span.parentSpanId, 8, `${at}.parentSpanId`, { optional: true });
        span.links.forEach((link, l) => {
          check(link.traceId, 16, `${at}.links[${l}].traceId`);
          check(link.spanId, 8, `${at}.links[${l}].spanId`);
        });
      }),
    ),
  );
}

// --- official message -> plain normalized values ---------------------------------------
const hex = (bytes) => Buffer.from(bytes ?? []).toString('hex');

function toBigInt(v, { unsigned }) {
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'number') return BigInt(v);
  const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return unsigned ? BigInt.asUintN(64, bits) : BigInt.asIntN(64, bits);
}

function plainValue(av) {
  if (!av) return null;
  switch (av.value) {
    case 'stringValue':
      return av.stringValue;
    case 'boolValue':
      return av.boolValue;
    case 'intValue': {
      const big = toBigInt(av.intValue, { unsigned: false });
      return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
    }
    case 'doubleValue':
      return av.doubleValue;
    case 'arrayValue':
      return (av.arrayValue.values ?? []).map(plainValue);
    case 'kvlistValue':
      return plainAttributes(av.kvlistValue.values);
    case 'bytesValue':
      return Buffer.from(av.bytesValue);
    default:
      return null;
  }
}

function plainAttributes(kvs) {
  const out = {};
  for (const kv of kvs ?? []) out[kv.key] = plainValue(kv.value);
  return out;
}

function normalize(message) {
  const spans = [];
  const resources = [];
  for (const rs of message.resourceSpans) {
    const resource = plainAttributes(rs.resource?.attributes);
    resources.push(resource);
    for (const ss of rs.scopeSpans) {
      const scope = {
        name: ss.scope?.name ?? '',
        version: ss.scope?.version ?? '',
        attributes: plainAttributes(ss.scope?.attributes),
      };
      for (const s of ss.spans) {
        spans.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          traceState: s.traceState ?? '',
          flags: s.flags ?? 0,
          name: s.name ?? '',
          kind: KIND_NAMES[s.kind ?? 0] ?? s.kind,
          startTimeUnixNano: toBigInt(s.startTimeUnixNano, { unsigned: true }),
          endTimeUnixNano: toBigInt(s.endTimeUnixNano, { unsigned: true }),
          attributes: plainAttributes(s.attributes),
          status: {
            code: STATUS_NAMES[s.status?.code ?? 0] ?? s.status?.code,
            message: s.status?.message ?? '',
          },
          events: s.events.map((e) => ({
            name: e.name ?? '',
            timeUnixNano: toBigInt(e.timeUnixNano, { unsigned: true }),
            attributes: plainAttributes(e.attributes),
          })),
          links: s.links.map((l) => ({
            traceId: hex(l.traceId),
            spanId: hex(l.spanId),
            traceState: l.traceState ?? '',
            flags: l.flags ?? 0,
            attributes: plainAttributes(l.attributes),
          })),
          resource,
          scope,
        });
      }
    }
  }
  return { spans, resources };
}

// --- the HTTP side ---------------------------------------------------------------------
const FORMATS = { 'application/x-protobuf': 'protobuf', 'application/json': 'json' };

/** A google.rpc.Status body (code, message) in the request's encoding. */
function statusBody(format, code, message) {
  if (format === 'protobuf') {
    const w = $protobuf.Writer.create();
    w.uint32((1 << 3) | 0).int32(code);
    w.uint32((2 << 3) | 2).string(message);
    return { type: 'application/x-protobuf', body: Buffer.from(w.finish()) };
  }
  if (format === 'json') return { type: 'application/json', body: JSON.stringify({ code, message }) };
  return { type: 'text/plain', body: message };
}

const rpcCodeFor = (httpStatus) => (httpStatus === 429 || httpStatus >= 500 ? 14 /* UNAVAILABLE */ : 3 /* INVALID_ARGUMENT */);

export async function startOtlpReceiver({ status = 200 } = {}) {
  const requests = [];
  const state = { status, headers: {} };
  const waiters = new Set();
  const accepted = () => requests.filter((r) => r.ok && r.status >= 200 && r.status < 300);
  const allSpans = () => accepted().flatMap((r) => r.spans);
  const notify = () => {
    for (const w of waiters) w();
  };

  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const raw = Buffer.concat(chunks);
    const path = (req.url ?? '').split('?')[0];
    const contentType = req.headers['content-type'] ?? '';
    const mediaType = contentType.split(';')[0].trim().toLowerCase();
    const format = FORMATS[mediaType] ?? null;
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() || 'identity';
    const rec = {
      method: req.method,
      path,
      headers: req.headers,
      contentType,
      format,
      encoding,
      bytes: raw.length,
      wrongPath: path !== '/v1/traces',
      status: 0,
      ok: false,
      error: null,
      unknownFields: [],
      message: null,
      spans: [],
      resources: [],
    };
    requests.push(rec);
    const answer = (code, { type, body }, headers = {}) => {
      rec.status = code;
      notify();
      res.writeHead(code, { 'content-type': type, ...headers }).end(body);
    };
    const fail = (code, error) => {
      rec.error = error;
      answer(code, statusBody(format, rpcCodeFor(code), error));
    };

    if (rec.wrongPath) return fail(404, `no such path ${path} (OTLP/HTTP traces go to /v1/traces)`);
    if (req.method !== 'POST') return fail(405, `method ${req.method} (OTLP/HTTP exports are POSTs)`);
    if (!format) return fail(415, `unsupported Content-Type ${JSON.stringify(contentType)}`);

    let body = raw;
    if (encoding === 'gzip') {
      try {
        body = zlib.gunzipSync(raw);
      } catch (err) {
        return fail(400, `Content-Encoding gzip, but the body does not gunzip: ${err.message}`);
      }
    } else if (encoding !== 'identity') {
      return fail(400, `unsupported Content-Encoding ${JSON.stringify(encoding)}`);
    }

    try {
      const { message, unknownFields } = format === 'json' ? decodeJson(body) : decodeProtobuf(body);
      checkIds(message);
      rec.message = message;
      rec.unknownFields = unknownFields;
      ({ spans: rec.spans, resources: rec.resources } = normalize(message));
      rec.ok = true;
    } catch (err) {
      if (err instanceof Malformed) return fail(400, err.message);
      return fail(500, `receiver failure (a bug here, not in the export): ${err.stack ?? err}`);
    }

    const code = state.status;
    if (code >= 200 && code < 300) {
      const body =
        format === 'protobuf'
          ? Buffer.from(ExportTraceServiceResponse.encode(ExportTraceServiceResponse.create({})).finish())
          : '{}';
      return answer(code, { type: mediaType, body }, state.headers);
    }
    rec.error = `answered ${code} as told (setStatus)`;
    return answer(code, statusBody(format, rpcCodeFor(code), rec.error), state.headers);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const port = server.address().port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    /** Normalized spans of every decoded export answered 2xx, in arrival order. */
    spans: allSpans,
    /** Resource attributes of each ResourceSpans of those exports, in arrival order. */
    resources: () => accepted().flatMap((r) => r.resources),
    waitForSpans(want, { timeoutMs = 10_000 } = {}) {
      const done = typeof want === 'function' ? want : (spans) => spans.length >= want;
      return new Promise((resolve, reject) => {
        const check = () => {
          const spans = allSpans();
          if (!done(spans)) return false;
          cleanup();
          resolve(spans);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          const summary = requests.map((r) => `${r.method} ${r.path} ${r.status} ${r.ok ? `${r.spans.length} span(s)` : r.error}`);
          reject(
            new Error(
              `OTLP receiver: no ${typeof want === 'function' ? 'matching spans' : `${want} span(s)`} within ${timeoutMs} ms; ` +
                `have ${allSpans().length} span(s) from ${requests.length} request(s):\n  ${summary.join('\n  ')}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        if (!check()) waiters.add(check);
      });
    },
    setStatus: (code, headers = {}) => {
      state.status = code;
      state.headers = headers;
    },
    stop: () =>
      new Promise((r) => {
        server.closeAllConnections?.();
        server.close(() => r());
      }),
  };
}
