import type { MiddlewareHandler } from 'hono';
import type { NbserveEnv } from '../env.js';

function apply(headers: Headers): void {
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
    try {
      apply(c.res.headers);
    } catch {
      // Immutable headers (Response.redirect, fetched responses): copy into a fresh Response.
      c.res = new Response(c.res.body, c.res);
      apply(c.res.headers);
    }
  };
}
