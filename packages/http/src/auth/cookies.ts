import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { NbserveEnv } from '../env.js';
import { loginCookieName, SESSION_MAX_AGE_SECONDS } from './session-cookie.js';
import { newXsrfToken, XSRF_COOKIE } from './xsrf.js';

type Ctx = Context<NbserveEnv>;

function secure(c: Ctx): boolean {
  return new URL(c.req.url).protocol === 'https:';
}

/** The Host the client addressed (the header, or the URL's host for in-process requests). */
export function requestHost(c: Context): string {
  return c.req.header('host') ?? new URL(c.req.url).host;
}

export function loginCookieNameFor(c: Ctx): string {
  return loginCookieName(requestHost(c));
}

export function readLoginCookie(c: Ctx): string | undefined {
  return getCookie(c, loginCookieNameFor(c));
}

/** HttpOnly so page scripts (and injected ones) can never read it; Lax so cross-site subrequests lack it. */
export async function setLoginCookie(c: Ctx): Promise<void> {
  const value = await c.get('services').auth.newLoginCookie();
  setCookie(c, loginCookieNameFor(c), value, {
    path: c.get('baseUrl'),
    httpOnly: true,
    sameSite: 'Lax',
    secure: secure(c),
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
}

export async function clearLoginCookie(c: Ctx): Promise<void> {
  const value = readLoginCookie(c);
  if (value) await c.get('services').auth.revoke(value);
  deleteCookie(c, loginCookieNameFor(c), { path: c.get('baseUrl'), secure: secure(c) });
}

/**
 * The `_xsrf` token for this browser, setting the cookie when it has none. Pages embed the
 * returned value in forms; scripts read the cookie (it is deliberately not HttpOnly) and send it
 * back as `X-XSRFToken`.
 */
export function ensureXsrfCookie(c: Ctx): string {
  const existing = getCookie(c, XSRF_COOKIE);
  if (existing && /^[\w|.-]{1,512}$/.test(existing)) return existing;
  const token = newXsrfToken();
  setCookie(c, XSRF_COOKIE, token, { path: c.get('baseUrl'), sameSite: 'Lax', secure: secure(c) });
  return token;
}
