import type { Context, Hono, Next } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { pagePath, pageUrl, sendPage } from './page-response.js';
import { pageModel } from './tree.js';

async function editPage(c: Context<NbserveEnv>, next: Next) {
  const path = pagePath(c, '/edit');
  const model = path === '' ? undefined : await pageModel(c, path);
  if (!model) return next();
  if (model.type === 'directory') return c.redirect(pageUrl(c, 'tree', path), 302);
  return sendPage(c, 'editor', model.name, path);
}

/** `GET /edit/<path>`: the text editor page for any file (a notebook opens as its JSON). */
export function registerEditRoutes(app: Hono<NbserveEnv>): void {
  app.get('/edit/*', editPage);
}
