import type { Context, Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { rawPathAfter, urlBase } from '../contents-path.js';

/**
 * The deprecated `/api/notebooks/*` (jupyter_server redirects it too): every method goes to `/api/contents/*`.
 * 307, not Jupyter's 302, so clients re-send PUT/POST/PATCH with their method and body.
 */
export function registerNotebooksRedirect(app: Hono<NbserveEnv>): void {
  app.all('/api/notebooks', redirect);
  app.all('/api/notebooks/*', redirect);
}

function redirect(c: Context<NbserveEnv>): Response {
  // The rest stays percent-encoded exactly as sent; it always follows our own prefix.
  const rest = rawPathAfter(c, '/api/notebooks');
  const search = new URL(c.req.url).search;
  return c.redirect(`${urlBase(c)}api/contents${rest}${search}`, 307);
}
