import type { Hono } from 'hono';
import { recordAudit } from '../../audit/record.js';
import type { NbserveEnv } from '../../env.js';
import { pageUrl } from './page-response.js';

/**
 * `GET /new` (the spec's route): a new untitled notebook in the root, then its page. The page
 * starts the server's default kernel because the new notebook names none.
 */
export function registerNewNotebookRoutes(app: Hono<NbserveEnv>): void {
  app.get('/new', async (c) => {
    const model = await c.get('services').contents.newUntitled('', { type: 'notebook' });
    recordAudit(c, 'contents.create', { path: model.path, type: model.type });
    return c.redirect(pageUrl(c, 'notebooks', model.path), 302);
  });
}
