import { badRequest, forbidden } from '@nbserve/core';
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as v from 'valibot';
import { recordAudit, recordFailedLogin } from '../../audit/record.js';
import type { NbserveEnv } from '../../env.js';
import { parseWith } from '../../validate.js';
import { safeNextPath } from '../safe-next.js';
import { presentedToken } from '../token.js';
import { type HubAuth, STATE_MAX_AGE_SECONDS } from './hub-auth.js';

type Ctx = Context<NbserveEnv>;

/** Behind the hub's proxy TLS usually ends at the proxy, which says so in X-Forwarded-Proto. */
function secure(c: Ctx): boolean {
  const proto = c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase();
  return new URL(c.req.url).protocol === 'https:' || proto === 'https';
}

/** A redirect off this server, to the hub: the redirect guard lets exactly this target through. */
function redirectToHub(c: Ctx, url: string): Response {
  c.set('trustedRedirect', url);
  c.header('Cache-Control', 'no-store');
  return c.redirect(url, 302);
}

/**
 * Who a request is in hub mode: a hub token (`Authorization: token …`, `?token=`) or the login
 * cookie holding one; either way the hub must vouch for it and its scopes must admit it here.
 */
export async function authenticateWithHub(c: Ctx, hub: HubAuth): Promise<'token' | 'cookie' | 'none'> {
  const presented = presentedToken(c.req.header('authorization'), c.req.query('token'));
  const byToken = presented ? await hub.identify(presented.token) : null;
  if (byToken) {
    c.set('hubUser', byToken.user.name);
    return 'token';
  }
  const cookie = getCookie(c, hub.cookieName);
  const token = cookie ? hub.tokenFromCookie(cookie) : null;
  const byCookie = token ? await hub.identify(token) : null;
  if (byCookie) {
    c.set('hubUser', byCookie.user.name);
    return 'cookie';
  }
  return 'none';
}

/** Sends a browser to the hub to log in, remembering `next` (a path on this server) for the way back. */
export function startHubLogin(c: Ctx, hub: HubAuth, next: string): Response {
  const { state, cookie } = hub.newState(safeNextPath(next, c.get('baseUrl')));
  setCookie(c, hub.stateCookieName, cookie, {
    path: c.get('baseUrl'),
    httpOnly: true,
    sameSite: 'Lax',
    secure: secure(c),
    maxAge: STATE_MAX_AGE_SECONDS,
  });
  return redirectToHub(c, hub.authorizeUrl(state));
}

const CallbackQuery = v.object({
  code: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
  state: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
  error: v.optional(v.pipe(v.string(), v.maxLength(200))),
  error_description: v.optional(v.pipe(v.string(), v.maxLength(500))),
});

/** The end of the OAuth flow: state checked, code exchanged, identity admitted, cookie set. */
async function oauthCallback(c: Ctx, hub: HubAuth): Promise<Response> {
  const query = parseWith(CallbackQuery, c.req.query(), 'OAuth callback');
  if (query.error !== undefined) {
    throw badRequest(`JupyterHub did not log you in: ${query.error_description ?? query.error}`);
  }
  if (query.code === undefined) throw badRequest('The OAuth callback came without a code');
  if (query.state === undefined) throw badRequest('The OAuth callback came without a state');
  const stateCookie = getCookie(c, hub.stateCookieName);
  deleteCookie(c, hub.stateCookieName, { path: c.get('baseUrl'), secure: secure(c) });
  const next = stateCookie ? hub.checkState(query.state, stateCookie) : null;
  if (next === null) throw forbidden('OAuth state does not match. Try logging in again.');
  const token = await hub.client.tokenForCode(query.code);
  const identity = await hub.identify(token);
  if (!identity) {
    recordFailedLogin(c, 'jupyterhub');
    throw forbidden('You are not allowed on this server');
  }
  c.set('hubUser', identity.user.name);
  recordAudit(c, 'login', { method: 'jupyterhub' });
  c.get('services').options.logger.info(`Logged in ${identity.user.kind} ${JSON.stringify(identity.user.name)}`);
  setCookie(c, hub.cookieName, hub.loginCookie(token), {
    path: c.get('baseUrl'),
    httpOnly: true,
    sameSite: 'Lax',
    secure: secure(c),
  });
  c.header('Cache-Control', 'no-store');
  return c.redirect(safeNextPath(next, c.get('baseUrl')), 302);
}

/**
 * The hub's side of the pages: `oauth_callback`, `/login` (straight to the hub), `/logout` (this
 * server's cookie, then the hub's logout). Registered before the local login pages, which answer
 * when nbserve is not in hub mode.
 */
export function registerHubRoutes(app: Hono<NbserveEnv>): void {
  app.get('*', async (c, next) => {
    const hub = c.get('services').hub;
    if (!hub) return next();
    const relPath = c.get('relPath');
    if (relPath === hub.callbackRelPath) return oauthCallback(c, hub);
    if (relPath === '/login') {
      if (c.get('authVia') !== 'none') return c.redirect(safeNextPath(c.req.query('next'), c.get('baseUrl')), 302);
      return startHubLogin(c, hub, c.req.query('next') ?? c.get('baseUrl'));
    }
    if (relPath === '/logout') {
      deleteCookie(c, hub.cookieName, { path: c.get('baseUrl'), secure: secure(c) });
      return redirectToHub(c, hub.logoutUrl);
    }
    return next();
  });
}
