import type { Context, Hono, Next } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { pagePath, pageUrl, sendPage } from './page-response.js';
import { pageModel } from './tree.js';

async function notebookPage(c: Context<NbserveEnv>, next: Next) {
  const path = pagePath(c, '/notebooks');
  // Unknown paths fall through: the older generation's `/notebooks/<uuid>` JSON route may own them.
  const model = path === '' ? undefined : await pageModel(c, path);
  if (!model) return next();
  if (model.type === 'directory') return c.redirect(pageUrl(c, 'tree', path), 302);
  if (model.type === 'file') return c.redirect(pageUrl(c, 'files', path), 302);
  return sendPage(c, 'notebook', model.name, path);
}

/** `GET /notebooks/<path>`: the notebook page. */
export function registerNotebookPageRoutes(app: Hono<NbserveEnv>): void {
  app.get('/notebooks/*', notebookPage);
}
