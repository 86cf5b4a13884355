import { upgradeWebSocket } from '@hono/node-server';
import type { Hono } from 'hono';
import type { WebSocket } from 'ws';
import type { NbserveEnv } from '../env.js';
import { requireWebSocketUpgrade } from './upgrade-request.js';

/** A subscriber that stopped reading loses events past this many queued bytes, not the server's memory. */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;

/**
 * `GET /api/events/subscribe`: jupyter_server's event bus WebSocket
 * (https://jupyter-server.readthedocs.io/en/latest/developers/rest-api.html): each event as one
 * JSON text frame, `{schema_id, ...fields}`. JupyterLab subscribes at start and retries forever
 * when refused. Authentication and the Origin check already ran in the auth middleware.
 */
export function registerEventsSocketRoute(app: Hono<NbserveEnv>): void {
  app.get('/api/events/subscribe', async (c, next) => {
    requireWebSocketUpgrade(c);
    const events = c.get('services').events;
    const handler = upgradeWebSocket(() => ({
      onOpen(_event, ws) {
        const raw = ws.raw as WebSocket;
        const unsubscribe = events.subscribe((event) => {
          if (raw.readyState !== raw.OPEN || raw.bufferedAmount > MAX_QUEUED_BYTES) return;
          raw.send(JSON.stringify(event));
        });
        raw.once('close', unsubscribe);
        raw.once('error', unsubscribe);
      },
    }));
    return handler(c, next);
  });
}
