import type { MiddlewareHandler } from 'hono';
import { CSP_REPORT_PATH, isApiPath } from '../auth/paths.js';
import type { NbserveEnv } from '../env.js';

/**
 * jupyter_server's APIHandler policy, exactly: API answers are data, never documents that may
 * load anything or be framed by another site; violations are reported to `CSP_REPORT_PATH`.
 */
export function apiContentSecurityPolicy(baseUrl: string): string {
  return `frame-ancestors 'self'; report-uri ${baseUrl}${CSP_REPORT_PATH.slice(1)}; default-src 'none'`;
}

function apply(headers: Headers, api: boolean, baseUrl: string): void {
  // API answers carry user data: never let a browser or proxy cache them unless a route says so.
  if (api && !headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store');
  if (!headers.has('X-Content-Type-Options')) headers.set('X-Content-Type-Options', 'nosniff');
  // same-origin: a URL with ?token= must never leak to another site through Referer.
  if (!headers.has('Referrer-Policy')) headers.set('Referrer-Policy', 'same-origin');
  if (!headers.has('X-Frame-Options')) headers.set('X-Frame-Options', 'SAMEORIGIN');
  const csp = headers.get('Content-Security-Policy');
  if (!csp) headers.set('Content-Security-Policy', api ? apiContentSecurityPolicy(baseUrl) : "frame-ancestors 'self'");
  else if (!/frame-ancestors/i.test(csp)) headers.set('Content-Security-Policy', `${csp}; frame-ancestors 'self'`);
}

/**
 * Headers every response gets; a route's own values (e.g. a page's stricter CSP) are kept and
 * completed. API answers without a policy of their own get jupyter_server's API policy.
 */
export function securityHeaders(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    await next();
    if (c.res.status === 101) return;
    const api = isApiPath(c.get('relPath'));
    const baseUrl = c.get('baseUrl');
    try {
      apply(c.res.headers, api, baseUrl);
    } catch {
      // Immutable headers (Response.redirect, fetched responses): copy into a fresh Response.
      c.res = new Response(c.res.body, c.res);
      apply(c.res.headers, api, baseUrl);
    }
  };
}
