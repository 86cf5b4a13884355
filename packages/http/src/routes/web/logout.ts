import { escapeHtml } from '@nbserve/core';
import type { Hono } from 'hono';
import { clearLoginCookie } from '../../auth/cookies.js';
import type { NbserveEnv } from '../../env.js';
import { AUTH_PAGE_CSP, authPage } from './auth-page.js';

/** `GET /logout`: forgets the login cookie (server-side too) and links back to the login page. */
export function registerLogoutRoutes(app: Hono<NbserveEnv>): void {
  app.get('/logout', async (c) => {
    const base = c.get('baseUrl');
    const headers = { 'Content-Security-Policy': AUTH_PAGE_CSP, 'Cache-Control': 'no-store' };
    if (!(await c.get('services').auth.authEnabled())) {
      const body = `<h1>Cannot log out</h1>
<p>Authentication is disabled on this server, so there is nothing to log out of.</p>
<p><a href="${escapeHtml(base)}">Back to the dashboard</a></p>`;
      return c.html(authPage('Logout', body), 200, headers);
    }
    await clearLoginCookie(c);
    const body = `<h1>Successfully logged out</h1>
<p><a href="${escapeHtml(`${base}login`)}">Log in again</a></p>`;
    return c.html(authPage('Logged out', body), 200, headers);
  });
}
