// A TCP server that accepts connections and never says a word: a hung upstream, and one a
// TLS handshake to never completes. `close()` drops its connections too.
import net from 'node:net';

export function startSilentServer() {
  const sockets = new Set();
  const server = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const port = server.address().port;
      resolve({
        port,
        url: `http://127.0.0.1:${port}/mcp`,
        close: () => {
          for (const s of sockets) s.destroy();
          return new Promise((r) => server.close(r));
        },
      });
    }),
  );
}
