import type { Hono } from 'hono';
import type { NbserveEnv } from '../../env.js';

/** `GET /` goes to the dashboard, keeping the query string (as Notebook 6 does). */
export function registerRootRoutes(app: Hono<NbserveEnv>): void {
  app.get('/', (c) => c.redirect(`${c.get('baseUrl')}tree${new URL(c.req.url).search}`, 302));
}
