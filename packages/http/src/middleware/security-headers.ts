import type { MiddlewareHandler } from 'hono';
import { isApiPath } from '../auth/paths.js';
import type { NbserveEnv } from '../env.js';

function apply(headers: Headers, api: boolean): void {
  // API answers carry user data: never let a browser or proxy cache them unless a route says so.
  if (api && !headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
  if (!headers.has('X-Content-Type-Options')) headers.set('X-Content-Type-Options', 'nosniff');
  // same-origin: a URL with ?token= must never leak to another site through Referer.
  if (!headers.has('Referrer-Policy')) headers.set('Referrer-Policy', 'same-origin');
  if (!headers.has('X-Frame-Options')) headers.set('X-Frame-Options', 'SAMEORIGIN');
  const csp = headers.get('Content-Security-Policy');
  if (!csp) headers.set('Content-Security-Policy', "frame-ancestors 'self'");
  else if (!/frame-ancestors/i.test(csp)) headers.set('Content-Security-Policy', `${csp}; frame-ancestors 'self'`);
}

/** Headers every response gets; a route's own values (e.g. a stricter CSP) are kept and completed. */
export function securityHeaders(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status === 101) return;
    const api = isApiPath(c.get('relPath'));
    try {
      apply(c.res.headers, api);
    } catch {
      // Immutable headers (Response.redirect, fetched responses): copy into a fresh Response.
      c.res = new Response(c.res.body, c.res);
      apply(c.res.headers, api);
    }
  };
}
