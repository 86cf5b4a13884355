import { badRequest } from '@nbserve/core';
import type { Context } from 'hono';

/**
 * Throws 400 unless this request is a WebSocket upgrade node-server can complete: it says
 * `Upgrade: websocket` and came through the server's `upgrade` event (whose env has the Node
 * request but no response object). A plain request that merely carries the header, or an
 * in-process `app.request`, cannot be upgraded; node-server's helper would answer those 500.
 */
export function requireWebSocketUpgrade(c: Context): void {
  const env = c.env as { incoming?: unknown; outgoing?: unknown } | undefined;
  const upgrading =
    c.req.header('upgrade')?.toLowerCase() === 'websocket' && env?.incoming !== undefined && env.outgoing === undefined;
  if (!upgrading) throw badRequest('Can "Upgrade" only to "WebSocket".');
}
