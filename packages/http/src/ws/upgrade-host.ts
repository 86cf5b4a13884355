import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Whether a URL can be built from the upgrade request's Host. node-server turns a Host that is no
 * host (`<svg/onload=x()>`, `a b`) into a 400 for plain requests, but on its WebSocket upgrade
 * path the same URL error is answered 500; so upgrades are checked first, here.
 */
function hostUsable(request: IncomingMessage): boolean {
  const host = request.headers.host;
  if (host === undefined) return true;
  try {
    new URL(`http://${host}/`);
    return true;
  } catch {
    return false;
  }
}

/** Answers 400 for an upgrade whose Host is unusable; true when it did (the upgrade is over). */
export function refusedUpgradeHost(request: IncomingMessage, socket: Duplex): boolean {
  if (hostUsable(request)) return false;
  if (!socket.destroyed) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  return true;
}

/** Puts the Host check in front of every `upgrade` listener the server has now. */
export function guardUpgradeHost(server: Server): void {
  const listeners = server.listeners('upgrade') as Array<
    (request: IncomingMessage, socket: Duplex, head: Buffer) => void
  >;
  server.removeAllListeners('upgrade');
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (refusedUpgradeHost(request, socket)) return;
    for (const listener of listeners) listener.call(server, request, socket, head);
  });
}
