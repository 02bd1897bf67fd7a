// A port the kernel picked free on 127.0.0.1, for servers that cannot bind port 0 and report
// it (PostgreSQL, Redis, HAProxy): taken from a listener bound to 0 and released just before.
import net from 'node:net';

export async function freePort() {
  const server = net.createServer();
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  await new Promise((r) => server.close(r));
  return port;
}
