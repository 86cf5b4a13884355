import type { MiddlewareHandler } from 'hono';
import { localRedirectTarget } from '../auth/safe-next.js';
import type { NbserveEnv } from '../env.js';

/**
 * The last word on every redirect this app sends (login `next=`, the `?token=` hop, trailing
 * slashes, page and legacy redirects, the `/api/notebooks` 307s): the `Location` is resolved the
 * way the browser will resolve it, and replaced by that normalized local path, or by the base URL
 * when it would leave this server or its base URL (except the one redirect a route marked as
 * `trustedRedirect`: the way to JupyterHub's login and logout). Routes still build safe targets themselves;
 * this makes one forgotten check unable to become an open redirect.
 */
export function redirectGuard(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    await next();
    const status = c.res.status;
    if (status < 300 || status > 399) return;
    const location = c.res.headers.get('location');
    if (location === null || location === c.get('trustedRedirect')) return;
    const baseUrl = c.get('baseUrl');
    const safe = localRedirectTarget(location, baseUrl, new URL(c.req.url).pathname) ?? baseUrl;
    if (safe === location) return;
    try {
      c.res.headers.set('location', safe);
    } catch {
      // Immutable headers (Response.redirect, fetched responses): copy into a fresh Response.
      c.res = new Response(c.res.body, c.res);
      c.res.headers.set('location', safe);
    }
  };
}
