// The configuration schema: `gate --schema` is byte-identical to the shipped file, the
// schema compiles as JSON Schema 2020-12, accepts every example and rejects every
// structurally broken fixture, and `gate --validate` rejects those fixtures naming a
// JSON pointer.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';

import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

import { JS_DIR, REPO_ROOT, runGate } from './lib/index.mjs';

const SCHEMA_PATH = path.join(REPO_ROOT, 'config', 'gate.config.schema.json');
const EXAMPLES_DIR = path.join(REPO_ROOT, 'config', 'examples');
const BAD_DIR = path.join(JS_DIR, 'fixtures', 'bad-configs');

// Where each broken fixture is broken: gate's error must name this JSON pointer (or one
// below it).
const EXPECTED_POINTER = {
  '01-upstreams-not-array.json': '/upstreams',
  '02-unknown-top-level-key.json': '/upstreamz',
  '03-protocol-bad-enum.json': '/upstreams/0/protocol',
  '04-upstream-missing-id.json': '/upstreams/0',
  '05-url-not-string.json': '/upstreams/0/url',
  '06-upstream-unknown-key-command.json': '/upstreams/0/command',
  '07-page-size-string.json': '/routing/pageSize',
  '08-connect-timeout-string.json': '/upstreams/0/timeouts/connectMs',
  '09-audit-sink-bad-type.json': '/audit/sinks/0',
  '10-auth-mode-bad-enum.json': '/auth/mode',
  '11-upstream-auth-strategy-bad-enum.json': '/upstreams/0/auth',
  '12-label-value-not-string.json': '/upstreams/0/labels/team',
  '13-max-body-bytes-string.json': '/server/maxBodyBytes',
  '14-upstream-not-object.json': '/upstreams/0',
  '15-allowed-hosts-not-array.json': '/server/allowedHosts',
};

const jsonFiles = (dir) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
    : [];

const badFiles = jsonFiles(BAD_DIR);
const exampleFiles = jsonFiles(EXAMPLES_DIR);

/** JSON pointers mentioned in a text (RFC 6901 tokens; URLs such as http://h:1/mcp excluded). */
function pointersIn(text) {
  return [...text.matchAll(/(?<![\w.:/~-])\/(?:[A-Za-z0-9_~.-]+(?:\/[A-Za-z0-9_~.-]+)*)?/g)].map((m) => m[0]);
}
const names = (ptrs, expected) => ptrs.some((p) => p === expected || p.startsWith(`${expected}/`));

function compileSchema() {
  const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8'));
  const ajv = new Ajv2020({ allErrors: true });
  addFormats(ajv);
  assert.equal(ajv.validateSchema(schema), true, `schema is not valid JSON Schema 2020-12: ${ajv.errorsText(ajv.errors)}`);
  return ajv.compile(schema);
}

describe('configuration schema', { timeout: 120_000 }, () => {
  test('the fixtures are consistent', () => {
    assert.ok(badFiles.length >= 10, `expected >= 10 bad configs in ${BAD_DIR}`);
    assert.deepEqual(badFiles, Object.keys(EXPECTED_POINTER).sort(), 'every bad config has an expected pointer');
    for (const f of badFiles) JSON.parse(readFileSync(path.join(BAD_DIR, f), 'utf8')); // all are valid JSON
  });

  test('gate --schema prints config/gate.config.schema.json byte for byte', { timeout: 30_000 }, async () => {
    const shipped = readFileSync(SCHEMA_PATH);
    const r = await runGate(['--schema']);
    assert.equal(r.code, 0, `gate --schema exited ${r.code}; stderr:\n${r.stderr}`);
    assert.ok(Buffer.compare(r.stdout, shipped) === 0, `--schema output (${r.stdout.length} bytes) differs from ${SCHEMA_PATH} (${shipped.length} bytes)`);
  });

  test('the schema is JSON Schema 2020-12 and accepts every example', { timeout: 30_000 }, () => {
    const validate = compileSchema();
    assert.ok(exampleFiles.length >= 1, `no examples in ${EXAMPLES_DIR}`);
    for (const f of exampleFiles) {
      const doc = JSON.parse(readFileSync(path.join(EXAMPLES_DIR, f), 'utf8'));
      assert.equal(validate(doc), true, `example ${f} rejected by the schema: ${JSON.stringify(validate.errors, null, 2)}`);
    }
  });

  test('the schema rejects every broken config', { timeout: 30_000 }, () => {
    const validate = compileSchema();
    for (const f of badFiles) {
      const doc = JSON.parse(readFileSync(path.join(BAD_DIR, f), 'utf8'));
      assert.equal(validate(doc), false, `bad config ${f} accepted by the schema`);
    }
  });

  // The examples show the whole document the spec defines; gate accepts those it enforces
  // and refuses the others only for fields it does not support yet, each named.
  test('gate --validate accepts every example, or refuses it only for fields not supported yet', { timeout: 60_000 }, async () => {
    assert.ok(exampleFiles.length >= 1, `no examples in ${EXAMPLES_DIR}`);
    const accepted = [];
    for (const f of exampleFiles) {
      const r = await runGate(['--validate', '--config', path.join(EXAMPLES_DIR, f)]);
      if (r.code === 0) {
        accepted.push(f);
        continue;
      }
      assert.equal(r.code, 1, `gate --validate ${f} exited ${r.code}; stderr:\n${r.stderr}`);
      const errors = r.stderr.split('\n').filter((l) => l.startsWith('config error at '));
      assert.ok(errors.length > 0, `${f}: refused without a pointer:\n${r.stderr}`);
      for (const e of errors) assert.match(e, /not supported yet/, `${f}: ${e}`);
    }
    assert.ok(accepted.includes('passthrough.json') && accepted.includes('federation.json'), accepted.join(', '));
  });

  for (const f of badFiles) {
    test(`gate --validate rejects ${f} naming ${EXPECTED_POINTER[f]}`, { timeout: 20_000 }, async () => {
      const r = await runGate(['--validate', '--config', path.join(BAD_DIR, f)]);
      assert.notEqual(r.code, 0, `gate --validate accepted ${f}; stderr:\n${r.stderr}`);
      assert.equal(r.signal, null, `gate --validate ${f} died of ${r.signal}`);
      const ptrs = pointersIn(r.stderr);
      assert.ok(ptrs.length > 0, `stderr names no JSON pointer:\n${r.stderr}`);
      assert.ok(names(ptrs, EXPECTED_POINTER[f]), `stderr does not name ${EXPECTED_POINTER[f]} (found ${ptrs.join(', ')}):\n${r.stderr}`);
    });
  }

  test('GATE_CONFIG accepts inline JSON for --validate', { timeout: 20_000 }, async () => {
    assert.ok(exampleFiles.length >= 1, `no examples in ${EXAMPLES_DIR}`);
    const good = readFileSync(path.join(EXAMPLES_DIR, 'federation.json'), 'utf8');
    let r = await runGate(['--validate'], { env: { GATE_CONFIG: good } });
    assert.equal(r.code, 0, `inline example rejected; stderr:\n${r.stderr}`);
    const bad = readFileSync(path.join(BAD_DIR, '03-protocol-bad-enum.json'), 'utf8');
    r = await runGate(['--validate'], { env: { GATE_CONFIG: bad } });
    assert.notEqual(r.code, 0, 'inline bad config accepted');
    assert.ok(names(pointersIn(r.stderr), '/upstreams/0/protocol'), `stderr does not name /upstreams/0/protocol:\n${r.stderr}`);
  });

  test('every error of a document is reported, each with its pointer', { timeout: 20_000 }, async () => {
    const doc = {
      upstreams: [
        { id: 'Bad_Id', url: 'http://127.0.0.1:1/mcp', namespace: 'a' },
        { id: 'b', url: 'ftp://127.0.0.1:2/mcp' },
      ],
      routing: { namespaceSeparator: 'x' },
      bogus: true,
    };
    const r = await runGate(['--validate'], { env: { GATE_CONFIG: JSON.stringify(doc) } });
    assert.equal(r.code, 1, r.stderr);
    for (const p of ['/upstreams/0/id', '/upstreams/1/url', '/upstreams/1/namespace', '/routing/namespaceSeparator', '/bogus']) {
      assert.ok(names(pointersIn(r.stderr), p), `stderr does not name ${p}:\n${r.stderr}`);
    }
  });

  test('an unreadable file, a bad flag and a missing config exit non-zero with a reason', { timeout: 20_000 }, async () => {
    let r = await runGate(['--validate', '--config', '/nonexistent/gate.json']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /nonexistent\/gate\.json/);
    r = await runGate(['--bogus']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option "--bogus"/);
    r = await runGate(['--port', 'eighty']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--port/);
    r = await runGate(['--validate']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /GATE_CONFIG/);
  });
});
