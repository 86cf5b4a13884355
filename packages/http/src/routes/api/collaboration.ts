import { notFound } from '@nbserve/core';
import type { Context, Hono, Next } from 'hono';
import * as v from 'valibot';
import type { NbserveEnv } from '../../env.js';
import type { CollaborationServices } from '../../services.js';
import { parseJsonBody, parseWith } from '../../validate.js';
import { pathSegmentsAfter } from '../contents-path.js';

type Ctx = Context<NbserveEnv>;

const SESSION_PREFIX = '/api/collaboration/session';

const SessionBody = v.object(
  {
    format: v.pipe(v.string('format must be a string'), v.maxLength(20, 'format is too long')),
    type: v.pipe(v.string('type must be a string'), v.maxLength(20, 'type is too long')),
  },
  'The request body must be a JSON object with format and type',
);

const IdQuery = v.object({ id: v.pipe(v.string('id is required'), v.maxLength(100, 'id is too long')) });
const PathQuery = v.object({ path: v.pipe(v.string('path is required'), v.maxLength(4096, 'path is too long')) });

/**
 * The live-document services (loaded on the first call), or `undefined` when collaboration is
 * off (the route then falls through to a 404).
 */
export async function collaborationOf(c: Ctx): Promise<CollaborationServices | undefined> {
  return (await c.get('services').collaboration) ?? undefined;
}

/**
 * jupyter-collaboration's session route, `PUT /api/collaboration/session/<path>` with
 * `{format, type}`: the file's id (201 when it was just indexed, else 200) and this server's
 * session id, which the client then names in the room WebSocket; and jupyter_server_fileid's
 * `GET /api/fileid/id?path=` and `GET /api/fileid/path?id=`. Renames through the contents API
 * keep ids and deletes forget them, and trusting a notebook trusts its open document (a middleware around `PATCH`, `DELETE` and `POST …/trust` of `/api/contents/…`). With collaboration off every route is a 404.
 */
export function registerCollaborationRoutes(app: Hono<NbserveEnv>): void {
  app.use('/api/contents/*', async (c, next) => {
    const method = c.req.method;
    const trust = method === 'POST' && c.req.path.endsWith('/trust');
    const collaboration = method === 'PATCH' || method === 'DELETE' || trust ? await collaborationOf(c) : undefined;
    if (!collaboration) return next();
    let segments: string[];
    try {
      segments = pathSegmentsAfter(c, '/api/contents');
    } catch {
      return next(); // the contents route answers the 400
    }
    const from = segments.join('/');
    await next();
    if (trust) {
      // `POST <notebook>/trust` as the contents route reads it (one segment is a create in a folder)
      const signed = c.res.status === 201 && segments.length >= 2 && segments.at(-1) === 'trust';
      if (signed) await collaboration.documents.trusted(segments.slice(0, -1).join('/'));
      return;
    }
    if (method === 'DELETE') {
      if (c.res.status === 204) await collaboration.documents.deleted(from);
      return;
    }
    if (c.res.status !== 200) return;
    const moved = (await c.res.clone().json()) as { path?: unknown };
    if (typeof moved.path === 'string') await collaboration.documents.renamed(from, moved.path);
  });

  app.put(`${SESSION_PREFIX}/*`, async (c, next: Next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const path = pathSegmentsAfter(c, SESSION_PREFIX).join('/');
    const { format, type } = await parseJsonBody(c, SessionBody);
    const { fileId, created } = await collaboration.documents.session(path, format, type);
    return c.json({ format, type, fileId, sessionId: collaboration.documents.sessionId }, created ? 201 : 200);
  });

  app.get('/api/fileid/id', async (c, next: Next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const { path } = parseWith(PathQuery, c.req.query(), 'query');
    const id = collaboration.documents.fileIds.getId(path.replace(/^\/+|\/+$/g, ''));
    if (id === undefined) throw notFound(`No file id for ${path.slice(0, 200)}`);
    return c.json({ id, path });
  });

  app.get('/api/fileid/path', async (c, next: Next) => {
    const collaboration = await collaborationOf(c);
    if (!collaboration) return next();
    const { id } = parseWith(IdQuery, c.req.query(), 'query');
    const path = collaboration.documents.fileIds.getPath(id);
    if (path === undefined) throw notFound(`Unknown file id: ${id}`);
    return c.json({ id, path });
  });
}
