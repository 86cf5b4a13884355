import { forbidden } from '@nbserve/core';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { recordAudit, recordFailedLogin } from '../audit/record.js';
import type { NbserveEnv } from '../env.js';
import { ensureXsrfCookie, readLoginCookie, requestHost, setLoginCookie } from './cookies.js';
import { authenticateWithHub, startHubLogin } from './hub/browser.js';
import { checkWebSocketOrigin } from './origin.js';
import { isApiPath, isLegacyChannelSocket, isPublicPath, METRICS_PATH, SAFE_METHODS, skipsXsrfCheck } from './paths.js';
import { localRedirectTarget } from './safe-next.js';
import { searchWithoutToken } from './token-query.js';
import { checkXsrf, XSRF_COOKIE, XSRF_HEADERS } from './xsrf.js';

type Ctx = Context<NbserveEnv>;

function isWebSocketUpgrade(c: Ctx): boolean {
  return c.req.header('upgrade')?.toLowerCase() === 'websocket';
}

/** A browser loading a page (not a script, not curl): the only case where a redirect is harmless. */
function isBrowserNavigation(c: Ctx): boolean {
  const mode = c.req.header('sec-fetch-mode');
  if (mode) return mode === 'navigate';
  return (c.req.header('accept') ?? '').includes('text/html');
}

/** Path and query as the client sent them, with `token` removed (it must not end up in `next=`). */
function pathWithoutToken(c: Ctx): string {
  const url = new URL(c.req.url);
  return `${url.pathname}${searchWithoutToken(c.req.url)}`;
}

async function submittedXsrf(c: Ctx): Promise<string | undefined> {
  for (const name of XSRF_HEADERS) {
    const value = c.req.header(name);
    if (value) return value;
  }
  const fromQuery = c.req.query('_xsrf');
  if (fromQuery) return fromQuery;
  const type = c.req.header('content-type') ?? '';
  if (type.startsWith('application/x-www-form-urlencoded') || type.startsWith('multipart/form-data')) {
    // parseBody caches the parsed form, so the route can read it again.
    const form = await c.req.parseBody().catch(() => ({}) as Record<string, unknown>);
    const value = form._xsrf;
    if (typeof value === 'string') return value;
  }
  return undefined;
}

/**
 * Authentication and request-forgery checks, in one place:
 * - token (`Authorization: token|Bearer`, `?token=`) or the signed login cookie; in hub mode a
 *   hub token or the hub login's cookie, admitted by its scopes;
 * - unauthenticated: 403 on the API and WebSockets, 302 to `/login?next=` (in hub mode to the
 *   hub's OAuth authorize URL) for page GETs;
 * - WebSocket upgrades must pass the Origin rule (cross-site WebSocket hijacking);
 * - cookie-authenticated requests may not come from another site (`Sec-Fetch-Site`), and unsafe
 *   methods need the XSRF token unless a token authenticated them.
 */
export function authMiddleware(): MiddlewareHandler<NbserveEnv> {
  return async (c, next) => {
    const { auth, hub, options } = c.get('services');
    const relPath = c.get('relPath');
    const method = c.req.method;
    const metrics = relPath === METRICS_PATH;
    const api = isApiPath(relPath) || metrics;
    const websocket = isWebSocketUpgrade(c);
    // In hub mode the hub alone says who may in; the local token, password and cookie do not count.
    const result = hub
      ? { via: await authenticateWithHub(c, hub), viaQueryToken: false }
      : await auth.authenticate({
          authorization: c.req.header('authorization'),
          queryToken: c.req.query('token'),
          cookie: readLoginCookie(c),
        });
    c.set('authVia', result.via);

    if (websocket) {
      const headers = { origin: c.req.header('origin'), host: requestHost(c) };
      if (!checkWebSocketOrigin(headers, options, result.via === 'token')) {
        options.logger.warn(`Blocking WebSocket with origin ${JSON.stringify(headers.origin ?? null).slice(0, 200)}`);
        throw forbidden('Cross-origin WebSocket not allowed');
      }
    }

    // Old clients' first frame carries page cookies, never the hub's HttpOnly login cookie.
    const firstFrameAuth = !hub && websocket && isLegacyChannelSocket(relPath);
    const isPublic =
      isPublicPath(relPath, method) ||
      (hub !== null && relPath === hub.callbackRelPath) ||
      (metrics && options.authenticateMetrics === false);
    if (c.req.query('token') !== undefined && !api && !websocket) {
      // A page opened with `?token=` is a login (a cookie is set below); a wrong one a failed one.
      if (result.viaQueryToken) recordAudit(c, 'login', { method: 'url_token' });
      else if (result.via === 'none') recordFailedLogin(c, 'url_token');
    }
    if (result.via === 'none' && !isPublic && !firstFrameAuth) {
      if (!api && !websocket && (method === 'GET' || method === 'HEAD')) {
        if (hub) return startHubLogin(c, hub, pathWithoutToken(c));
        const next = encodeURIComponent(pathWithoutToken(c));
        return c.redirect(`${c.get('baseUrl')}login?next=${next}`, 302);
      }
      throw forbidden('Forbidden');
    }

    // Login cookies are SameSite=Lax, but a cross-site top-level POST or an old browser could still
    // carry them; refuse cookie-authenticated requests a browser marks as coming from another site,
    // except plain navigations to pages (following a link to a notebook).
    if (result.via === 'cookie' && c.req.header('sec-fetch-site') === 'cross-site') {
      const navigation = c.req.header('sec-fetch-mode') === 'navigate' && method === 'GET' && !api;
      if (!navigation) throw forbidden('Blocking cross-site request');
    }

    if (
      !SAFE_METHODS.has(method) &&
      result.via !== 'token' &&
      !options.disableCheckXsrf &&
      !skipsXsrfCheck(relPath, method)
    ) {
      const verdict = checkXsrf(getCookie(c, XSRF_COOKIE), await submittedXsrf(c));
      if (verdict === 'missing') throw forbidden(`'_xsrf' argument missing from ${method}`);
      if (verdict === 'mismatch') throw forbidden(`XSRF cookie does not match ${method} argument`);
    }

    if (result.viaQueryToken) {
      await setLoginCookie(c);
      // A page URL carrying the token would stay in history and bookmarks: drop it once the cookie
      // is set. Only for browser navigations: `curl .../files/x?token=` must get the file itself.
      if (!api && !websocket && (method === 'GET' || method === 'HEAD') && isBrowserNavigation(c)) {
        ensureXsrfCookie(c);
        const base = c.get('baseUrl');
        return c.redirect(localRedirectTarget(pathWithoutToken(c), base) ?? base, 302);
      }
    }

    if (!api && !websocket && (method === 'GET' || method === 'HEAD') && !relPath.startsWith('/static/')) {
      ensureXsrfCookie(c);
    }
    await next();
  };
}
