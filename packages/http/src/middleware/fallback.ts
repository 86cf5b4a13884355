import { notFound } from '@nbserve/core';
import type { Handler } from 'hono';
import { isApiPath } from '../auth/paths.js';
import { localRedirectTarget } from '../auth/safe-next.js';
import { searchWithoutToken } from '../auth/token-query.js';
import type { NbserveEnv } from '../env.js';

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>404 Not Found</title></head>
<body><h1>404: Not Found</h1><p>There is nothing at this address.</p></body></html>
`;

/**
 * Registered after every route: `GET /x/` redirects to `/x` (the path as the client sent it, still
 * percent-encoded with the prefix included — the router's decoded path would put spaces and raw
 * non-ASCII bytes into the header — query kept; leading slashes collapsed, so `//evil.com/` goes to
 * `/evil.com`; a target whose decoded path could leave the server, such as `/%09/evil.com/`, goes
 * to the base URL instead; a page's `token` query parameter dropped, as the login cookie now holds
 * it — an API client keeps it, having no cookie), `/api/*` gets a JSON 404, the rest an HTML 404.
 */
export const fallback: Handler<NbserveEnv> = (c) => {
  const relPath = c.get('relPath');
  const method = c.req.method;
  if ((method === 'GET' || method === 'HEAD') && relPath.length > 1 && relPath.endsWith('/')) {
    const url = new URL(c.req.url);
    const stripped = url.pathname.replace(/\/+$/, '').replace(/^\/+/, '/');
    const base = c.get('baseUrl');
    const search = isApiPath(relPath) ? url.search : searchWithoutToken(c.req.url);
    return c.redirect(localRedirectTarget(`${stripped}${search}`, base) ?? base, 302);
  }
  if (isApiPath(relPath)) throw notFound('Not Found');
  return c.html(NOT_FOUND_PAGE, 404, { 'Content-Security-Policy': "default-src 'none'" });
};
