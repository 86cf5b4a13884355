import { isNbserveError } from '@nbserve/core';
import { firstPageRoute } from '@nbserve/web';
import type { Context, Hono, Next } from 'hono';
import type { NbserveEnv } from '../../env.js';
import { pagePath, pageUrl, sendPage } from './page-response.js';

/** Models for pages: a missing or hidden path falls through to later routes and the 404 page. */
export async function pageModel(c: Context<NbserveEnv>, path: string) {
  try {
    return await c.get('services').contents.get(path, { content: false });
  } catch (error) {
    if (isNbserveError(error) && error.kind === 'not-found') return undefined;
    throw error;
  }
}

async function tree(c: Context<NbserveEnv>, next: Next) {
  const path = pagePath(c, '/tree');
  const model = await pageModel(c, path);
  if (!model) return next();
  if (model.type === 'notebook') return c.redirect(pageUrl(c, 'notebooks', path), 302);
  if (model.type === 'file') return c.redirect(pageUrl(c, 'files', path), 302);
  // the folder's first page is requested by the HTML itself, before the dashboard's code runs
  const title = path ? `${model.name} – nbserve` : 'Home – nbserve';
  return sendPage(c, 'dashboard', title, path, {}, [firstPageRoute(path)]);
}

/** `GET /tree[/<dir>]`: the dashboard; notebooks and files redirect to their pages, as Notebook 6's tree does. */
export function registerTreeRoutes(app: Hono<NbserveEnv>): void {
  app.get('/tree', tree);
  app.get('/tree/*', tree);
}
