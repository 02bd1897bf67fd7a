// Preloaded (`node --import`) into @modelcontextprotocol/server-everything.
//
// That server calls `app.listen(process.env.PORT || 3001)`: no host (so it binds every
// interface) and it logs the port it was *given*, not the one it got. This preload makes
// every net server of the process bind 127.0.0.1 only, and once a server is listening it
// prints the real address on stderr as
//     GATE_TEST_LISTENING 127.0.0.1:<port>
// so the harness can start it with PORT=0 and read the kernel-chosen port back: no port
// is ever guessed, so there is no race with other processes.
import net from 'node:net';

const HOST = process.env.GATE_TEST_LISTEN_HOST || '127.0.0.1';
const originalListen = net.Server.prototype.listen;

net.Server.prototype.listen = function patchedListen(...args) {
  // Forms used by http/express: listen(port[, host][, backlog][, cb]) and listen(options[, cb]).
  const first = args[0];
  if (first !== null && typeof first === 'object' && !Array.isArray(first) && !('fd' in first) && !('path' in first) && !('_handle' in first)) {
    args[0] = { ...first, host: HOST };
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const port = Number(first);
    const cb = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined;
    args = cb ? [{ port, host: HOST }, cb] : [{ port, host: HOST }];
  }
  this.once('listening', () => {
    const addr = this.address();
    if (addr && typeof addr === 'object') {
      process.stderr.write(`GATE_TEST_LISTENING ${addr.address}:${addr.port}\n`);
    }
  });
  return originalListen.apply(this, args);
};
