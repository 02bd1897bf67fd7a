// A raw stdio MCP server that keeps every byte, for gate-stdio's tests: it appends each line it
// reads to <record-file> and answers with texts it writes itself, so a test sees exactly what
// gate-stdio sent it and what gate-stdio passed on. (An SDK server parses with JSON.parse and
// writes with JSON.stringify: 18446744073709551617 survives neither.)
//   tools/call     -> <RESULT> below, written as it is
//   any other one  -> -32601
// Usage: node stdio-raw-server.mjs <record-file>
import { appendFileSync } from 'node:fs';
import readline from 'node:readline';

const RAW_RESULT = '{"content":[{"type":"text","text":"raw"}],"structuredContent":{"big":18446744073709551617,"ratio":6.5,"half":0.50}}';

const record = process.argv[2];
{
  readline.createInterface({ input: process.stdin }).on('line', (line) => {
    if (record) appendFileSync(record, `${line}\n`);
    let m;
    try {
      m = JSON.parse(line);
    } catch {
      return;
    }
    if (m.id === undefined || typeof m.method !== 'string') return;
    const id = JSON.stringify(m.id);
    process.stdout.write(
      m.method === 'tools/call'
        ? `{"jsonrpc":"2.0","id":${id},"result":${RAW_RESULT}}\n`
        : `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"no ${m.method} here"}}\n`,
    );
  });
}
