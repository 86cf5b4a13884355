import { upgradeWebSocket } from '@hono/node-server';
import { NbserveError } from '@nbserve/core';
import type { Hono } from 'hono';
import type { RawData, WebSocket } from 'ws';
import type { NbserveEnv } from '../env.js';
import { collaborationOf } from '../routes/api/collaboration.js';
import { requireWebSocketUpgrade } from './upgrade-request.js';

/**
 * `GET /api/collaboration/room/<format>:<type>:<fileId>`: a shared document's WebSocket, speaking
 * the y-websocket sync and awareness protocol (binary frames). Authentication and the Origin check
 * already ran in the auth middleware, exactly as for the kernel channels. A malformed room id is a
 * 400 and an unknown file id a 404 before the upgrade; a document that cannot be loaded closes the
 * socket with 4404/4400/4500 as jupyter-collaboration does. The `sessionId` query the JupyterLab
 * client sends is accepted whatever it is: the history survives restarts (docs/collaboration.md).
 * `JupyterLab:globalAwareness` is the presence room JupyterLab's collaboration extension joins.
 */
export function registerCollaborationRoomRoute(app: Hono<NbserveEnv>): void {
  app.get('/api/collaboration/room/:room_id', async (c, next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const roomId = c.req.param('room_id') ?? '';
    const { documents, closeCodes } = collaboration;
    const presence = documents.isGlobalAwarenessRoom(roomId);
    if (!presence) documents.checkRoomId(roomId); // 400 or 404 before the upgrade
    requireWebSocketUpgrade(c);
    const handler = upgradeWebSocket(() => ({
      onOpen(_event, ws) {
        const raw = ws.raw as WebSocket;
        raw.binaryType = 'nodebuffer';
        c.get('services').metrics.trackWebSocket('collaboration', raw);
        const queued: Uint8Array[] = [];
        let receive: ((data: Uint8Array) => void) | undefined;
        let disconnect: (() => void) | undefined;
        raw.on('message', (data: RawData) => {
          const bytes = toBytes(data);
          if (receive) receive(bytes);
          else queued.push(bytes);
        });
        raw.on('close', () => disconnect?.());
        raw.on('error', () => disconnect?.());
        (presence ? Promise.resolve().then(() => documents.globalAwareness()) : documents.room(roomId)).then(
          (opened) => {
            if (raw.readyState !== raw.OPEN) return;
            const connection = opened.connect({
              send: (data) => raw.send(data, { binary: true }),
              close: (code, reason) => raw.close(code, reason),
              get bufferedAmount() {
                return raw.bufferedAmount;
              },
            });
            receive = connection.receive;
            disconnect = connection.disconnect;
            for (const bytes of queued.splice(0)) receive(bytes);
          },
          (error: unknown) => {
            const kind = error instanceof NbserveError ? error.kind : 'internal';
            const code =
              kind === 'not-found'
                ? closeCodes.notFound
                : kind === 'bad-request'
                  ? closeCodes.malformed
                  : closeCodes.internal;
            raw.close(code, `Error initializing: ${roomId}`.slice(0, 120));
          },
        );
      },
    }));
    return handler(c, next);
  });
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}
