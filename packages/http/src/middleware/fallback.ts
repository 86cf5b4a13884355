import { notFound } from '@nbserve/core';
import type { Handler } from 'hono';
import { isApiPath } from '../auth/paths.js';
import type { NbserveEnv } from '../env.js';

const NOT_FOUND_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>404 Not Found</title></head>
<body><h1>404: Not Found</h1><p>There is nothing at this address.</p></body></html>
`;

/**
 * Registered after every route: `GET /x/` redirects to `/x` (query kept, leading slashes collapsed
 * so `//evil.com/` cannot become an open redirect), `/api/*` gets a JSON 404, the rest an HTML 404.
 * The Location is the path as the client sent it (still percent-encoded, prefix included): the
 * router's decoded path would put spaces and raw non-ASCII bytes into the header.
 */
export const fallback: Handler<NbserveEnv> = (c) => {
  const relPath = c.get('relPath');
  const method = c.req.method;
  if ((method === 'GET' || method === 'HEAD') && relPath.length > 1 && relPath.endsWith('/')) {
    const { pathname, search } = new URL(c.req.url);
    const stripped = pathname.replace(/\/+$/, '').replace(/^[/\\]+/, '/');
    return c.redirect(`${stripped}${search}`, 302);
  }
  if (isApiPath(relPath)) throw notFound('Not Found');
  return c.html(NOT_FOUND_PAGE, 404, { 'Content-Security-Policy': "default-src 'none'" });
};
