import type { IncomingMessage } from 'node:http';
import type { WebSocket } from 'ws';

/**
 * Ends a WebSocket's TCP connection as soon as its closing handshake is complete. `ws` then only
 * half-closes and emits 'close' when the client's FIN arrives, or 30 s later: a client that sent
 * its close frame but stopped reading (a blocked event loop, a suspended laptop) would keep
 * counting as a kernel connection all that time, so `connections` misreports and culling with
 * `--no-cull-connected` spares the kernel. After both close frames nothing more may be sent, and
 * the server is the side meant to close TCP first (RFC 6455 section 7.1.1); Tornado-based Jupyter
 * servers close it at once too.
 */
export function closeTcpAfterHandshake(_ws: WebSocket, request: IncomingMessage): void {
  const socket = request.socket;
  // `ws` ends its socket (after flushing our close frame) only when the connection is over: the
  // handshake done, the client gone, or a write failed.
  socket.once('finish', () => socket.destroy());
}
