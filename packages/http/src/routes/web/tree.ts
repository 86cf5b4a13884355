import { type ContentsModel, isNbserveError } from '@nbserve/core';
import { FIRST_PAGE, readerLocale, renderDashboardBody } from '@nbserve/web';
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
  const title = path ? `${model.name} – nbserve` : 'Home – nbserve';
  const page = await firstPage(c, path);
  if (!page) return sendPage(c, 'dashboard', title, path);
  // The folder's top rows are in the HTML, on screen with the first frame; its first page is in
  // the config, where the page's code takes it from instead of asking for it again.
  const locale = readerLocale(c.req.header('accept-language'));
  return sendPage(c, 'dashboard', title, path, { firstPage: page }, (config) =>
    renderDashboardBody({
      baseUrl: config.baseUrl,
      dir: path,
      page,
      authEnabled: config.authEnabled === true,
      hubControlPanelUrl: typeof config.hubControlPanelUrl === 'string' ? config.hubControlPanelUrl : undefined,
      labAvailable: config.labAvailable === true,
      locale,
    }),
  );
}

/**
 * A folder's first page, as `GET /api/contents/<dir>?content=1&offset=0&limit=FIRST_PAGE` answers
 * it. A folder that cannot be listed gets the page without rows: its code asks the API itself
 * and shows the API's error.
 */
async function firstPage(c: Context<NbserveEnv>, path: string): Promise<ContentsModel | undefined> {
  try {
    return await c.get('services').contents.get(path, { content: true, page: { offset: 0, limit: FIRST_PAGE } });
  } catch {
    return undefined;
  }
}

/** `GET /tree[/<dir>]`: the dashboard; notebooks and files redirect to their pages, as Notebook 6's tree does. */
export function registerTreeRoutes(app: Hono<NbserveEnv>): void {
  app.get('/tree', tree);
  app.get('/tree/*', tree);
}
