import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/**
 * Old clients keep working after a rename made with the current API (a JupyterLab rename is a
 * `PATCH /api/contents/<path>`): once such a PATCH succeeded, the legacy id moves to the new
 * path. Registered before the contents routes so it wraps them.
 */
export function registerLegacyRenameTracking(app: Hono<NbserveEnv>): void {
  app.use('/api/contents/*', async (c, next) => {
    if (c.req.method !== 'PATCH') return next();
    const from = c.get('relPath').slice('/api/contents/'.length);
    await next();
    if (c.res.status !== 200) return;
    const moved = (await c.res.clone().json()) as { path?: unknown };
    if (typeof moved.path !== 'string') return;
    let decoded: string;
    try {
      decoded = from.split('/').map(decodeURIComponent).join('/');
    } catch {
      return;
    }
    await c.get('services').legacyNotebooks.renamed(decoded, moved.path);
  });
}
