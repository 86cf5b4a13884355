import { upgradeWebSocket } from '@hono/node-server';
import { badRequest } from '@nbserve/core';
import type { Hono } from 'hono';
import type { WebSocket } from 'ws';
import { requestActor } from '../audit/request-actor.js';
import type { NbserveEnv } from '../env.js';
import { kernelIdParam } from '../routes/api/kernels.js';
import { requireWebSocketUpgrade } from './upgrade-request.js';

const SESSION_ID = /^[\w.:@+-]{1,200}$/;

/**
 * `GET /api/kernels/<id>/channels?session_id=`: the kernel WebSocket. Authentication and the
 * Origin check already ran in the auth middleware; an unknown kernel fails the upgrade with 404.
 * The subprotocol was chosen by the server's `handleProtocols` (v1 when offered).
 */
export function registerChannelsRoute(app: Hono<NbserveEnv>): void {
  app.get('/api/kernels/:kernel_id/channels', async (c, next) => {
    const id = kernelIdParam(c);
    const { kernels, channels, metrics } = c.get('services');
    kernels.get(id); // 404 before the upgrade
    requireWebSocketUpgrade(c);
    const sessionId = c.req.query('session_id');
    if (sessionId !== undefined && sessionId !== '' && !SESSION_ID.test(sessionId)) {
      throw badRequest('Invalid session_id');
    }
    const actor = requestActor(c);
    const handler = upgradeWebSocket(() => ({
      onOpen(_event, ws) {
        const raw = ws.raw as WebSocket;
        metrics.trackWebSocket('kernel', raw);
        try {
          channels.connect(id, raw, sessionId, actor);
        } catch {
          // The kernel went away between the check and the handshake.
          raw.close(1011, 'Kernel is gone');
        }
      },
    }));
    return handler(c, next);
  });
}
