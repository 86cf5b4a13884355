import { upgradeWebSocket } from '@hono/node-server';
import { badRequest } from '@nbserve/core';
import type { Hono } from 'hono';
import type { WebSocket } from 'ws';
import type { NbserveEnv } from '../env.js';
import { terminalNameParam } from '../routes/api/terminals.js';

/**
 * `GET /terminals/websocket/<name>`: a terminal's WebSocket (terminado's JSON messages).
 * Authentication and the Origin check already ran in the auth middleware, as for the kernel
 * channels; an unknown terminal fails the upgrade with 404, and with terminals off every request
 * is a 404.
 */
export function registerTerminalSocketRoute(app: Hono<NbserveEnv>): void {
  app.get('/terminals/websocket/:name', async (c, next) => {
    const terminals = c.get('services').terminals;
    if (!terminals) return next();
    const name = terminalNameParam(c);
    terminals.manager.get(name); // 404 before the upgrade
    if (c.req.header('upgrade')?.toLowerCase() !== 'websocket') {
      throw badRequest('Can "Upgrade" only to "WebSocket".');
    }
    const handler = upgradeWebSocket(() => ({
      onOpen(_event, ws) {
        const raw = ws.raw as WebSocket;
        c.get('services').metrics.trackWebSocket('terminal', raw);
        try {
          terminals.sockets.connect(name, raw);
        } catch {
          // The shell exited between the check and the handshake.
          raw.close(1011, 'Terminal is gone');
        }
      },
    }));
    return handler(c, next);
  });
}
