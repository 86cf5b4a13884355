import type { Hono } from 'hono';
import { searchWithoutToken } from '../../auth/token-query.js';
import type { NbserveEnv } from '../../env.js';

/**
 * `GET /` goes to the dashboard, or to the default URL a hub spawner set, keeping the query string
 * (as Notebook 6 does). Under a base URL or mount path `/x`, Hono routes only `/x` to the app's
 * `/`; `/x/` (the URL nbserve prints) takes the catch-all, so the app's root is recognised by its
 * relative path. A `token` in the query is dropped: the auth middleware has set the login cookie
 * from it, and a `Location` never repeats it.
 */
export function registerRootRoutes(app: Hono<NbserveEnv>): void {
  app.get('*', (c, next) => {
    if (c.get('relPath') !== '/') return next();
    const target = c.get('services').options.defaultUrl.replace(/^\/+/, '');
    return c.redirect(`${c.get('baseUrl')}${target}${searchWithoutToken(c.req.url)}`, 302);
  });
}
