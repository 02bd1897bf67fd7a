// Connects the benchmark's user to gate's `vaulted` upstream before the count (mode vaulted of
// simulations/bench_instructions.sh), as a person would, without a browser: a call answered
// with the login (URLElicitationRequiredError), gate's connect page and its form, the stand-in
// server's approval, gate's redirect endpoint with the cookie it set. gate's publicUrl names
// no port it listens on (it is known only once gate listens), so each URL of gate's is taken
// to the real one.
//   node bench_user_login.mjs <gate MCP URL> <Authorization header value> [tool]
const [mcpUrl, authorization, tool = 'echo'] = process.argv.slice(2);
const gate = new URL(mcpUrl).origin;
const onGate = (u) => {
  const url = new URL(u);
  return `${gate}${url.pathname}${url.search}`;
};
const post = async (body, session) => {
  const r = await fetch(mcpUrl, {
    method: 'POST',
    headers: {
      authorization,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('\ndata: ').pop());
  return { session: r.headers.get('mcp-session-id'), json };
};
const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench-login', version: '0' } } });
await fetch(mcpUrl, { method: 'POST', headers: { authorization, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': init.session, 'mcp-protocol-version': '2025-11-25' }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
const call = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: tool, arguments: { message: 'hello' } } }, init.session);
const link = call.json.error?.data?.elicitations?.[0]?.url;
if (!link) throw new Error(`no login offered: ${JSON.stringify(call.json)}`);
const login = new URL(link).searchParams.get('login');
const form = await fetch(`${gate}/oauth/connect`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: gate }, body: `login=${login}`, redirect: 'manual' });
const cookie = form.headers.get('set-cookie').split(';')[0];
const approved = await fetch(form.headers.get('location'), { redirect: 'manual' });
const back = await fetch(onGate(approved.headers.get('location')), { headers: { cookie } });
if (back.status !== 200) throw new Error(`the login did not connect: HTTP ${back.status} ${await back.text()}`);
const again = await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: tool, arguments: { message: 'hello' } } }, init.session);
if (again.json.error) throw new Error(`the call after the login failed: ${JSON.stringify(again.json.error)}`);
process.stdout.write('connected\n');
